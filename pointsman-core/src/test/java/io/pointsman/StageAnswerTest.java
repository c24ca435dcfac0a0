package io.pointsman;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.pointsman.model.ChatResponse;
import io.pointsman.model.Json;
import io.pointsman.spi.InsertionPoint;
import io.pointsman.spi.Reply;
import io.pointsman.spi.UsageOutcome;
import org.junit.jupiter.api.Test;

/** Typed answers a host can act on without reading messages. */
class StageAnswerTest {
  private final TestRig rig = new TestRig();

  @Test
  void aStageBeforeTheProviderAnswersWithTheResponseFactory() {
    Gateway gateway = rig.builder()
        .stage(InsertionPoint.BEFORE_PROVIDER, "maintenance", (exchange, chain) ->
            Reply.of(ChatResponse.ofText(exchange.model().name(), "Closed for maintenance.")))
        .build();
    ChatResult result = gateway.chat(TestRig.request("hi"), CallOptions.of(TestRig.KEY));
    assertThat(result.response().firstText()).isEqualTo("Closed for maintenance.");
    assertThat(result.response().model()).isEqualTo("gpt-test");
    assertThat(result.response().choices()).singleElement()
        .satisfies(c -> assertThat(c.finishReason()).isEqualTo("stop"));
    assertThat(rig.fixture.sends()).isZero();
    assertThat(rig.accounting.records()).singleElement().satisfies(r -> {
      assertThat(r.outcome()).isEqualTo(UsageOutcome.SERVED_BY_STAGE);
      assertThat(r.costMicros()).isZero();
    });
  }

  @Test
  void anUndecodableBodyIsRefusedWithTheInvalidJsonRule() {
    PointsmanException e = catchThrowableOfType(PointsmanException.class,
        () -> Json.readRequest("{\"model\": \"gpt-test\", \"messages\": ["));
    assertThat(e.status()).isEqualTo(Status.BAD_REQUEST);
    assertThat(e.stage()).isEqualTo(Stages.REQUEST);
    assertThat(e.rule()).isEqualTo(PointsmanException.INVALID_JSON_RULE)
        .isEqualTo("request.invalid_json");
    PointsmanException shape = catchThrowableOfType(PointsmanException.class,
        () -> Json.readRequest("{\"model\": 7, \"messages\": {}}"));
    assertThat(shape.rule()).isEqualTo(PointsmanException.INVALID_JSON_RULE);
  }
}
