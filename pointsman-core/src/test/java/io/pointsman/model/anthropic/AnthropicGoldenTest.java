package io.pointsman.model.anthropic;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.pointsman.model.ChatChunk;
import io.pointsman.model.ChatRequest;
import io.pointsman.model.ChatResponse;
import io.pointsman.model.Json;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Golden translation tests, from the committed fixtures under {@code src/test/resources/anthropic}:
 * Messages requests to the gateway's request ({@code requests/NAME.json} to
 * {@code NAME.expected.json}), requests that must be refused ({@code refused/NAME.json} to the
 * status, rule and Anthropic error body in {@code NAME.error.json}), gateway responses to
 * Messages responses ({@code responses/NAME.json} to {@code NAME.expected.json}, or an error
 * for {@code refused-*}), and chunk sequences to event sequences ({@code streams/NAME.chunks.jsonl}
 * to {@code NAME.events.jsonl}, or an error for {@code refused-*}).
 *
 * <p>With {@code -Danthropic.golden.write=true} a missing expected file is written from the
 * translation (to be read and judged before it is committed); without it a missing file fails.
 */
class AnthropicGoldenTest {
  private static final Path ROOT = root();
  private static final boolean WRITE = Boolean.getBoolean("anthropic.golden.write");

  private static Path root() {
    try {
      return Path.of(AnthropicGoldenTest.class.getResource("/anthropic").toURI());
    } catch (URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }

  static Stream<String> requests() throws IOException {
    return inputs("requests", ".json");
  }

  static Stream<String> refusedRequests() throws IOException {
    return inputs("refused", ".json");
  }

  static Stream<String> responses() throws IOException {
    return inputs("responses", ".json");
  }

  static Stream<String> streams() throws IOException {
    return inputs("streams", ".chunks.jsonl");
  }

  private static Stream<String> inputs(String dir, String suffix) throws IOException {
    try (Stream<Path> files = Files.list(ROOT.resolve(dir))) {
      List<String> names = files.map(p -> p.getFileName().toString())
          .filter(n -> n.endsWith(suffix) && !n.endsWith(".expected.json")
              && !n.endsWith(".error.json"))
          .map(n -> n.substring(0, n.length() - suffix.length())).sorted().toList();
      assertThat(names).as("fixtures in %s", dir).isNotEmpty();
      return names.stream();
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("requests")
  void aMessagesRequestTranslatesToTheExpectedGatewayRequest(String name) throws IOException {
    MessagesRequest in = AnthropicMessages.readRequest(read("requests/" + name + ".json"));
    ChatRequest out = AnthropicMessages.toChatRequest(in);
    expect("requests/" + name + ".expected.json", Json.mapper().valueToTree(out));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("refusedRequests")
  void aRequestTheGatewayCannotCarryIsRefusedWithAnthropicsErrorShape(String name)
      throws IOException {
    MessagesRequest in = AnthropicMessages.readRequest(read("refused/" + name + ".json"));
    AnthropicException e = catchThrowableOfType(AnthropicException.class,
        () -> AnthropicMessages.toChatRequest(in));
    assertThat(e).as("refused").isNotNull();
    expect("refused/" + name + ".error.json", errorJson(e));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("responses")
  void aGatewayResponseTranslatesToTheExpectedMessagesResponse(String name)
      throws IOException {
    ChatResponse in = Json.readResponse(read("responses/" + name + ".json"));
    if (name.startsWith("refused-")) {
      AnthropicException e = catchThrowableOfType(AnthropicException.class,
          () -> AnthropicMessages.fromChatResponse(in));
      assertThat(e).as("refused").isNotNull();
      expect("responses/" + name + ".error.json", errorJson(e));
      return;
    }
    expect("responses/" + name + ".expected.json",
        Json.mapper().valueToTree(AnthropicMessages.fromChatResponse(in)));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("streams")
  void aChunkSequenceTranslatesToTheExpectedEventSequence(String name) throws IOException {
    List<ChatChunk> chunks = new ArrayList<>();
    for (String line : new String(read("streams/" + name + ".chunks.jsonl"),
        StandardCharsets.UTF_8).split("\n")) {
      if (!line.isBlank()) {
        chunks.add(Json.readChunk(line.getBytes(StandardCharsets.UTF_8)));
      }
    }
    AnthropicStream stream = new AnthropicStream("requested-model");
    if (name.startsWith("refused-")) {
      AnthropicException e = catchThrowableOfType(AnthropicException.class, () -> {
        for (ChatChunk c : chunks) {
          stream.onChunk(c);
        }
      });
      assertThat(e).as("refused").isNotNull();
      expect("streams/" + name + ".error.json", errorJson(e));
      return;
    }
    List<StreamEvent> events = new ArrayList<>();
    for (ChatChunk c : chunks) {
      events.addAll(stream.onChunk(c));
    }
    events.addAll(stream.finish(null));
    StringBuilder lines = new StringBuilder();
    for (StreamEvent e : events) {
      assertThat(e.data().path("type").asText()).isEqualTo(e.event());
      ObjectNode line = Json.mapper().createObjectNode().put("event", e.event());
      line.set("data", e.data());
      lines.append(Json.write(line)).append('\n');
    }
    Path expected = ROOT.resolve("streams/" + name + ".events.jsonl");
    if (!Files.exists(expected) && WRITE) {
      writeGolden(expected, lines.toString());
    }
    List<JsonNode> want = new ArrayList<>();
    for (String line : Files.readString(expected).split("\n")) {
      if (!line.isBlank()) {
        want.add(Json.mapper().readTree(line));
      }
    }
    List<JsonNode> got = new ArrayList<>();
    for (String line : lines.toString().split("\n")) {
      got.add(Json.mapper().readTree(line));
    }
    assertThat(got).containsExactlyElementsOf(want);
  }

  @Test
  void theSameStreamAsOneResponseSaysWhatTheEventsSay() throws IOException {
    // The event sequence's closing usage is the gateway usage's Messages form, as for a plain
    // response: the two translations share it.
    ChatChunk usageChunk = Json.readChunk(("{\"id\":\"c\",\"object\":\"chat.completion.chunk\","
        + "\"created\":1,\"model\":\"m\",\"choices\":[],\"usage\":{\"prompt_tokens\":30,"
        + "\"completion_tokens\":4,\"total_tokens\":34,\"prompt_tokens_details\":{"
        + "\"cached_tokens\":10,\"cache_creation_tokens\":5}}}").getBytes(StandardCharsets.UTF_8));
    AnthropicStream stream = new AnthropicStream("m");
    stream.onChunk(usageChunk);
    List<StreamEvent> end = stream.finish(null);
    JsonNode usage = end.get(end.size() - 2).data().get("usage");
    assertThat(usage).isEqualTo(Json.mapper().valueToTree(
        AnthropicMessages.messagesUsage(usageChunk.usage())));
    assertThat(usage.get("input_tokens").asLong()).isEqualTo(15);
    assertThat(usage.get("cache_read_input_tokens").asLong()).isEqualTo(10);
    assertThat(usage.get("cache_creation_input_tokens").asLong()).isEqualTo(5);
  }

  private static ObjectNode errorJson(AnthropicException e) throws IOException {
    ObjectNode out = Json.mapper().createObjectNode().put("status", e.status().httpStatus())
        .put("rule", e.rule());
    out.set("body", Json.mapper().readTree(e.body()));
    return out;
  }

  private static byte[] read(String path) throws IOException {
    return Files.readAllBytes(ROOT.resolve(path));
  }

  private static void expect(String path, JsonNode actual) throws IOException {
    Path file = ROOT.resolve(path);
    if (!Files.exists(file) && WRITE) {
      writeGolden(file, Json.mapper().writerWithDefaultPrettyPrinter()
          .writeValueAsString(actual) + "\n");
    }
    assertThat(Files.exists(file)).as("the expected file %s exists", path).isTrue();
    // Through text, so that numbers compare by value (a long and an int node differ).
    assertThat(Json.mapper().readTree(Json.write(actual))).as(path)
        .isEqualTo(Json.mapper().readTree(Files.readAllBytes(file)));
  }

  /** Writes a golden file into the source tree, and into the copy this run reads. */
  private static void writeGolden(Path target, String content) throws IOException {
    Path src = Path.of("src/test/resources/anthropic").resolve(ROOT.relativize(target)
        .toString());
    Files.createDirectories(src.getParent());
    Files.writeString(src, content);
    Files.writeString(target, content);
  }
}
