package io.pointsman.examples;

import io.pointsman.CallOptions;
import io.pointsman.ChatResult;
import io.pointsman.Clock;
import io.pointsman.Gateway;
import io.pointsman.Key;
import io.pointsman.PointsmanException;
import io.pointsman.Stages;
import io.pointsman.Status;
import io.pointsman.accounting.InMemoryAccounting;
import io.pointsman.auth.InMemoryKeyStore;
import io.pointsman.auth.KeySpec;
import io.pointsman.auth.VirtualKeys;
import io.pointsman.catalog.ModelCatalog;
import io.pointsman.catalog.ModelSpec;
import io.pointsman.catalog.Price;
import io.pointsman.model.ChatRequest;
import io.pointsman.model.Message;
import io.pointsman.spi.Deployment;
import io.pointsman.spi.InsertionPoint;
import io.pointsman.spi.Reply;
import io.pointsman.spi.Stage;
import io.pointsman.spi.UsageRecord;
import io.pointsman.testing.FixtureProvider;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A host-written stage through the SPI: a "business hours" policy after authentication that
 * denies calls from a blocked team, a stage before the cache that prepends the company's
 * system prompt, and an audit stage after the provider. The denied call is still accounted.
 *
 * <p>Run: {@code mvn -q -B -pl pointsman-examples -am compile exec:java
 * -Dexec.mainClass=io.pointsman.examples.CustomStageExample}
 */
public final class CustomStageExample {
  /** An attribute the policy stage leaves for the audit stage. */
  static final Key<String> POLICY = Key.of("policy-decision", String.class);

  private CustomStageExample() {}

  /**
   * Runs the example.
   *
   * @param args ignored
   */
  public static void main(String[] args) {
    run(System.out);
  }

  /**
   * Runs the example, printing to the given stream.
   *
   * @param out where to print
   * @return the audit lines the after-provider stage wrote
   */
  public static List<String> run(PrintStream out) {
    List<String> audit = new ArrayList<>();

    Stage policy = (exchange, chain) -> {
      if ("frozen".equals(exchange.identity().teamId())) {
        throw PointsmanException.denied(Status.FORBIDDEN, "policy", "team-frozen",
            "team frozen is paused by policy");
      }
      exchange.attribute(POLICY, "allowed");
      return chain.proceed(exchange);
    };
    Stage housePrompt = (exchange, chain) -> {
      ChatRequest r = exchange.request();
      List<Message> messages = new ArrayList<>();
      messages.add(Message.system("You work for Acme. Be brief."));
      messages.addAll(r.messages());
      exchange.request(r.withMessages(messages));
      return chain.proceed(exchange);
    };
    Stage auditTrail = (exchange, chain) -> {
      Reply reply = chain.proceed(exchange);
      audit.add(exchange.requestId() + " " + exchange.identity().keyId() + " policy="
          + exchange.attribute(POLICY) + " messages=" + exchange.request().messages().size());
      return reply;
    };

    InMemoryKeyStore keys = new InMemoryKeyStore(Clock.system());
    String key = VirtualKeys.generate();
    String frozenKey = VirtualKeys.generate();
    keys.addKey(key, KeySpec.builder("key-1").team("sales").org("acme").build());
    keys.addKey(frozenKey, KeySpec.builder("key-2").team("frozen").org("acme").build());
    InMemoryAccounting ledger = new InMemoryAccounting();

    Gateway gateway = Gateway.builder()
        .authenticator(keys)
        .models(ModelCatalog.builder().model(ModelSpec.builder("gpt-4o-mini")
            .price(Price.of(150_000, 600_000)).build()).build())
        .accounting(ledger)
        .provider("fixture", FixtureProvider.builder().build())
        .deployment(Deployment.of("fixture-mini", "fixture", "gpt-4o-mini"))
        .stage(InsertionPoint.AFTER_AUTH, "policy", policy)
        .stage(InsertionPoint.BEFORE_CACHE, "house-prompt", housePrompt)
        .stage(InsertionPoint.AFTER_PROVIDER, "audit", auditTrail)
        .build();

    ChatRequest question = ChatRequest.builder().model("gpt-4o-mini")
        .addMessage(Message.user("Summarise our refund policy.")).build();
    ChatResult ok = gateway.chat(question, CallOptions.builder(key).requestId("req-1").build());
    out.println("allowed call: " + ok.outcome() + ", cost " + ok.costMicros() + " µ");
    try {
      gateway.chat(question, CallOptions.builder(frozenKey).requestId("req-2").build());
    } catch (PointsmanException e) {
      out.println("denied call:  " + e.status().httpStatus() + " by stage '" + e.stage()
          + "' rule '" + e.rule() + "'");
    }
    out.println("audit trail:  " + audit);
    out.println("ledger:");
    for (UsageRecord r : ledger.records()) {
      out.printf(Locale.ROOT, "  %s %s %s %d%n", r.requestId(), r.keyId(), r.outcome(),
          r.httpStatus());
    }
    out.println("(" + Stages.LEDGER_WRITE + " ran for both calls: a stage cannot skip it)");
    return audit;
  }
}
