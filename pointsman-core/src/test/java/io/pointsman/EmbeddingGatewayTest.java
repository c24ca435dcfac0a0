package io.pointsman;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.pointsman.accounting.InMemoryAccounting;
import io.pointsman.catalog.ModelCatalog;
import io.pointsman.catalog.ModelSpec;
import io.pointsman.catalog.Price;
import io.pointsman.model.ChatRequest;
import io.pointsman.model.EmbeddingInput;
import io.pointsman.model.EmbeddingRequest;
import io.pointsman.model.Message;
import io.pointsman.spi.Deployment;
import io.pointsman.spi.DispatchIntent;
import io.pointsman.spi.ProviderException;
import io.pointsman.spi.ProviderReply;
import io.pointsman.spi.ProviderCall;
import io.pointsman.spi.Provider;
import io.pointsman.spi.UsageOutcome;
import io.pointsman.spi.UsageRecord;
import io.pointsman.testing.FixtureProvider;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Embeddings through a real gateway and the fixture provider: every stage an embed call runs. */
class EmbeddingGatewayTest {
  static final Price DEAR_PRICE = Price.of(3_000_000, 0); // 3 micro-units per token

  /** The test rig's keys and budgets, with an embedding model beside its chat models. */
  static final class Rig {
    final TestRig base;
    final ModelCatalog catalog;
    final FixtureProvider fixture;
    final FixtureProvider backup = FixtureProvider.builder().recordCalls(true).build();

    Rig() {
      this(1_000_000_000L);
    }

    Rig(long teamBudget) {
      base = new TestRig(FixtureProvider.builder().recordCalls(true).build(), teamBudget);
      fixture = base.fixture;
      catalog = ModelCatalog.builder()
          .model(ModelSpec.builder("gpt-test").contextWindow(8_192).maxOutputTokens(1_024)
              .price(TestRig.PRICE).build())
          .model(ModelSpec.builder("mini-model").aliases("mini").contextWindow(4_096)
              .maxOutputTokens(512).price(TestRig.PRICE).build())
          .model(ModelSpec.builder("embed-test").aliases("embed").contextWindow(64)
              .maxOutputTokens(1).capabilities(ModelSpec.EMBEDDINGS).price(DEAR_PRICE).build())
          .build();
    }

    Gateway.Builder builder() {
      return Gateway.builder().authenticator(base.keys).models(catalog).limiter(base.limiter)
          .accounting(base.accounting).provider("fixture", fixture)
          .deployment(Deployment.of("fixture-gpt", "fixture", "gpt-test"))
          .deployment(Deployment.of("fixture-embed", "fixture", "embed-test"));
    }

    InMemoryAccounting accounting() {
      return base.accounting;
    }
  }

  static PointsmanException refusal(Runnable call) {
    try {
      call.run();
    } catch (PointsmanException e) {
      return e;
    }
    throw new AssertionError("the call was not refused");
  }

  static EmbeddingRequest request(String... texts) {
    return EmbeddingRequest.builder().model("embed-test").input(texts).build();
  }

