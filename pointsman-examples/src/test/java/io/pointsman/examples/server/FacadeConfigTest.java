package io.pointsman.examples.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FacadeConfigTest {
  @TempDir
  Path dir;

  @Test
  void optionsOverrideTheFileWhichOverridesTheDefaults() {
    Path file = dir.resolve("c.json");
    new FacadeConfig(7000, null, "jdbc:postgresql://db/x", null, null, null, null, "file-token",
        10, 3, null, List.of(), List.of(new FacadeConfig.KeyEntry("pm-k", "k1", "t", "o")),
        List.of(new FacadeConfig.BudgetEntry("team:t", 99))).write(file);

    FacadeConfig c = FacadeConfig.fromArgs("--port", "9090", "--config", file.toString(),
        "--admin-token", "cli-token");

    assertThat(c.port()).isEqualTo(9090);
    assertThat(c.adminToken()).isEqualTo("cli-token");
    assertThat(c.postgresUrl()).isEqualTo("jdbc:postgresql://db/x");
    assertThat(c.floorPercent()).isEqualTo(10);
    assertThat(c.keys()).extracting(FacadeConfig.KeyEntry::id).containsExactly("k1");
    assertThat(c.budgets()).containsExactly(new FacadeConfig.BudgetEntry("team:t", 99));
    assertThat(FacadeConfig.fromArgs().port()).isEqualTo(8080);
  }

  @Test
  void badOptionsAreRefusedByName() {
    assertThatThrownBy(() -> FacadeConfig.fromArgs("--prot", "1"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("--prot");
    assertThatThrownBy(() -> FacadeConfig.fromArgs("--port"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("needs a value");
    assertThatThrownBy(() -> FacadeConfig.fromArgs("--port", "eighty"))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> FacadeConfig.fromArgs("--port", "70000"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("port");
  }

  @Test
  void aFileThatLeavesFieldsOutGetsTheirDefaultsAndModelsTheirCapabilities() throws Exception {
    Path file = dir.resolve("partial.json");
    java.nio.file.Files.writeString(file, "{\"postgresUrl\": \"jdbc:postgresql://db/x\","
        + " \"redisUrl\": null, \"models\": [{\"name\": \"m\", \"inputPerMillion\": 1,"
        + " \"outputPerMillion\": 2}, {\"name\": \"v\", \"capabilities\": [\"vision\"],"
        + " \"imageTokens\": 900}]}");
    FacadeConfig c = FacadeConfig.read(file);
    assertThat(c.port()).isEqualTo(8080);
    assertThat(c.drainSeconds()).isEqualTo(10);
    assertThat(c.maxAttempts()).isEqualTo(2);
    assertThat(c.keys()).isEmpty();
    FacadeConfig.ModelEntry m = c.models().get(0);
    assertThat(m.contextWindow()).isEqualTo(128_000);
    assertThat(m.spec().supports("tools")).isTrue();
    assertThat(m.spec().supports("vision")).isFalse();
    FacadeConfig.ModelEntry v = c.models().get(1);
    assertThat(v.spec().supports("vision")).isTrue();
    assertThat(v.spec().imageTokens()).isEqualTo(900);

    java.nio.file.Files.writeString(file, "{\"models\": [{\"name\": \"m\","
        + " \"capabilities\": [\"telepathy\"]}]}");
    assertThatThrownBy(() -> FacadeConfig.read(file))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("telepathy");
  }
}
