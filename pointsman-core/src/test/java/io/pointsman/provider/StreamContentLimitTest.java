package io.pointsman.provider;

import static io.pointsman.provider.Fixtures.call;
import static io.pointsman.provider.Fixtures.request;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.pointsman.Status;
import io.pointsman.provider.Fixtures.RecordingSink;
import io.pointsman.provider.testing.FixtureResponse;
import io.pointsman.provider.testing.HttpFixtureServer;
import io.pointsman.spi.ProviderCall;
import io.pointsman.spi.ProviderException;
import io.pointsman.spi.ProviderException.Billing;
import io.pointsman.spi.ProviderReply;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The limit on a stream's assembled content, with small limits, for both adapters: a stream
 * that fits completes, one that would go beyond is cut before the chunk that crosses the limit,
 * its connection closed, and the attempt fails as an unknown outcome that is not retried.
 */
class StreamContentLimitTest {
  /** More frames than any test reads: only a cut stream ends before them. */
  private static final long ENDLESS = 1_000_000;
  private final HttpFixtureServer server = HttpFixtureServer.start();

  @AfterEach
  void stop() {
    server.close();
  }

  private static ProviderCall streamCall() {
    return call("p", "m", request("{\"model\":\"m\",\"messages\":[{\"role\":\"user\","
        + "\"content\":\"hi\"}],\"stream\":true}"));
  }

  private static String openAiDelta(String json) {
    return "data: {\"id\":\"s\",\"object\":\"chat.completion.chunk\",\"created\":1,"
        + "\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":" + json
        + ",\"finish_reason\":null}]}\n\n";
  }

  /** The adapters' builders; {@link StreamContentLimitPulledTest} sends through the SPI. */
  OpenAiProvider.Builder openAiBuilder() {
    return OpenAiProvider.builder();
  }

  AnthropicProvider.Builder anthropicBuilder() {
    return AnthropicProvider.builder();
  }

  private OpenAiProvider openAi(int limit) {
    return openAiBuilder().baseUri(server.uri()).timeouts(Fixtures.SHORT)
        .maxStreamContent(limit).build();
  }

  private AnthropicProvider anthropic(int limit) {
    return anthropicBuilder().baseUri(server.uri()).timeouts(Fixtures.SHORT)
        .maxStreamContent(limit).build();
  }

  private static void assertCut(ProviderException e) {
    assertThat(e).isNotNull();
    assertThat(ProviderErrorKind.of(e)).isEqualTo(ProviderErrorKind.STREAM_TOO_LARGE);
    assertThat(e.rule()).isEqualTo("stream.too_large");
    assertThat(e.billing()).isEqualTo(Billing.UNKNOWN);
    assertThat(e.retryable()).isFalse();
    assertThat(e.status()).isEqualTo(Status.BAD_GATEWAY);
  }

  @Test
  void anOpenAiStreamExactlyAtTheLimitCompletesAndOneCharacterMoreIsCutAndClosed()
      throws Exception {
    // The first choice counts 64 on top of its text: 64 + 10 x 10 characters.
    int limit = StreamAssembler.ENTRY_ALLOWANCE + 100;
    byte[] ten = openAiDelta("{\"content\":\"aaaaaaaaaa\"}").getBytes(StandardCharsets.UTF_8);
    byte[] end = ("data: {\"id\":\"s\",\"object\":\"chat.completion.chunk\",\"created\":1,"
        + "\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}"
        + "\n\ndata: [DONE]\n\n").getBytes(StandardCharsets.UTF_8);
    server.enqueue(FixtureResponse.sse(11, i -> i < 10 ? ten : end));
    // One adapter, so the second stream reuses the first one's connection: the only one open.
    OpenAiProvider provider = openAi(limit);
    RecordingSink fits = new RecordingSink();
    ProviderReply reply = provider.stream(streamCall(), fits);
    assertThat(reply.response().firstText()).hasSize(100);
    assertThat(fits.text()).hasSize(100);

    byte[] one = openAiDelta("{\"content\":\"b\"}").getBytes(StandardCharsets.UTF_8);
    AtomicLong written = new AtomicLong();
    server.enqueue(FixtureResponse.sse(ENDLESS, i -> {
      written.incrementAndGet();
      return i < 10 ? ten : one;
    }));
    RecordingSink over = new RecordingSink();
    ProviderException e = Fixtures.failureOf(() -> provider.stream(streamCall(), over));
    assertCut(e);
    assertThat(over.text()).as("nothing beyond the limit reached the caller").hasSize(100);
    assertThat(server.awaitNoOpenConnections(Duration.ofSeconds(30)))
        .as("the cut stream's connection was closed").isTrue();
    assertThat(written.get()).isLessThan(ENDLESS);
  }

