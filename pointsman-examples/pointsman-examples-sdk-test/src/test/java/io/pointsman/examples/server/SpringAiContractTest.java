package io.pointsman.examples.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.pointsman.auth.VirtualKeys;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.ai.chat.model.ChatResponse;
import org.springframework.ai.chat.prompt.Prompt;
import org.springframework.ai.openai.OpenAiChatModel;
import org.springframework.ai.openai.OpenAiChatOptions;
import org.springframework.ai.openai.api.OpenAiApi;
import org.springframework.ai.retry.NonTransientAiException;
import org.springframework.ai.retry.RetryUtils;
import org.springframework.ai.retry.TransientAiException;
import org.springframework.http.client.JdkClientHttpRequestFactory;
import org.springframework.retry.support.RetryTemplate;
import org.springframework.web.client.RestClient;

/**
 * Spring AI's OpenAI client (1.1, the plain library) against the facade: its default retry
 * template for the refusals (4xx are never retried), its short retry template for server
 * errors (counting the upstream calls), and a stream failure raised by the returned
 * {@code Flux}.
 *
 * <p>The blocking calls go through Spring's {@code RestClient} on the JDK client, which is what
 * a plain Spring AI application gets: with Apache HttpClient 5 on the class path (this module
 * has it, through the facade's upstream transport) {@code RestClient} picks that client
 * instead, whose default retry strategy sends a 429 or 503 a second time on its own.
 */
class SpringAiContractTest {
  @TempDir
  Path dir;

  private ContractRig rig;

  @AfterEach
  void tearDown() {
    if (rig != null) {
      rig.close();
    }
  }

  private OpenAiChatModel model(String key, String model, int maxTokens, RetryTemplate retry) {
    // Spring AI appends /v1/chat/completions to its base URL.
    OpenAiApi api = api(key);
    return OpenAiChatModel.builder().openAiApi(api).retryTemplate(retry)
        .defaultOptions(OpenAiChatOptions.builder().model(model).maxTokens(maxTokens).build())
        .build();
  }

  private OpenAiApi api(String key) {
    return OpenAiApi.builder().baseUrl(rig.baseUrl().replaceAll("/v1$", "")).apiKey(key)
        .restClientBuilder(RestClient.builder().requestFactory(new JdkClientHttpRequestFactory()))
        .build();
  }

  private OpenAiChatModel model(String key, String model) {
    return model(key, model, 10, RetryUtils.DEFAULT_RETRY_TEMPLATE);
  }

  @Test
  void everyRefusalIsANonTransientExceptionNamingOpenAisCodeAndIsNotRetried() throws Exception {
    rig = new ContractRig(dir);
    OpenAiApi api = api(rig.key);
    Throwable bad = catchThrowable(() -> OpenAiChatModel.builder().openAiApi(api)
        .defaultOptions(OpenAiChatOptions.builder().model(ContractRig.MODEL).temperature(5.0)
            .build()).build().call(new Prompt("hello")));
    assertThat(bad).isInstanceOf(NonTransientAiException.class);
    assertThat(bad.getMessage()).contains("400").contains("invalid_value")
        .contains("temperature");

    Throwable auth = catchThrowable(() -> model(VirtualKeys.generate(), ContractRig.MODEL)
        .call(new Prompt("hello")));
    assertThat(auth).isInstanceOf(NonTransientAiException.class);
    assertThat(auth.getMessage()).contains("401").contains("invalid_api_key");

    Throwable denied = catchThrowable(() -> model(rig.limitedKey, ContractRig.VISION_MODEL)
        .call(new Prompt("hello")));
    assertThat(denied).isInstanceOf(NonTransientAiException.class);
    assertThat(denied.getMessage()).contains("403").contains("model_not_allowed");

    Throwable notFound = catchThrowable(() -> model(rig.key, "no-such-model")
        .call(new Prompt("hello")));
    assertThat(notFound).isInstanceOf(NonTransientAiException.class);
    assertThat(notFound.getMessage()).contains("404").contains("model_not_found");

    Throwable budget = catchThrowable(() -> model(rig.poorKey, ContractRig.MODEL, 1_000,
        RetryUtils.DEFAULT_RETRY_TEMPLATE).call(new Prompt("hello")));
    assertThat(budget).isInstanceOf(NonTransientAiException.class);
    assertThat(budget.getMessage()).contains("402").contains("insufficient_quota");
    assertThat(rig.facadeAnswers(402)).as("not retried").isEqualTo(1);
    assertThat(rig.facadeAnswers(401)).isEqualTo(1);
    assertThat(rig.facadeAnswers(400)).isEqualTo(1);
    assertThat(rig.upstreamCalls()).isZero();
  }

  @Test
  void anUpstreamRateLimitIsNonTransientForSpringAiSoTheGatewayAloneRetries() {
    rig = new ContractRig(dir);
    rig.upstreamAnswers(r -> ContractRig.upstreamError(429, "requests", "rate_limit_exceeded",
        "Rate limit reached").header("retry-after-ms", "100"));
    Throwable e = catchThrowable(() -> model(rig.key, ContractRig.MODEL)
        .call(new Prompt("hello")));
    assertThat(e).isInstanceOf(NonTransientAiException.class);
    assertThat(e.getMessage()).contains("429").contains("rate_limit_exceeded");
    assertThat(rig.upstreamCalls()).as("Spring AI treats 4xx as final: 2 gateway attempts")
        .isEqualTo(2);
  }

  @Test
  void anUpstreamServerErrorUnderTheShortRetryTemplateReachesTheUpstreamOncePerSpringAttempt() {
    rig = new ContractRig(dir, 1);
    rig.upstreamAnswers(r -> ContractRig.upstreamError(500, "server_error", null,
        "The server had an error"));
    Throwable e = catchThrowable(() -> model(rig.key, ContractRig.MODEL, 10,
        RetryUtils.SHORT_RETRY_TEMPLATE).call(new Prompt("hello")));
    assertThat(e).isInstanceOf(TransientAiException.class);
    assertThat(e.getMessage()).contains("502").contains("server_error");
    // The short template makes 10 attempts; one gateway attempt each, not two.
    assertThat(rig.upstreamCalls()).isEqualTo(10);
  }

  @Test
  void aStreamThatFailsMidWayIsAnErrorOfTheFlux() {
    rig = new ContractRig(dir);
    rig.upstreamAnswers(r -> ContractRig.failingStream());
    List<ChatResponse> seen = new ArrayList<>();
    Throwable e = catchThrowable(() -> model(rig.key, ContractRig.MODEL, 50,
        RetryUtils.DEFAULT_RETRY_TEMPLATE).stream(new Prompt("hello"))
        .doOnNext(seen::add).blockLast(Duration.ofSeconds(30)));
    assertThat(e).as("Spring AI raised after %s chunks", seen.size()).isNotNull();
    StringBuilder text = new StringBuilder();
    for (ChatResponse r : seen) {
      if (r.getResult() != null && r.getResult().getOutput().getText() != null) {
        text.append(r.getResult().getOutput().getText());
      }
    }
    assertThat(text.toString()).isEqualTo("A pointsman ");
  }
}
