package io.pointsman.provider;

import static io.pointsman.provider.Fixtures.call;
import static io.pointsman.provider.Fixtures.request;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.pointsman.Status;
import io.pointsman.provider.testing.FixtureResponse;
import io.pointsman.provider.testing.HttpFixtureServer;
import io.pointsman.spi.Provider;
import io.pointsman.spi.ProviderCall;
import io.pointsman.spi.ProviderException;
import io.pointsman.spi.UpstreamError;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A provider's error answer keeps its type, code, param and retry headers, and its message
 * loses every credential and every run of the prompt it echoes.
 */
class UpstreamErrorScrubTest {
  private static final String SECRET = "sk-proj-Upstream9Secret0Key1Value2";
  private static final String PROMPT = "the launch code of project bluebird is 7781";
  private final HttpFixtureServer server = HttpFixtureServer.start();

  @AfterEach
  void stop() {
    server.close();
  }

  private Provider openAi() {
    return OpenAiProvider.builder().baseUri(server.uri()).credential(Credential.of(SECRET))
        .timeouts(Fixtures.SHORT).build();
  }

  private static ProviderCall promptCall() {
    return call("p", "m", request("{\"model\":\"m\",\"messages\":[{\"role\":\"user\","
        + "\"content\":\"" + PROMPT + "\"}]}"));
  }

  @Test
  void anEchoedKeyAndPromptAreScrubbedAndTypeCodeParamAndRetryHeadersAreKept() {
    server.enqueue(FixtureResponse.json(400, "{\"error\":{\"message\":\"Invalid value for"
        + " 'content': '" + PROMPT + "' (key " + SECRET + ", Authorization: Bearer "
        + SECRET + ", other sk-abc***xyz)\",\"type\":\"invalid_request_error\","
        + "\"code\":\"invalid_value\",\"param\":\"messages[0].content\"}}")
        .header("x-ratelimit-remaining-requests", "41").header("retry-after", "2")
        .header("set-cookie", "session=abc"));

    ProviderException e = catchThrowableOfType(ProviderException.class,
        () -> openAi().send(promptCall()));

    assertThat(e.getMessage()).doesNotContain(SECRET).doesNotContain("Upstream9Secret")
        .doesNotContain("launch code").doesNotContain("bluebird").doesNotContain("sk-abc")
        .contains("Invalid value for").contains(ErrorScrubber.PROMPT)
        .contains(ErrorScrubber.CREDENTIAL);
    UpstreamError up = e.upstream();
    assertThat(up.type()).isEqualTo("invalid_request_error");
    assertThat(up.code()).isEqualTo("invalid_value");
    assertThat(up.param()).isEqualTo("messages[0].content");
    assertThat(up.headers()).containsEntry("x-ratelimit-remaining-requests", "41")
        .containsEntry("retry-after", "2").doesNotContainKey("set-cookie");
    assertThat(e.status()).isEqualTo(Status.BAD_REQUEST);
  }

  @Test
  void aQuotaExhaustedAnswerIsAPaymentRefusalNotRetriedOnTheSameDeployment() {
    server.enqueue(FixtureResponse.json(429, "{\"error\":{\"message\":\"You exceeded your"
        + " current quota\",\"type\":\"insufficient_quota\",\"code\":\"insufficient_quota\","
        + "\"param\":null}}"));

    ProviderException e = catchThrowableOfType(ProviderException.class,
        () -> openAi().send(promptCall()));

    assertThat(e.status()).isEqualTo(Status.PAYMENT_REQUIRED);
    assertThat(e.rule()).isEqualTo(ProviderException.QUOTA_EXHAUSTED_RULE);
    assertThat(e.retryable()).as("another deployment may have quota").isTrue();
    assertThat(e.retryableOnSameDeployment()).isFalse();
    assertThat(e.billing()).isEqualTo(ProviderException.Billing.NOT_BILLED);
  }

  @Test
  void aRateLimitKeepsItsRetryAfterAndRateLimitHeaders() {
    server.enqueue(FixtureResponse.json(429, "{\"error\":{\"message\":\"Rate limit reached"
        + "\",\"type\":\"requests\",\"code\":\"rate_limit_exceeded\",\"param\":null}}")
        .header("retry-after-ms", "1500").header("x-ratelimit-reset-requests", "1.5s"));

    ProviderException e = catchThrowableOfType(ProviderException.class,
        () -> openAi().send(promptCall()));

    assertThat(e.status()).isEqualTo(Status.TOO_MANY_REQUESTS);
    assertThat(e.retryAfter()).isEqualTo(Duration.ofMillis(1500));
    assertThat(e.retryableOnSameDeployment()).isTrue();
    assertThat(e.upstream().code()).isEqualTo("rate_limit_exceeded");
    assertThat(e.upstream().headers()).containsEntry("retry-after-ms", "1500")
        .containsEntry("x-ratelimit-reset-requests", "1.5s");
  }

  @Test
  void shortCommonPhrasesAreNotTakenForThePrompt() {
    assertThat(ErrorScrubber.of(null, null).scrub("plain message")).isEqualTo("plain message");
    assertThat(ErrorScrubber.of("sk-zzzz", request("{\"model\":\"m\",\"messages\":[{\"role\":"
        + "\"user\",\"content\":\"the model\"}]}")).scrub("the model is overloaded"))
        .as("a run shorter than " + ErrorScrubber.PROMPT_RUN + " characters stays")
        .isEqualTo("the model is overloaded");
  }

  @Test
  void aKeyGluedToANonAsciiLetterIsScrubbedOnEveryJdk() {
    // java.util.regex's \b counts non-ASCII letters as word characters up to JDK 18 and not
    // from JDK 19 on, so a boundary written as \b scrubbed this key on 21 and 25 but not on 17.
    ErrorScrubber shapes = ErrorScrubber.shapesOnly();
    assertThat(shapes.scrub("clé:sk-live1234567890abcd refusée"))
        .isEqualTo("clé:" + ErrorScrubber.CREDENTIAL + " refusée");
    assertThat(shapes.scrub("éBearer abcdef123456")).isEqualTo("é" + ErrorScrubber.CREDENTIAL);
    assertThat(shapes.scrub("mask-abcdef and ask-abcdef stay"))
        .isEqualTo("mask-abcdef and ask-abcdef stay");
  }
}