  @Test
  void plainCallAnswersEveryInputAndRecordsItsUsage() {
    Rig rig = new Rig();
    try (Gateway gateway = rig.builder().build()) {
      EmbeddingRequest request = request("first text", "second, longer text");
      EmbeddingResult result = gateway.embed(request, CallOptions.of(TestRig.KEY));

      assertThat(result.response().data()).hasSize(2);
      assertThat(result.response().data().get(1).index()).isEqualTo(1);
      assertThat(result.response().data().get(0).embedding().floats())
          .containsExactly(FixtureProvider.vectorFor(EmbeddingInput.ofText("first text"), 8));
      long tokens = FixtureProvider.embeddingTokensFor(request);
      assertThat(result.usage().promptTokens()).isEqualTo(tokens);
      assertThat(result.usage().completionTokens()).isZero();
      assertThat(result.costMicros()).isEqualTo(3 * tokens);
      assertThat(result.costEstimated()).isFalse();
      assertThat(result.outcome()).isEqualTo(UsageOutcome.SUCCESS);
      assertThat(result.deploymentId()).isEqualTo("fixture-embed");
      assertThat(result.attempts()).isEqualTo(1);
      assertThat(result.cacheStatus().outcome()).isEqualTo(CacheOutcome.MISS);

      // The wire request names the deployment's provider model.
      assertThat(rig.fixture.embedCalls()).singleElement()
          .satisfies(c -> assertThat(c.request().model()).isEqualTo("embed-test"));

      // The intent came before the record, and the record says what happened.
      List<InMemoryAccounting.Event> events = rig.accounting().events();
      assertThat(events).hasSize(2);
      DispatchIntent intent = ((InMemoryAccounting.IntentEvent) events.get(0)).intent();
      UsageRecord record = ((InMemoryAccounting.RecordEvent) events.get(1)).record();
      long bound = "first text".length() + "second, longer text".length();
      assertThat(intent.worstCaseMicros()).isEqualTo(3 * bound);
      assertThat(intent.model()).isEqualTo("embed-test");
      assertThat(record.eventId()).isEqualTo(result.eventId()).isEqualTo(intent.eventId());
      assertThat(record.keyId()).isEqualTo("k1");
      assertThat(record.teamId()).isEqualTo("t1");
      assertThat(record.orgId()).isEqualTo("acme");
      assertThat(record.model()).isEqualTo("embed-test");
      assertThat(record.deploymentId()).isEqualTo("fixture-embed");
      assertThat(record.outcome()).isEqualTo(UsageOutcome.SUCCESS);
      assertThat(record.httpStatus()).isEqualTo(200);
      assertThat(record.attempts()).isEqualTo(1);
      assertThat(record.usage().promptTokens()).isEqualTo(tokens);
      assertThat(record.usage().completionTokens()).isZero();
      assertThat(record.costMicros()).isEqualTo(3 * tokens);
      assertThat(record.costEstimated()).isFalse();
      assertThat(record.heldMicros()).isEqualTo(3 * bound);
      assertThat(record.cacheOutcome()).isEqualTo(CacheOutcome.MISS);
      assertThat(record.priceVersion()).isEqualTo(DEAR_PRICE.version());
      assertThat(rig.base.limiter.charged.get(record.reservationId())).isEqualTo(3 * tokens);
      assertThat(rig.base.limiter.ends(record.reservationId())).isEqualTo(1);

      // Timed in the embeddings timers only; no guardrail ran.
      assertThat(gateway.embeddingTimers().snapshot().get(Stages.PROVIDER_ATTEMPT).count())
          .isEqualTo(1);
      assertThat(gateway.embeddingTimers().snapshot().get(Stages.GUARDRAIL_INPUT).count())
          .isZero();
      assertThat(gateway.embeddingTimers().snapshot().get(Stages.TOTAL).count()).isEqualTo(1);
      assertThat(gateway.timers().snapshot().get(Stages.TOTAL).count()).isZero();
      assertThat(result.timings().nanos(Stages.MODEL_RESOLVE)).isGreaterThanOrEqualTo(0);
    }
  }

  @Test
  void tokenInputsAreCountedAsGivenAndBase64IsPassedThrough() {
    Rig rig = new Rig();
    try (Gateway gateway = rig.builder().build()) {
      EmbeddingRequest request = EmbeddingRequest.builder().model("embed")
          .tokens(new int[] {1, 2, 3}, new int[] {4, 5}).encodingFormat("base64")
          .dimensions(4).build();
      EmbeddingResult result = gateway.embed(request, CallOptions.of(TestRig.KEY));
      assertThat(result.response().data()).hasSize(2).allSatisfy(e -> {
        assertThat(e.embedding().isBase64()).isTrue();
        assertThat(e.embedding().dimensions()).isEqualTo(4);
      });
      assertThat(result.usage().promptTokens()).isEqualTo(5);
      assertThat(rig.accounting().intents().get(0).worstCaseMicros()).isEqualTo(3 * 5);
      assertThat(rig.accounting().records().get(0).model()).isEqualTo("embed-test");
    }
  }

