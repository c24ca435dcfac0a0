package io.pointsman.examples.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.langchain4j.exception.AuthenticationException;
import dev.langchain4j.exception.HttpException;
import dev.langchain4j.exception.InternalServerException;
import dev.langchain4j.exception.InvalidRequestException;
import dev.langchain4j.exception.ModelNotFoundException;
import dev.langchain4j.exception.RateLimitException;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.model.chat.response.StreamingChatResponseHandler;
import dev.langchain4j.model.openai.OpenAiChatModel;
import dev.langchain4j.model.openai.OpenAiStreamingChatModel;
import io.pointsman.auth.VirtualKeys;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * LangChain4j's OpenAI client (1.19), with its default retries (2 for a retriable exception),
 * against the facade: the exception class for each status, how many calls reach the facade and
 * the upstream, and a stream failure reported to {@code onError}.
 */
class LangChain4jContractTest {
  @TempDir
  Path dir;

  private ContractRig rig;

  @AfterEach
  void tearDown() {
    if (rig != null) {
      rig.close();
    }
  }

  private OpenAiChatModel model(String key, String model) {
    return OpenAiChatModel.builder().baseUrl(rig.baseUrl()).apiKey(key).modelName(model)
        .maxTokens(10).timeout(Duration.ofSeconds(30)).build();
  }

  private static int status(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof HttpException h) {
        return h.statusCode();
      }
    }
    return -1;
  }

  @Test
  void eachRefusalIsLangChain4jsExceptionForItsStatusAndABudgetRefusalIsNotRetried()
      throws Exception {
    rig = new ContractRig(dir);
    Throwable bad = catchThrowable(() -> OpenAiChatModel.builder().baseUrl(rig.baseUrl())
        .apiKey(rig.key).modelName(ContractRig.MODEL).temperature(5.0).build().chat("hello"));
    assertThat(bad).isInstanceOf(InvalidRequestException.class);
    assertThat(status(bad)).isEqualTo(400);
    assertThat(bad.getMessage()).contains("invalid_value").contains("temperature");

    Throwable auth = catchThrowable(() -> model(VirtualKeys.generate(), ContractRig.MODEL)
        .chat("hello"));
    assertThat(auth).isInstanceOf(AuthenticationException.class);
    assertThat(status(auth)).isEqualTo(401);
    assertThat(auth.getMessage()).contains("invalid_api_key");

    Throwable denied = catchThrowable(() -> model(rig.limitedKey, ContractRig.VISION_MODEL)
        .chat("hello"));
    assertThat(denied).isInstanceOf(AuthenticationException.class);
    assertThat(status(denied)).isEqualTo(403);

    Throwable notFound = catchThrowable(() -> model(rig.key, "no-such-model").chat("hello"));
    assertThat(notFound).isInstanceOf(ModelNotFoundException.class);
    assertThat(notFound.getMessage()).contains("model_not_found");

    Throwable budget = catchThrowable(() -> OpenAiChatModel.builder().baseUrl(rig.baseUrl())
        .apiKey(rig.poorKey).modelName(ContractRig.MODEL).maxTokens(1_000).build()
        .chat("hello"));
    assertThat(budget).isInstanceOf(InvalidRequestException.class);
    assertThat(status(budget)).isEqualTo(402);
    assertThat(budget.getMessage()).contains("insufficient_quota");
    assertThat(rig.facadeAnswers(402)).as("402 is not retried by LangChain4j").isEqualTo(1);
    assertThat(rig.facadeAnswers(401)).as("nor 401").isEqualTo(1);
    assertThat(rig.facadeAnswers(400)).as("nor 400").isEqualTo(1);
    assertThat(rig.upstreamCalls()).isZero();
  }

  @Test
  void anExhaustedUpstreamQuotaReachesTheUpstreamOnce() {
    rig = new ContractRig(dir);
    rig.upstreamAnswers(r -> ContractRig.upstreamError(429, "insufficient_quota",
        "insufficient_quota", "You exceeded your current quota"));
    Throwable e = catchThrowable(() -> model(rig.key, ContractRig.MODEL).chat("hello"));
    assertThat(e).isInstanceOf(InvalidRequestException.class);
    assertThat(status(e)).isEqualTo(402);
    assertThat(rig.upstreamCalls()).isEqualTo(1);
  }

  @Test
  void anUpstreamRateLimitIsARateLimitExceptionRetriedByLangChain4jAndByTheGateway() {
    rig = new ContractRig(dir);
    rig.upstreamAnswers(r -> ContractRig.upstreamError(429, "requests", "rate_limit_exceeded",
        "Rate limit reached").header("retry-after-ms", "100"));
    Throwable e = catchThrowable(() -> model(rig.key, ContractRig.MODEL).chat("hello"));
    assertThat(e).isInstanceOf(RateLimitException.class);
    assertThat(e.getMessage()).contains("rate_limit_exceeded");
    // LangChain4j ignores retry-after and x-should-retry: 3 attempts x 2 gateway attempts.
    assertThat(rig.upstreamCalls()).isEqualTo(6);
  }

  @Test
  void anUpstreamServerErrorIsAnInternalServerExceptionAndOneGatewayAttemptDoesNotMultiply() {
    rig = new ContractRig(dir, 1);
    rig.upstreamAnswers(r -> ContractRig.upstreamError(500, "server_error", null,
        "The server had an error"));
    Throwable e = catchThrowable(() -> model(rig.key, ContractRig.MODEL).chat("hello"));
    assertThat(e).isInstanceOf(InternalServerException.class);
    assertThat(status(e)).isEqualTo(502);
    assertThat(rig.upstreamCalls()).isEqualTo(3);
  }

  @Test
  void aStreamThatFailsMidWayReachesOnErrorNotOnCompleteResponse() throws Exception {
    rig = new ContractRig(dir);
    rig.upstreamAnswers(r -> ContractRig.failingStream());
    OpenAiStreamingChatModel model = OpenAiStreamingChatModel.builder().baseUrl(rig.baseUrl())
        .apiKey(rig.key).modelName(ContractRig.MODEL).maxTokens(50).build();
    CompletableFuture<Object> outcome = new CompletableFuture<>();
    StringBuilder text = new StringBuilder();
    model.chat("hello", new StreamingChatResponseHandler() {
      @Override
      public void onPartialResponse(String partial) {
        text.append(partial);
      }

      @Override
      public void onCompleteResponse(ChatResponse response) {
        outcome.complete(response);
      }

      @Override
      public void onError(Throwable error) {
        outcome.complete(error);
      }
    });
    Object result = outcome.get(30, TimeUnit.SECONDS);
    assertThat(result).as("LangChain4j reported an error, having read %s", text)
        .isInstanceOf(Throwable.class);
    // The response is aborted after the error event; text the client had not read yet when the
    // connection dropped may be lost, so what was read is a prefix of what was sent.
    assertThat("A pointsman ").startsWith(text.toString());
  }
}
