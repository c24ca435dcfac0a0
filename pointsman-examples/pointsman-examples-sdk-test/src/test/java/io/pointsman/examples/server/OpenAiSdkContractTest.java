package io.pointsman.examples.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.openai.client.OpenAIClient;
import com.openai.client.okhttp.OpenAIOkHttpClient;
import com.openai.core.JsonValue;
import com.openai.core.http.StreamResponse;
import com.openai.errors.BadRequestException;
import com.openai.errors.InternalServerException;
import com.openai.errors.NotFoundException;
import com.openai.errors.OpenAIServiceException;
import com.openai.errors.PermissionDeniedException;
import com.openai.errors.RateLimitException;
import com.openai.errors.UnauthorizedException;
import com.openai.errors.UnexpectedStatusCodeException;
import com.openai.models.chat.completions.ChatCompletionChunk;
import com.openai.models.chat.completions.ChatCompletionCreateParams;
import com.openai.models.chat.completions.ChatCompletionStreamOptions;
import com.openai.models.completions.CompletionUsage;
import io.pointsman.auth.VirtualKeys;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The official OpenAI Java SDK, with its default retries (2), against the facade in front of
 * an upstream fixture: the SDK's exception class and fields for each status, how many calls
 * reach the facade and the upstream, a stream's cost read from the usage chunk (its {@code _allProperties()}; {@code _additionalProperties()} is deprecated), and a stream
 * failure raised as an error.
 */
class OpenAiSdkContractTest {
  @TempDir
  Path dir;

  private ContractRig rig;
  private final List<OpenAIClient> clients = new ArrayList<>();

  @AfterEach
  void tearDown() {
    clients.forEach(OpenAIClient::close);
    if (rig != null) {
      rig.close();
    }
  }

  private ContractRig rig(int maxAttempts) {
    rig = new ContractRig(dir, maxAttempts);
    return rig;
  }

  /** A client with the SDK's default retry settings. */
  private OpenAIClient client(String key) {
    OpenAIClient c = OpenAIOkHttpClient.builder().baseUrl(rig.baseUrl()).apiKey(key).build();
    clients.add(c);
    return c;
  }

  private static ChatCompletionCreateParams params(String model, long maxTokens) {
    return ChatCompletionCreateParams.builder().model(model).maxCompletionTokens(maxTokens)
        .addUserMessage("hello").build();
  }

  @Test
  void eachRefusalIsTheSdksExceptionForItsStatusWithOpenAisTypeCodeAndParam()
      throws Exception {
    rig(0);
    BadRequestException bad = catchThrowableOfType(BadRequestException.class,
        () -> client(rig.key).chat().completions().create(ChatCompletionCreateParams.builder()
            .model(ContractRig.MODEL).temperature(5.0).addUserMessage("hi").build()));
    assertThat(bad.type()).hasValue("invalid_request_error");
    assertThat(bad.code()).hasValue("invalid_value");
    assertThat(bad.param()).hasValue("temperature");
    assertThat(bad.headers().values("x-request-id")).hasSize(1);

    UnauthorizedException unauthorized = catchThrowableOfType(UnauthorizedException.class,
        () -> client(VirtualKeys.generate()).chat().completions()
            .create(params(ContractRig.MODEL, 10)));
    assertThat(unauthorized.type()).hasValue("authentication_error");
    assertThat(unauthorized.code()).hasValue("invalid_api_key");

    PermissionDeniedException denied = catchThrowableOfType(PermissionDeniedException.class,
        () -> client(rig.limitedKey).chat().completions()
            .create(params(ContractRig.VISION_MODEL, 10)));
    assertThat(denied.code()).hasValue("model_not_allowed");
    assertThat(denied.param()).hasValue("model");

    NotFoundException notFound = catchThrowableOfType(NotFoundException.class,
        () -> client(rig.key).chat().completions().create(params("no-such-model", 10)));
    assertThat(notFound.code()).hasValue("model_not_found");

    // A budget refusal is 402, which the SDK does not retry: one call, one answer.
    UnexpectedStatusCodeException budget = catchThrowableOfType(
        UnexpectedStatusCodeException.class,
        () -> client(rig.poorKey).chat().completions().create(params(ContractRig.MODEL, 1_000)));
    assertThat(budget.statusCode()).isEqualTo(402);
    assertThat(budget.type()).hasValue("insufficient_quota");
    assertThat(budget.code()).hasValue("insufficient_quota");
    assertThat(rig.facadeAnswers(402)).as("the SDK did not retry the budget refusal")
        .isEqualTo(1);
    assertThat(rig.facadeAnswers(401)).as("nor the refused key").isEqualTo(1);
    assertThat(rig.upstreamCalls()).isZero();
  }