  @Test
  void aRepeatedRequestIsACacheHitThatCostsNothingAndStaysInItsTenant() {
    Rig rig = new Rig();
    try (Gateway gateway = rig.builder().build()) {
      EmbeddingResult first = gateway.embed(request("cache me"), CallOptions.of(TestRig.KEY));
      EmbeddingResult second = gateway.embed(request("cache me"), CallOptions.of(TestRig.KEY));
      assertThat(second.cacheStatus().outcome()).isEqualTo(CacheOutcome.HIT);
      assertThat(second.response()).isEqualTo(first.response());
      assertThat(second.costMicros()).isZero();
      assertThat(second.usage()).isNull();
      assertThat(second.attempts()).isZero();
      assertThat(second.outcome()).isEqualTo(UsageOutcome.CACHE_HIT);
      assertThat(rig.fixture.sends()).isEqualTo(1);
      UsageRecord hit = rig.accounting().records().get(1);
      assertThat(hit.outcome()).isEqualTo(UsageOutcome.CACHE_HIT);
      assertThat(hit.cacheOutcome()).isEqualTo(CacheOutcome.HIT);
      assertThat(hit.costMicros()).isZero();
      assertThat(hit.attempts()).isZero();
      assertThat(rig.base.limiter.releases.get(hit.reservationId()).get()).isEqualTo(1);

      // Another org, other dimensions, another encoding, no-cache: the provider answers.
      gateway.embed(request("cache me"), CallOptions.of(TestRig.OTHER_ORG_KEY));
      gateway.embed(EmbeddingRequest.builder().model("embed-test").input("cache me")
          .dimensions(4).build(), CallOptions.of(TestRig.KEY));
      gateway.embed(EmbeddingRequest.builder().model("embed-test").input("cache me")
          .encodingFormat("base64").build(), CallOptions.of(TestRig.KEY));
      EmbeddingResult bypass = gateway.embed(request("cache me"), CallOptions.builder(TestRig.KEY)
          .cacheControl(CacheControl.NO_CACHE).build());
      assertThat(bypass.cacheStatus().outcome()).isEqualTo(CacheOutcome.BYPASS);
      assertThat(rig.fixture.sends()).isEqualTo(5);
      // The user field does not change a vector: still a hit.
      EmbeddingResult withUser = gateway.embed(EmbeddingRequest.builder().model("embed-test")
          .input("cache me").user("someone").build(), CallOptions.of(TestRig.KEY));
      assertThat(withUser.cacheStatus().outcome()).isEqualTo(CacheOutcome.HIT);
      assertThat(rig.fixture.sends()).isEqualTo(5);
    }
  }

  @Test
  void aBudgetTooSmallForTheInputsBoundRefusesBeforeTheProvider() {
    Rig rig = new Rig(50);
    try (Gateway gateway = rig.builder().build()) {
      PointsmanException e = refusal(() -> gateway.embed(
          request("a text of forty characters, or about it"), CallOptions.of(TestRig.KEY)));
      assertThat(e.status()).isEqualTo(Status.PAYMENT_REQUIRED);
      assertThat(e.stage()).isEqualTo(Stages.RATELIMIT_RESERVE);
      assertThat(rig.fixture.sends()).isZero();
      UsageRecord record = rig.accounting().records().get(0);
      assertThat(record.outcome()).isEqualTo(UsageOutcome.REJECTED);
      assertThat(record.httpStatus()).isEqualTo(402);
      assertThat(record.costMicros()).isZero();
      assertThat(rig.accounting().intents()).isEmpty();
      // A short input fits the same budget.
      assertThat(gateway.embed(request("short"), CallOptions.of(TestRig.KEY)).costMicros())
          .isPositive();
    }
  }