  @Test
  void toolCallArgumentsCountTowardTheLimit() throws Exception {
    // 64 for the choice, 64 for the tool call, its id, type and name (15), then arguments.
    byte[] start = openAiDelta("{\"tool_calls\":[{\"index\":0,\"id\":\"call_1\",\"type\":"
        + "\"function\",\"function\":{\"name\":\"f\",\"arguments\":\"\"}}]}")
        .getBytes(StandardCharsets.UTF_8);
    byte[] args = openAiDelta("{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":"
        + "\"0123456789\"}}]}").getBytes(StandardCharsets.UTF_8);
    server.enqueue(FixtureResponse.sse(ENDLESS, i -> i == 0 ? start : args));
    RecordingSink sink = new RecordingSink();
    int limit = 2 * StreamAssembler.ENTRY_ALLOWANCE + 15 + 1000;
    ProviderException e = Fixtures.failureOf(() -> openAi(limit).stream(streamCall(), sink));
    assertCut(e);
    assertThat(sink.chunks).as("the start and 100 argument chunks of 10").hasSize(101);
    assertThat(server.awaitNoOpenConnections(Duration.ofSeconds(30))).isTrue();
  }

  @Test
  void anAnthropicStreamOverTheLimitIsCutBeforeTheCrossingDeltaAndClosed() throws Exception {
    byte[] start = ("event: message_start\ndata: {\"type\":\"message_start\",\"message\":"
        + "{\"id\":\"m\",\"usage\":{\"input_tokens\":5,\"output_tokens\":1}}}\n\n")
        .getBytes(StandardCharsets.UTF_8);
    byte[] delta = ("event: content_block_delta\ndata: {\"type\":\"content_block_delta\","
        + "\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"0123456789\"}}\n\n")
        .getBytes(StandardCharsets.UTF_8);
    byte[] ping = "event: ping\ndata: {\"type\":\"ping\"}\n\n".getBytes(StandardCharsets.UTF_8);
    server.enqueue(FixtureResponse.sse(ENDLESS, i -> i == 0 ? start : i % 2 == 0 ? ping
        : delta));
    RecordingSink sink = new RecordingSink();
    ProviderException e = Fixtures.failureOf(() -> anthropic(
        StreamAssembler.ENTRY_ALLOWANCE + 105).stream(streamCall(), sink));
    assertCut(e);
    assertThat(sink.text()).isEqualTo("0123456789".repeat(10));
    assertThat(server.awaitNoOpenConnections(Duration.ofSeconds(30))).isTrue();
  }

  @Test
  void theLimitMustBePositive() {
    assertThatThrownBy(() -> OpenAiProvider.builder().maxStreamContent(0))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> AnthropicProvider.builder().maxStreamContent(0))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void manyEmptyChoicesCountTowardTheLimitToo() {
    StreamAssembler assembler = new StreamAssembler(10 * StreamAssembler.ENTRY_ALLOWANCE);
    int added = 0;
    while (assembler.add(io.pointsman.model.Json.readChunk(openAiDelta("{}")
        .substring("data: ".length()).replace("\"index\":0", "\"index\":" + added)
        .getBytes(StandardCharsets.UTF_8)))) {
      added++;
    }
    assertThat(added).isEqualTo(10);
    assertThat(assembler.size()).isEqualTo(10 * StreamAssembler.ENTRY_ALLOWANCE);
    assertThat(assembler.response("m", 1).choices()).hasSize(10);
  }
}
