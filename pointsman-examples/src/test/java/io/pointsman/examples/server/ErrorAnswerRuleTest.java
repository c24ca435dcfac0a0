package io.pointsman.examples.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.pointsman.PointsmanException;
import io.pointsman.Stages;
import io.pointsman.Status;
import org.junit.jupiter.api.Test;

/** The error answer of an undecodable body is chosen by the refusal's rule, not its wording. */
class ErrorAnswerRuleTest {

  @Test
  void theInvalidJsonRuleDecidesTheInvalidJsonCode() {
    PointsmanException e = PointsmanException.denied(Status.BAD_REQUEST, Stages.REQUEST,
        PointsmanException.INVALID_JSON_RULE, "the body is not a JSON document");
    ErrorAnswer a = ErrorAnswer.of(e, "req-1");
    assertThat(a.status()).isEqualTo(400);
    assertThat(a.code()).isEqualTo("invalid_json");
    assertThat(a.headers()).containsEntry("x-pointsman-rule", "request.invalid_json");
  }

  @Test
  void aRequestRefusalWordedLikeInvalidJsonWithoutTheRuleIsNotInvalidJson() {
    PointsmanException e = PointsmanException.badRequest(Stages.REQUEST,
        "invalid JSON-schema in response_format");
    assertThat(ErrorAnswer.of(e, "req-2").code()).isNotEqualTo("invalid_json");
  }
}