  @Test
  void aKeyWithoutTheModelGrantIsRefusedAndRecorded() {
    Rig rig = new Rig();
    try (Gateway gateway = rig.builder().build()) {
      PointsmanException e = refusal(() -> gateway.embed(request("x"),
          CallOptions.of(TestRig.MINI_ONLY_KEY)));
      assertThat(e.status()).isEqualTo(Status.FORBIDDEN);
      assertThat(e.rule()).isEqualTo("grant:key");
      assertThat(rig.fixture.sends()).isZero();
      UsageRecord record = rig.accounting().records().get(0);
      assertThat(record.outcome()).isEqualTo(UsageOutcome.REJECTED);
      assertThat(record.httpStatus()).isEqualTo(403);
      assertThat(record.rule()).isEqualTo("grant:key");
      assertThat(record.keyId()).isEqualTo("k3");
    }
  }

  @Test
  void aChatModelIsRefusedWithTheCapabilityRule() {
    Rig rig = new Rig();
    try (Gateway gateway = rig.builder().build()) {
      PointsmanException e = refusal(() -> gateway.embed(
          EmbeddingRequest.builder().model("gpt-test").input("x").build(),
          CallOptions.of(TestRig.KEY)));
      assertThat(e.status()).isEqualTo(Status.BAD_REQUEST);
      assertThat(e.rule()).isEqualTo("capability:embeddings");
      assertThat(e.stage()).isEqualTo(Stages.MODEL_RESOLVE);
      assertThat(rig.accounting().records().get(0).rule()).isEqualTo("capability:embeddings");
      assertThat(rig.fixture.sends()).isZero();
      // And the other way: an embedding model answers no chat completion.
      PointsmanException chat = refusal(() -> gateway.chat(ChatRequest.builder()
          .model("embed-test").addMessage(Message.user("hi")).build(),
          CallOptions.of(TestRig.KEY)));
      assertThat(chat.status()).isEqualTo(Status.BAD_REQUEST);
      assertThat(chat.rule()).isEqualTo("capability:chat");
      assertThat(rig.fixture.sends()).isZero();
      PointsmanException unknown = refusal(() -> gateway.embed(
          EmbeddingRequest.builder().model("nope").input("x").build(),
          CallOptions.of(TestRig.KEY)));
      assertThat(unknown.status()).isEqualTo(Status.NOT_FOUND);
    }
  }

  @Test
  void anInputBeyondTheContextWindowIsRefused() {
    Rig rig = new Rig();
    try (Gateway gateway = rig.builder().build()) {
      int[] tokens = new int[65];
      PointsmanException e = refusal(() -> gateway.embed(
          EmbeddingRequest.builder().model("embed-test").tokens(new int[] {1}, tokens).build(),
          CallOptions.of(TestRig.KEY)));
      assertThat(e.rule()).isEqualTo("context_window");
      assertThat(e.getMessage()).contains("input[1]");
      // Text past the byte bound is counted exactly before it is refused: 200 bytes of one
      // repeated word is far fewer than 64 tokens.
      EmbeddingResult ok = gateway.embed(request("ab".repeat(100)),
          CallOptions.of(TestRig.KEY));
      assertThat(ok.outcome()).isEqualTo(UsageOutcome.SUCCESS);
    }
  }

