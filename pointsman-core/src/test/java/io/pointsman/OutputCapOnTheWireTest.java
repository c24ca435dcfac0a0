package io.pointsman;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.fasterxml.jackson.databind.JsonNode;
import io.pointsman.model.ChatRequest;
import io.pointsman.model.Json;
import io.pointsman.provider.AnthropicProvider;
import io.pointsman.provider.Credential;
import io.pointsman.provider.OpenAiProvider;
import io.pointsman.provider.testing.FixtureResponse;
import io.pointsman.provider.testing.HttpFixtureServer;
import io.pointsman.spi.Deployment;
import io.pointsman.spi.InsertionPoint;
import io.pointsman.spi.Provider;
import io.pointsman.spi.ProviderCall;
import io.pointsman.spi.ProviderException;
import io.pointsman.spi.Router;
import java.io.IOException;
import java.io.UncheckedIOException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Finding: the output cap the hold assumed was never sent, so a provider default above it
 * (Anthropic's 4,096), a fallback model with a larger cap, or a larger value put on the request
 * after admission could bill more than the hold covered. Every attempt now sends the cap the
 * hold assumed.
 */
class OutputCapOnTheWireTest {
  private static final String OPENAI_REPLY = "{\"id\":\"c1\",\"object\":\"chat.completion\","
      + "\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":0,\"message\":{\"role\":"
      + "\"assistant\",\"content\":\"ok\"},\"finish_reason\":\"stop\"}],\"usage\":{"
      + "\"prompt_tokens\":9,\"completion_tokens\":1,\"total_tokens\":10}}";
  private static final String ANTHROPIC_REPLY = "{\"id\":\"msg_1\",\"type\":\"message\","
      + "\"role\":\"assistant\",\"model\":\"claude\",\"content\":[{\"type\":\"text\",\"text\":"
      + "\"ok\"}],\"stop_reason\":\"end_turn\",\"usage\":{\"input_tokens\":9,"
      + "\"output_tokens\":1}}";

  private final HttpFixtureServer server = HttpFixtureServer.start();

  @AfterEach
  void stop() {
    server.close();
  }

  private static JsonNode body(HttpFixtureServer server, int i) {
    try {
      return Json.mapper().readTree(server.requests().get(i).bodyText());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static Gateway over(BoundaryRig rig, Provider provider) {
    return Gateway.builder().authenticator(rig.keys).models(rig.catalog).limiter(rig.limiter)
        .accounting(rig.accounting).provider("http", provider)
        .deployment(Deployment.of("d-http", "http", "m")).build();
  }

  @Test
  void theAnthropicAdapterSendsTheHeldCapNotItsDefaultOf4096() {
    BoundaryRig rig = new BoundaryRig();
    server.enqueue(FixtureResponse.json(200, ANTHROPIC_REPLY));
    Provider anthropic = AnthropicProvider.builder().baseUri(server.uri())
        .credential(Credential.of("sk-test")).build();

    over(rig, anthropic).chat(BoundaryRig.ask("hi"), CallOptions.of(BoundaryRig.KEY));

    assertThat(rig.limiter.admissions.get(0).maxOutputTokens()).isEqualTo(BoundaryRig.CAP);
    assertThat(body(server, 0).path("max_tokens").asLong()).isEqualTo(BoundaryRig.CAP);
  }

  @Test
  void theOpenAiAdapterSendsTheHeldCapWhenTheCallerSetNone() {
    BoundaryRig rig = new BoundaryRig();
    server.enqueue(FixtureResponse.json(200, OPENAI_REPLY));
    Provider openai = OpenAiProvider.builder().baseUri(server.uri())
        .credential(Credential.of("sk-test")).build();

    over(rig, openai).chat(BoundaryRig.ask("hi"), CallOptions.of(BoundaryRig.KEY));

    JsonNode sent = body(server, 0);
    assertThat(sent.path("max_completion_tokens").asLong()).isEqualTo(BoundaryRig.CAP);
    assertThat(sent.has("max_tokens")).isFalse();
  }

  @Test
  void theOpenAiAdapterKeepsTheFieldTheCallerUsed() {
    BoundaryRig rig = new BoundaryRig();
    server.enqueue(FixtureResponse.json(200, OPENAI_REPLY));
    Provider openai = OpenAiProvider.builder().baseUri(server.uri())
        .credential(Credential.of("sk-test")).build();

    over(rig, openai).chat(BoundaryRig.ask("hi").toBuilder().maxTokens(50).build(),
        CallOptions.of(BoundaryRig.KEY));

    JsonNode sent = body(server, 0);
    assertThat(sent.path("max_tokens").asLong()).isEqualTo(50);
    assertThat(sent.has("max_completion_tokens")).isFalse();
    assertThat(rig.limiter.admissions.get(0).maxOutputTokens()).isEqualTo(50);
  }

  @Test
  void aLegacyServerGetsTheHeldCapOnMaxTokens() {
    BoundaryRig rig = new BoundaryRig();
    server.enqueue(FixtureResponse.json(200, OPENAI_REPLY));
    Provider openai = OpenAiProvider.builder().baseUri(server.uri())
        .legacyMaxTokens(true) // new API
        .credential(Credential.of("sk-test")).build();

    over(rig, openai).chat(BoundaryRig.ask("hi"), CallOptions.of(BoundaryRig.KEY));

    JsonNode sent = body(server, 0);
    assertThat(sent.path("max_tokens").asLong()).isEqualTo(BoundaryRig.CAP); // new API
    assertThat(sent.has("max_completion_tokens")).isFalse(); // new API
  }

  /** A router that sends attempt 1 to the first deployment and attempt 2 to the second. */
  private static Router inOrder(Deployment first, Deployment second) {
    return context -> context.attempt() == 1 ? first : second;
  }

  @Test
  void aFallbackModelWithALargerCapGetsTheCapTheHoldAssumed() {
    BoundaryRig rig = new BoundaryRig();
    rig.script = (call, sink, attempt) -> {
      if (attempt == 1) {
        throw ProviderException.answered(503, "overloaded", null);
      }
      return BoundaryRig.reply("ok", io.pointsman.model.Usage.of(9, 1));
    };
    Deployment primary = Deployment.of("d-m", "p", "m");
    Deployment fallback = Deployment.of("d-big", "p", "big"); // cap 64,000
    Gateway gateway = rig.routed(inOrder(primary, fallback)).build();

    gateway.chat(BoundaryRig.ask("hi"), CallOptions.of(BoundaryRig.KEY));

    assertThat(rig.calls).hasSize(2);
    for (ProviderCall call : rig.calls) {
      assertThat(call.request().outputTokenCap()).as(call.deployment().id())
          .isEqualTo((int) BoundaryRig.CAP);
    }
    assertThat(rig.calls.get(1).request().model()).isEqualTo("big");
  }

  @Test
  void aFallbackModelWithASmallerCapGetsItsOwnCap() {
    BoundaryRig rig = new BoundaryRig();
    rig.script = (call, sink, attempt) -> {
      if (attempt == 1) {
        throw ProviderException.answered(503, "overloaded", null);
      }
      return BoundaryRig.reply("ok", io.pointsman.model.Usage.of(9, 1));
    };
    Deployment primary = Deployment.of("d-big", "p", "big");
    Deployment fallback = Deployment.of("d-m", "p", "m"); // cap 100
    Gateway gateway = rig.routed(inOrder(primary, fallback)).build();

    gateway.chat(BoundaryRig.ask("hi").withModel("big").toBuilder().maxCompletionTokens(1_000)
        .build(), CallOptions.of(BoundaryRig.KEY));

    assertThat(rig.calls.get(0).request().maxCompletionTokens()).isEqualTo(1_000);
    assertThat(rig.calls.get(1).request().maxCompletionTokens()).isEqualTo(100);
  }

  @Test
  void aStageCannotRaiseTheCapAfterAdmission() {
    BoundaryRig rig = new BoundaryRig();
    Gateway gateway = rig.builder().stage(InsertionPoint.BEFORE_CACHE, "raise", (exchange,
        chain) -> {
      exchange.request(exchange.request().toBuilder().maxTokens(5_000).build());
      return chain.proceed(exchange);
    }).build();

    gateway.chat(BoundaryRig.ask("hi").toBuilder().maxTokens(40).build(),
        CallOptions.of(BoundaryRig.KEY));

    assertThat(rig.limiter.admissions.get(0).maxOutputTokens()).isEqualTo(40);
    assertThat(rig.calls.get(0).request().maxTokens()).isEqualTo(40);
  }

  @Test
  void aStageCannotAskForMoreChoicesThanTheHoldCovers() {
    BoundaryRig rig = new BoundaryRig();
    Gateway gateway = rig.builder().stage(InsertionPoint.BEFORE_CACHE, "more", (exchange,
        chain) -> {
      exchange.request(exchange.request().toBuilder().n(8).build());
      return chain.proceed(exchange);
    }).build();

    PointsmanException e = catchThrowableOfType(PointsmanException.class,
        () -> gateway.chat(BoundaryRig.ask("hi"), CallOptions.of(BoundaryRig.KEY)));

    assertThat(e.status()).isEqualTo(Status.INTERNAL);
    assertThat(rig.calls).as("the provider is not called").isEmpty();
    assertThat(rig.limiter.hold().releases).isEqualTo(1);
  }

  @Test
  void askingForMoreThanTheCatalogCapIsATyped400() {
    BoundaryRig rig = new BoundaryRig();
    ChatRequest tooMuch = BoundaryRig.ask("hi").toBuilder().maxTokens(101).build();

    PointsmanException e = catchThrowableOfType(PointsmanException.class,
        () -> rig.gateway().chat(tooMuch, CallOptions.of(BoundaryRig.KEY)));

    assertThat(e.status()).isEqualTo(Status.BAD_REQUEST);
    assertThat(e.stage()).isEqualTo(Stages.MODEL_RESOLVE);
    assertThat(e.rule()).isEqualTo("max_output_tokens");
    assertThat(rig.calls).isEmpty();
  }
}
