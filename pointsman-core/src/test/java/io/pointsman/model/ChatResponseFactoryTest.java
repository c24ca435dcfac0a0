package io.pointsman.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** A stage that answers itself gets a well-formed OpenAI-shaped response from one call. */
class ChatResponseFactoryTest {

  @Test
  void ofTextIsACompleteChatCompletion() throws Exception {
    ChatResponse r = ChatResponse.ofText("gpt-4o-mini", "Closed for maintenance.");
    JsonNode json = Json.mapper().readTree(Json.mapper().writeValueAsBytes(r));
    assertThat(json.get("id").asText()).startsWith("chatcmpl-");
    assertThat(json.get("object").asText()).isEqualTo("chat.completion");
    assertThat(json.get("created").asLong()).isPositive();
    assertThat(json.get("model").asText()).isEqualTo("gpt-4o-mini");
    assertThat(json.get("choices")).hasSize(1);
    JsonNode choice = json.get("choices").get(0);
    assertThat(choice.get("index").asInt()).isZero();
    assertThat(choice.get("finish_reason").asText()).isEqualTo("stop");
    assertThat(choice.get("message").get("role").asText()).isEqualTo("assistant");
    assertThat(choice.get("message").get("content").asText())
        .isEqualTo("Closed for maintenance.");
    assertThat(json.get("usage").get("prompt_tokens").asLong()).isZero();
    assertThat(json.get("usage").get("completion_tokens").asLong()).isZero();
    assertThat(json.get("usage").get("total_tokens").asLong()).isZero();
    // It reads back as a response a client of the OpenAI API would accept.
    ChatResponse back = Json.readResponse(Json.mapper().writeValueAsBytes(r));
    assertThat(back.firstText()).isEqualTo("Closed for maintenance.");
    assertThat(back.id()).isEqualTo(r.id());
  }

  @Test
  void eachResponseGetsItsOwnId() {
    assertThat(ChatResponse.ofText("m", "a").id()).isNotEqualTo(ChatResponse.ofText("m", "a").id());
  }

  @Test
  void theBuilderTakesAGivenIdTimeUsageAndFinishReason() {
    ChatResponse r = ChatResponse.builder().id("stage-1").model("m")
        .created(Instant.ofEpochSecond(1_700_000_000L)).text("partial")
        .finishReason("length").usage(Usage.of(3, 4)).systemFingerprint("fp").build();
    assertThat(r.id()).isEqualTo("stage-1");
    assertThat(r.created()).isEqualTo(1_700_000_000L);
    assertThat(r.choices()).singleElement().satisfies(c -> {
      assertThat(c.finishReason()).isEqualTo("length");
      assertThat(c.message().role()).isEqualTo(Role.ASSISTANT);
    });
    assertThat(r.usage().totalTokens()).isEqualTo(7);
    assertThat(r.systemFingerprint()).isEqualTo("fp");
    assertThat(r.object()).isEqualTo("chat.completion");
  }

  @Test
  void refusesAResponseWithoutModelOrMessage() {
    assertThatThrownBy(() -> ChatResponse.builder().text("x").build())
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("model");
    assertThatThrownBy(() -> ChatResponse.builder().model("m").build())
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("message");
    assertThatThrownBy(() -> ChatResponse.ofText(null, "x"))
        .isInstanceOf(NullPointerException.class).hasMessage("model");
    assertThatThrownBy(() -> ChatResponse.ofText("m", null))
        .isInstanceOf(NullPointerException.class).hasMessage("text");
  }
}