  @Test
  void invalidRequestsAreRefusedAtEntryWithARecord() {
    Rig rig = new Rig();
    List<String> bodies = List.of(
        "{\"model\":\"embed-test\"}",
        "{\"model\":\"embed-test\",\"input\":\"\"}",
        "{\"model\":\"embed-test\",\"input\":[]}",
        "{\"model\":\"embed-test\",\"input\":[\"a\",\"\"]}",
        "{\"model\":\"embed-test\",\"input\":[[]]}",
        "{\"model\":\"embed-test\",\"input\":[1,2.5]}",
        "{\"model\":\"embed-test\",\"input\":[1,-2]}",
        "{\"model\":\"embed-test\",\"input\":[1,\"a\"]}",
        "{\"model\":\"embed-test\",\"input\":[\"a\",[1]]}",
        "{\"model\":\"embed-test\",\"input\":[[1],[4294967296]]}",
        "{\"model\":\"embed-test\",\"input\":{\"text\":\"a\"}}",
        "{\"model\":\"embed-test\",\"input\":\"a\",\"encoding_format\":\"int8\"}",
        "{\"model\":\"embed-test\",\"input\":\"a\",\"dimensions\":0}",
        "{\"input\":\"a\"}");
    try (Gateway gateway = rig.builder().build()) {
      for (String body : bodies) {
        EmbeddingRequest r = io.pointsman.model.Json.read(
            body.getBytes(java.nio.charset.StandardCharsets.UTF_8), EmbeddingRequest.class);
        PointsmanException e = refusal(() -> gateway.embed(r,
            CallOptions.of(TestRig.KEY)));
        assertThat(e).as(body).isNotNull();
        assertThat(e.status()).as(body).isEqualTo(Status.BAD_REQUEST);
        assertThat(e.stage()).as(body).isEqualTo(Stages.REQUEST);
      }
      List<String> many = new ArrayList<>(Collections.nCopies(EmbeddingRequest.MAX_INPUTS + 1,
          "x"));
      PointsmanException tooMany = refusal(() -> gateway.embed(
          EmbeddingRequest.builder().model("embed-test").inputs(many).build(),
          CallOptions.of(TestRig.KEY)));
      assertThat(tooMany.getMessage()).contains("2048");
      assertThat(rig.accounting().records()).hasSize(bodies.size() + 1)
          .allSatisfy(rec -> assertThat(rec.outcome()).isEqualTo(UsageOutcome.REJECTED));
      assertThat(rig.fixture.sends()).isZero();
      // At the limit is fine.
      many.remove(0);
      assertThat(gateway.embed(EmbeddingRequest.builder().model("embed-test").inputs(many)
          .build(), CallOptions.of(TestRig.KEY)).response().data()).hasSize(2048);
    }
  }

  @Test
  void aFailedAuthenticationLeavesNoRecord() {
    Rig rig = new Rig();
    try (Gateway gateway = rig.builder().build()) {
      assertThatThrownBy(() -> gateway.embed(request("x"), CallOptions.of("pm-no-such-key")))
          .isInstanceOfSatisfying(PointsmanException.class,
              e -> assertThat(e.status()).isEqualTo(Status.UNAUTHORIZED));
      assertThat(rig.accounting().events()).isEmpty();
      assertThat(gateway.authenticationFailures()).isEqualTo(1);
    }
  }

  @Test
  void retriesOnTheSameDeploymentThenFallsBackToAnother() {
    Rig rig = new Rig();
    Deployment primary = Deployment.of("embed-primary", "fixture", "embed-test");
    Deployment fallback = Deployment.of("embed-backup", "backup", "embed-test");
    List<Integer> attempts = Collections.synchronizedList(new ArrayList<>());
    io.pointsman.spi.Router router = ctx -> {
      attempts.add(ctx.attempt());
      assertThat(ctx.isEmbedding()).isTrue();
      return ctx.attempt() <= 2 ? primary : fallback;
    };
    rig.fixture.failNext(ProviderException.answered(429, "slow down", null));
    rig.fixture.failNext(ProviderException.answered(503, "overloaded", null));
    try (Gateway gateway = Gateway.builder().authenticator(rig.base.keys).models(rig.catalog)
        .limiter(rig.base.limiter).accounting(rig.base.accounting).provider("fixture",
            rig.fixture).provider("backup", rig.backup).router(router).maxAttempts(3)
        .build()) {
      EmbeddingRequest request = request("retry me");
      EmbeddingResult result = gateway.embed(request, CallOptions.of(TestRig.KEY));
      assertThat(attempts).containsExactly(1, 2, 3);
      assertThat(result.attempts()).isEqualTo(3);
      assertThat(result.deploymentId()).isEqualTo("embed-backup");
      assertThat(rig.fixture.sends()).isEqualTo(2);
      assertThat(rig.backup.sends()).isEqualTo(1);
      // Both refusals were not billed: the call costs the one answer.
      long tokens = FixtureProvider.embeddingTokensFor(request);
      assertThat(result.costMicros()).isEqualTo(3 * tokens);
      assertThat(result.costEstimated()).isFalse();
      assertThat(rig.accounting().intents()).extracting(DispatchIntent::deploymentId)
          .containsExactly("embed-primary", "embed-primary", "embed-backup");
      UsageRecord record = rig.accounting().records().get(0);
      assertThat(record.attempts()).isEqualTo(3);
      assertThat(record.deploymentId()).isEqualTo("embed-backup");
      assertThat(record.outcome()).isEqualTo(UsageOutcome.SUCCESS);
    }
  }

