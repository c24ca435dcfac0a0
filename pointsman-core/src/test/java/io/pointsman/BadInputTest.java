package io.pointsman;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.pointsman.limits.Scope;
import io.pointsman.model.ChatRequest;
import io.pointsman.model.Content;
import io.pointsman.model.ContentPart;
import io.pointsman.model.Json;
import io.pointsman.model.Message;
import io.pointsman.model.Role;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/** Hostile input at every public entry point gets a typed error and leaks nothing. */
class BadInputTest {
  private final TestRig rig = new TestRig();
  private final Gateway gateway = rig.builder().build();

  private PointsmanException call(ChatRequest request) {
    return catchThrowableOfType(PointsmanException.class,
        () -> gateway.chat(request, CallOptions.of(TestRig.KEY)));
  }

  private void assertNothingLeaked() {
    assertThat(rig.budgets.budget(Scope.team("t1")).heldMicros()).isZero();
    assertThat(rig.budgets.inflight(Scope.key("k1"))).isZero();
    assertThat(rig.fixture.sends()).isZero();
  }

  @Test
  void nullArgumentsAreNpesNamingTheParameter() {
    assertThatThrownBy(() -> gateway.chat(null, CallOptions.of(TestRig.KEY)))
        .isInstanceOf(NullPointerException.class).hasMessage("request");
    assertThatThrownBy(() -> gateway.chat(TestRig.request("x"), null))
        .isInstanceOf(NullPointerException.class).hasMessage("options");
    assertThatThrownBy(() -> gateway.stream(TestRig.request("x"), CallOptions.of(TestRig.KEY),
        null)).isInstanceOf(NullPointerException.class).hasMessage("observer");
    assertThatThrownBy(() -> CallOptions.of(null)).isInstanceOf(NullPointerException.class)
        .hasMessage("virtualKey");
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "short", "pm-key\r\nX-Injected: 1", "pm key with spaces",
      "pm-\u00e9\u00e8-unicode-key", "pm-\u0000\u0000\u0000\u0000\u0000"})
  void garbageKeysAre401(String key) {
    PointsmanException e = catchThrowableOfType(PointsmanException.class,
        () -> gateway.chat(TestRig.request("x"), CallOptions.of(key)));
    assertThat(e.status()).isEqualTo(Status.UNAUTHORIZED);
    assertThat(e.getMessage()).isEqualTo("malformed virtual key");
    assertThat(rig.accounting.records()).isEmpty();
  }

  @Test
  void aTenMegabytePromptIsRefusedWithoutLeakingAReservation() {
    char[] big = new char[10 * 1024 * 1024];
    Arrays.fill(big, 'a');
    PointsmanException e = call(TestRig.request(new String(big)));
    assertThat(e.status()).isEqualTo(Status.BAD_REQUEST);
    assertNothingLeaked();
  }

  static Stream<Arguments> badRequests() {
    ChatRequest base = TestRig.request("x");
    return Stream.of(
        Arguments.of("empty messages", base.withMessages(List.of()), "messages must not be"),
        Arguments.of("null message", base.withMessages(Arrays.asList((Message) null)),
            "message 0 is null"),
        Arguments.of("user without content", base.withMessages(List.of(
            new Message(Role.USER, null, null, null, null, null))), "has no content"),
        Arguments.of("blank model", base.withModel(" "), "model is required"),
        Arguments.of("temperature 9", base.toBuilder().temperature(9).build(), "temperature"),
        Arguments.of("max_tokens 0", base.toBuilder().maxTokens(0).build(), "max_tokens"),
        Arguments.of("empty parts", base.withMessages(List.of(new Message(Role.USER,
            Content.parts(List.of()), null, null, null, null))), "empty content array"),
        Arguments.of("untyped part", base.withMessages(List.of(new Message(Role.USER,
            Content.parts(List.of(new ContentPart(null, "x", null, null))), null, null, null,
            null))), "without a type"),
        Arguments.of("stream via chat", base.toBuilder().stream(true).build(),
            "call Gateway.stream"),
        Arguments.of("unpaired surrogate", TestRig.request("bad \ud800 text"),
            "unpaired surrogate"),
        Arguments.of("NUL byte", TestRig.request("nul \u0000 byte"), "NUL"),
        Arguments.of("orphan tool result", base.withMessages(List.of(Message.user("q"),
            new Message(Role.TOOL, Content.text("r"), null, null, "call_x", null))),
            "answers no earlier assistant tool call"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("badRequests")
  void malformedRequestsAreTyped400sNamingTheProblem(String name, ChatRequest request,
      String expected) {
    PointsmanException e = call(request);
    assertThat(e).as(name).isNotNull();
    assertThat(e.status()).isEqualTo(Status.BAD_REQUEST);
    assertThat(e.getMessage()).contains(expected);
    assertNothingLeaked();
    assertThat(rig.accounting.records()).singleElement()
        .satisfies(r -> assertThat(r.httpStatus()).isEqualTo(400));
  }

  @Test
  void decodedHostileJsonFlowsThroughTheGatewayAsA400() {
    ChatRequest decoded = Json.readRequest("{\"model\":\"gpt-test\",\"messages\":[{\"role\":"
        + "\"user\",\"content\":\"\\ud800 lone\"}]}");
    PointsmanException e = call(decoded);
    assertThat(e.status()).isEqualTo(Status.BAD_REQUEST);
    assertThat(e.rule()).isEqualTo("bounds.encoding");
  }

  @Test
  void callOptionsRefuseHeaderInjectionInRequestIdsAndTags() {
    assertThatThrownBy(() -> CallOptions.builder(TestRig.KEY).requestId("a\r\nb"))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> CallOptions.builder(TestRig.KEY).tag(""))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> CallOptions.builder(TestRig.KEY).timeout(java.time.Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void callOptionsNeverPrintTheKey() {
    assertThat(CallOptions.of(TestRig.KEY).toString()).doesNotContain(TestRig.KEY);
  }
}
