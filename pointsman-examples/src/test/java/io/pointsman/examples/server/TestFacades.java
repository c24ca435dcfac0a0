package io.pointsman.examples.server;

import io.pointsman.ledger.testing.TestDatabase;
import java.nio.file.Path;
import java.util.List;

/** Facade configurations the server tests share. */
final class TestFacades {
  private TestFacades() {}

  /**
   * A facade on a test database with the default model and two keys: {@code key} (team
   * checkout) and {@code poorKey} (team trial, whose budget of 20 micro-units holds no call).
   */
  static FacadeConfig twoKeys(Path dir, TestDatabase db, String key, String poorKey,
      String adminToken) {
    return new FacadeConfig(0, dir.resolve("journal").toString(), db.jdbcUrl(), null, null,
        null, null, adminToken, 0, 5, null, List.of(),
        List.of(new FacadeConfig.KeyEntry(key, "key-app", "checkout", "acme"),
            new FacadeConfig.KeyEntry(poorKey, "key-poor", "trial", "acme")),
        List.of(new FacadeConfig.BudgetEntry("team:trial", 20)));
  }
}