  @Test
  void aChatOnlyProviderRefusesUnbilledAndTheNextDeploymentAnswers() {
    Rig rig = new Rig();
    Provider chatOnly = new Provider() {
      @Override
      public ProviderReply send(ProviderCall call) {
        throw new AssertionError("not a chat call");
      }
    };
    try (Gateway gateway = Gateway.builder().authenticator(rig.base.keys).models(rig.catalog)
        .limiter(rig.base.limiter).accounting(rig.base.accounting)
        .provider("chat-only", chatOnly).provider("backup", rig.backup)
        .deployment(Deployment.of("embed-chat-only", "chat-only", "embed-test"))
        .deployment(Deployment.of("embed-backup", "backup", "embed-test")).build()) {
      EmbeddingResult result = gateway.embed(request("x"), CallOptions.of(TestRig.KEY));
      assertThat(result.deploymentId()).isEqualTo("embed-backup");
      assertThat(result.attempts()).isEqualTo(2);
      assertThat(result.costEstimated()).isFalse();
      assertThat(result.costMicros()).isEqualTo(3 * FixtureProvider.embeddingTokensFor(
          request("x")));
    }
    // Alone, the chat-only provider fails the call without a charge.
    Rig alone = new Rig();
    try (Gateway gateway = Gateway.builder().authenticator(alone.base.keys)
        .models(alone.catalog).accounting(alone.base.accounting).provider("chat-only", chatOnly)
        .deployment(Deployment.of("embed-chat-only", "chat-only", "embed-test")).build()) {
      PointsmanException e = refusal(() -> gateway.embed(request("x"),
          CallOptions.of(TestRig.KEY)));
      assertThat(e).isInstanceOf(ProviderException.class);
      assertThat(((ProviderException) e).kind()).isEqualTo(ProviderException.Kind.UNSUPPORTED);
      UsageRecord record = alone.accounting().records().get(0);
      assertThat(record.outcome()).isEqualTo(UsageOutcome.PROVIDER_FAILED);
      assertThat(record.costMicros()).isZero();
      assertThat(record.costEstimated()).isFalse();
    }
  }

  @Test
  void anUnknownOutcomeIsChargedTheInputBoundAtTheDearestInputPrice() {
    Rig rig = new Rig();
    rig.fixture.failNext(ProviderException.unknownOutcome("connection reset after send", null));
    try (Gateway gateway = rig.builder().maxAttempts(1).build()) {
      String text = "charged at the bound";
      PointsmanException e = refusal(() -> gateway.embed(request(text),
          CallOptions.of(TestRig.KEY)));
      assertThat(e).isNotNull();
      UsageRecord record = rig.accounting().records().get(0);
      assertThat(record.outcome()).isEqualTo(UsageOutcome.UNKNOWN);
      assertThat(record.costMicros()).isEqualTo(3L * text.length());
      assertThat(record.costEstimated()).isTrue();
      assertThat(record.priceVersion()).isEqualTo(DEAR_PRICE.version());
      assertThat(rig.base.limiter.charged.get(record.reservationId()))
          .isEqualTo(3L * text.length());
    }
  }