  @Test
  void anExhaustedUpstreamQuotaReachesTheUpstreamOnceWithTheSdksDefaultRetries() {
    rig(0);
    rig.upstreamAnswers(r -> ContractRig.upstreamError(429, "insufficient_quota",
        "insufficient_quota", "You exceeded your current quota"));
    OpenAIServiceException e = catchThrowableOfType(OpenAIServiceException.class,
        () -> client(rig.key).chat().completions().create(params(ContractRig.MODEL, 10)));
    assertThat(e).isInstanceOf(UnexpectedStatusCodeException.class);
    assertThat(e.statusCode()).isEqualTo(402);
    assertThat(e.code()).hasValue("insufficient_quota");
    assertThat(rig.upstreamCalls()).isEqualTo(1);
  }

  @Test
  void anUpstreamRateLimitIsARateLimitExceptionAndEveryRetryWaitsForItsRetryAfter() {
    rig(0);
    List<Long> at = rig.upstreamAnswersTimed(r -> ContractRig.upstreamError(429, "requests",
        "rate_limit_exceeded", "Rate limit reached").header("retry-after", "1")
        .header("x-ratelimit-remaining-requests", "0"));

    RateLimitException e = catchThrowableOfType(RateLimitException.class,
        () -> client(rig.key).chat().completions().create(params(ContractRig.MODEL, 10)));

    assertThat(e.code()).hasValue("rate_limit_exceeded");
    assertThat(e.headers().values("retry-after")).containsExactly("1");
    assertThat(e.headers().values("x-ratelimit-remaining-requests")).containsExactly("0");
    // 3 SDK attempts (2 retries), each 2 gateway attempts: 6 upstream calls, none sooner than
    // the second the upstream asked for after the one before (lower bounds only).
    assertThat(at).hasSize(6);
    for (int i = 1; i < at.size(); i++) {
      assertThat(Duration.ofNanos(at.get(i) - at.get(i - 1)))
          .isGreaterThanOrEqualTo(Duration.ofMillis(950));
    }
  }

  @Test
  void anUpstreamServerErrorIsAnInternalServerExceptionAndOneGatewayAttemptDoesNotMultiply() {
    rig(1);
    rig.upstreamAnswers(r -> ContractRig.upstreamError(500, "server_error", null,
        "The server had an error"));
    InternalServerException e = catchThrowableOfType(InternalServerException.class,
        () -> client(rig.key).chat().completions().create(params(ContractRig.MODEL, 10)));
    assertThat(e.statusCode()).isEqualTo(502);
    assertThat(e.type()).hasValue("server_error");
    assertThat(e.headers().values("x-pointsman-upstream-status")).containsExactly("500");
    assertThat(rig.upstreamCalls()).as("3 SDK attempts x 1 gateway attempt").isEqualTo(3);
  }

  @Test
  void theStreamsCostIsReadFromTheUsageChunksProperties() {
    rig(0);
    List<CompletionUsage> usage = new ArrayList<>();
    try (StreamResponse<ChatCompletionChunk> s = client(rig.key).chat().completions()
        .createStreaming(ChatCompletionCreateParams.builder().model(ContractRig.MODEL)
            .maxCompletionTokens(50).addUserMessage("hi")
            .streamOptions(ChatCompletionStreamOptions.builder().includeUsage(true).build())
            .build())) {
      s.stream().forEach(c -> c.usage().ifPresent(usage::add));
    }
    assertThat(usage).hasSize(1);
    Map<String, JsonValue> extra = usage.get(0)._allProperties();
    long micros = extra.get("cost_micros").convert(Long.class);
    assertThat(micros).isPositive();
    assertThat(extra.get("cost_estimated").convert(Boolean.class)).isFalse();
    assertThat(extra.get("cost").convert(java.math.BigDecimal.class))
        .isEqualByComparingTo(java.math.BigDecimal.valueOf(micros, 6));
  }

  @Test
  void aStreamThatFailsMidWayIsRaisedByTheSdk() {
    rig(0);
    rig.upstreamAnswers(r -> ContractRig.failingStream());
    StringBuilder text = new StringBuilder();
    Throwable e = catchThrowable(() -> {
      try (StreamResponse<ChatCompletionChunk> s = client(rig.key).chat().completions()
          .createStreaming(params(ContractRig.MODEL, 50))) {
        s.stream().forEach(c -> c.choices().forEach(ch -> ch.delta().content()
            .ifPresent(text::append)));
      }
    });
    assertThat(e).as("the SDK raised; it read %s", text).isNotNull();
    assertThat(text.toString()).isEqualTo("A pointsman ");
    assertThat(rig.upstreamCalls()).as("a stream that delivered output is not retried")
        .isEqualTo(1);
  }
}
