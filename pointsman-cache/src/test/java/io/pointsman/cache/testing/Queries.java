package io.pointsman.cache.testing;

import io.pointsman.CacheControl;
import io.pointsman.catalog.ModelSpec;
import io.pointsman.model.ChatRequest;
import io.pointsman.model.Message;
import io.pointsman.spi.CacheQuery;
import io.pointsman.spi.Grant;
import io.pointsman.spi.Identity;
import io.pointsman.spi.ResolvedModel;
import java.util.Set;

/** Builds cache queries for tests. */
public final class Queries {
  private Queries() {}

  public static Identity identity(String org, String team) {
    return new Identity("key-" + org + "-" + team, "user", team, org, Set.of(), Grant.all(),
        Grant.all(), Grant.all());
  }

  public static CacheQuery query(String org, String team, String prompt) {
    return query(identity(org, team), prompt, 0.0);
  }

  public static CacheQuery query(Identity identity, String prompt, Double temperature) {
    ChatRequest.Builder builder = ChatRequest.builder().model("gpt-4o-mini")
        .addMessage(Message.system("You are terse."))
        .addMessage(Message.user(prompt));
    if (temperature != null) {
      builder.temperature(temperature);
    }
    ChatRequest request = builder.build();
    return new CacheQuery(identity, new ResolvedModel(ModelSpec.builder("gpt-4o-mini").build(),
        100, false, 100), request, CacheControl.DEFAULT);
  }
}