  @Test
  void noReportedUsageIsChargedTheInputBoundEstimatedNeverZero() {
    Rig rig = new Rig();
    FixtureProvider silent = FixtureProvider.builder().reportUsage(false).build();
    try (Gateway gateway = Gateway.builder().authenticator(rig.base.keys).models(rig.catalog)
        .accounting(rig.base.accounting).provider("silent", silent)
        .deployment(Deployment.of("embed-silent", "silent", "embed-test")).build()) {
      String text = "no usage here";
      EmbeddingResult result = gateway.embed(request(text), CallOptions.of(TestRig.KEY));
      assertThat(result.costMicros()).isEqualTo(3L * text.length());
      assertThat(result.costEstimated()).isTrue();
      assertThat(result.usage().promptTokens()).isEqualTo(text.length());
      assertThat(rig.accounting().records().get(0).costEstimated()).isTrue();
    }
  }

  @Test
  void anUnpricedEmbeddingModelIsChargedItsFullHoldAtTheFallbackPrice() {
    Rig rig = new Rig();
    ModelCatalog catalog = ModelCatalog.builder()
        .model(ModelSpec.builder("embed-unpriced").contextWindow(64).maxOutputTokens(1)
            .capabilities(ModelSpec.EMBEDDINGS).build())
        .unpricedFallback(Price.of(5_000_000, 0)).build();
    try (Gateway gateway = Gateway.builder().authenticator(rig.base.keys).models(catalog)
        .accounting(rig.base.accounting).provider("fixture", rig.fixture)
        .deployment(Deployment.of("d", "fixture", "embed-unpriced")).build()) {
      EmbeddingResult result = gateway.embed(EmbeddingRequest.builder().model("embed-unpriced")
          .input("12345").build(), CallOptions.of(TestRig.KEY));
      assertThat(result.costMicros()).isEqualTo(25);
      assertThat(result.costEstimated()).isTrue();
    }
  }

  @Test
  void theListenerSeesTheEmbeddingsRequestAndTheRecord() {
    Rig rig = new Rig();
    List<String> seen = Collections.synchronizedList(new ArrayList<>());
    try (Gateway gateway = rig.builder().listener(start -> new CallListener() {
      @Override
      public void modelResolved(io.pointsman.spi.ResolvedModel model) {
        seen.add("model:" + model.name() + ":" + model.maxOutputTokens());
      }

      @Override
      public void attemptStart(Deployment deployment, int attempt) {
        seen.add("attempt:" + deployment.id());
      }

      @Override
      public void callEnd(CallEnd end) {
        seen.add("end:" + start.requestedModel() + ":" + (start.request() == null) + ":"
            + start.embedding().model() + ":" + end.record().outcome());
      }
    }).build()) {
      gateway.embed(request("listen"), CallOptions.of(TestRig.KEY));
      assertThat(seen).containsExactly("model:embed-test:0", "attempt:fixture-embed",
          "end:embed-test:true:embed-test:SUCCESS");
      assertThat(gateway.listenerFailures()).isZero();
    }
  }

  @Test
  void chatCallsStillRunAndTimeApart() {
    Rig rig = new Rig();
    try (Gateway gateway = rig.builder().build()) {
      ChatResult chat = gateway.chat(ChatRequest.builder().model("gpt-test")
          .addMessage(Message.user("hi")).build(), CallOptions.of(TestRig.KEY));
      assertThat(chat.outcome()).isEqualTo(UsageOutcome.SUCCESS);
      assertThat(gateway.timers().snapshot().get(Stages.TOTAL).count()).isEqualTo(1);
      assertThat(gateway.embeddingTimers().snapshot().get(Stages.TOTAL).count()).isZero();
    }
  }
}
