package io.pointsman.provider;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.pointsman.Clock;
import io.pointsman.model.ChatChunk;
import io.pointsman.model.ChatRequest;
import io.pointsman.model.ChatResponse;
import io.pointsman.model.Choice;
import io.pointsman.model.ChunkChoice;
import io.pointsman.model.ChunkDelta;
import io.pointsman.model.Content;
import io.pointsman.model.ContentPart;
import io.pointsman.model.FunctionCall;
import io.pointsman.model.Json;
import io.pointsman.model.Message;
import io.pointsman.model.PromptTokensDetails;
import io.pointsman.model.Role;
import io.pointsman.model.Tool;
import io.pointsman.model.ToolCall;
import io.pointsman.model.Usage;
import io.pointsman.model.anthropic.AnthropicMessages;
import io.pointsman.provider.http.HttpTransport;
import io.pointsman.provider.http.JdkHttpTransport;
import io.pointsman.spi.ChunkSink;
import io.pointsman.spi.Provider;
import io.pointsman.spi.ProviderCall;
import io.pointsman.spi.ProviderException;
import io.pointsman.spi.ProviderReply;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A {@link Provider} for the Anthropic Messages API, normalized to the OpenAI shape: system and
 * developer messages become the {@code system} prompt, content parts become content blocks
 * (images as base64 or URL sources), assistant tool calls become {@code tool_use} blocks and
 * tool messages {@code tool_result} blocks, tools and {@code tool_choice} are translated, and
 * {@code stop} becomes {@code stop_sequences}. Responses map stop reasons ({@code end_turn} and
 * {@code stop_sequence} to {@code stop}, {@code max_tokens} to {@code length}, {@code tool_use}
 * to {@code tool_calls}, {@code refusal} to {@code content_filter}) and usage: prompt tokens are
 * input plus cache-creation plus cache-read tokens, cached tokens are the cache reads, and the
 * cache-creation count is kept in the usage's {@code cache_creation_input_tokens} extra field.
 * Streams are translated event by event into OpenAI chunks; their usage comes from
 * {@code message_start} (input) and {@code message_delta} (output). Never logs a key or a
 * prompt.
 *
 * <pre>{@code
 * Provider anthropic = AnthropicProvider.builder()
 *     .credential(Credential.fromEnvironment("ANTHROPIC_API_KEY"))
 *     .build();
 * }</pre>
 *
 * <p>Thread-safe; failures are reported as {@link ProviderException} per the table in
 * {@code docs/providers.md}.
 */
public final class AnthropicProvider implements Provider {
  /** The API version header sent unless the builder sets another. */
  public static final String DEFAULT_VERSION = "2023-06-01";

  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  private final URI baseUri;
  /** The endpoint of every attempt, parsed once. */
  private final URI messages;
  private final String version;
  private final Credential credential;
  private final int defaultMaxTokens;
  private final Map<String, String> headers;
  private final ProviderTransport transport;
  /** The most content a stream's assembled response may hold, in characters. */
  private final int maxStreamContent;

  private AnthropicProvider(Builder b) {
    this.baseUri = b.baseUri;
    String base = b.baseUri.toString();
    this.messages = URI.create((base.endsWith("/") ? base.substring(0, base.length() - 1) : base)
        + "/v1/messages");
    this.version = b.version;
    this.credential = b.credential;
    this.defaultMaxTokens = b.defaultMaxTokens;
    this.headers = Map.copyOf(b.headers);
    this.transport = ProviderTransport.forAdapter(b.name, b.httpTransport, b.httpClient,
        b.timeouts, b.clock);
    this.maxStreamContent = b.maxStreamContent;
  }

  /**
   * Returns a new builder.
   *
   * @return a builder
   */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Translates an OpenAI-shaped request into the Messages API body this adapter sends.
   *
   * @param request the request, with the provider's model name
   * @param stream whether to ask for a stream
   * @return the JSON body
   * @throws IllegalArgumentException if a tool call's arguments are not a JSON object
   */
  public ObjectNode translateRequest(ChatRequest request, boolean stream) {
    ObjectNode body = NODES.objectNode();
    body.put("model", request.model());
    // The request's cap (from a gateway: the cap its hold assumed), never a default above it.
    Integer cap = request.outputTokenCap();
    body.put("max_tokens", cap != null ? cap : defaultMaxTokens);
    StringBuilder system = new StringBuilder();
    // A single system message of text parts (a Messages request's system blocks) keeps its
    // blocks; several system messages join into one string.
    Content.Parts systemParts = null;
    int systemMessages = 0;
    ArrayNode messages = body.putArray("messages");
    String lastRole = null;
    ArrayNode lastBlocks = null;
    for (Message m : request.messages()) {
      if (m.role() == Role.SYSTEM || m.role() == Role.DEVELOPER) {
        if (system.length() > 0) {
          system.append("\n\n");
        }
        system.append(m.text());
        systemMessages++;
        systemParts = m.content() instanceof Content.Parts p ? p : null;
        continue;
      }
      String role = m.role() == Role.ASSISTANT ? "assistant" : "user";
      ArrayNode blocks = blocksOf(m);
      if (role.equals(lastRole)) {
        // The Messages API wants alternating roles: consecutive turns of one role merge.
        lastBlocks.addAll(blocks);
      } else {
        ObjectNode turn = messages.addObject();
        turn.put("role", role);
        turn.set("content", blocks);
        lastRole = role;
        lastBlocks = blocks;
      }
    }
    if (systemMessages == 1 && systemParts != null && systemParts.parts().size() > 1) {
      body.set("system", partBlocks(systemParts));
    } else if (system.length() > 0) {
      body.put("system", system.toString());
    }
    if (request.temperature() != null) {
      body.put("temperature", request.temperature());
    }
    if (request.topP() != null) {
      body.put("top_p", request.topP());
    }
    JsonNode stop = request.stop();
    if (stop != null && !stop.isNull()) {
      ArrayNode seqs = body.putArray("stop_sequences");
      if (stop.isArray()) {
        stop.forEach(seqs::add);
      } else {
        seqs.add(stop.asText());
      }
    }
    if (request.tools() != null && !request.tools().isEmpty()) {
      ArrayNode tools = body.putArray("tools");
      for (Tool t : request.tools()) {
        JsonNode fn = t.function();
        ObjectNode tool = tools.addObject();
        tool.put("name", fn.path("name").asText());
        if (fn.hasNonNull("description")) {
          tool.put("description", fn.get("description").asText());
        }
        JsonNode params = fn.get("parameters");
        tool.set("input_schema", params != null && params.isObject() ? params
            : NODES.objectNode().put("type", "object"));
      }
    }
    JsonNode choice = request.toolChoice();
    if (choice != null && !choice.isNull()) {
      ObjectNode tc = NODES.objectNode();
      if (choice.isTextual()) {
        switch (choice.asText()) {
          case "required":
            tc.put("type", "any");
            break;
          case "none":
            tc.put("type", "none");
            break;
          default:
            tc.put("type", "auto");
            break;
        }
      } else {
        tc.put("type", "tool");
        tc.put("name", choice.path("function").path("name").asText());
      }
      body.set("tool_choice", tc);
    }
    JsonNode parallel = request.extra().get("parallel_tool_calls");
    if (parallel != null && parallel.isBoolean() && !parallel.asBoolean()
        && request.tools() != null && !request.tools().isEmpty()) {
      JsonNode tc = body.get("tool_choice");
      ObjectNode withFlag = tc instanceof ObjectNode o ? o : NODES.objectNode().put("type", "auto");
      if (!"none".equals(withFlag.path("type").asText())) {
        withFlag.put("disable_parallel_tool_use", true);
        body.set("tool_choice", withFlag);
      }
    }
    if (request.user() != null) {
      body.putObject("metadata").put("user_id", request.user());
    }
    if (stream) {
      body.put("stream", true);
    }
    return body;
  }

  private static ArrayNode blocksOf(Message m) {
    ArrayNode blocks = NODES.arrayNode();
    if (m.role() == Role.TOOL) {
      ObjectNode result = blocks.addObject();
      result.put("type", "tool_result");
      result.put("tool_use_id", m.toolCallId());
      if (m.content() instanceof Content.Parts parts && (parts.parts().size() > 1
          || parts.parts().stream().anyMatch(p -> "image_url".equals(p.type())))) {
        // A result of several parts or with images keeps its blocks; one text stays a string.
        result.set("content", partBlocks(parts));
      } else {
        result.put("content", m.text());
      }
      return blocks;
    }
    Content content = m.content();
    if (content instanceof Content.Parts parts) {
      blocks.addAll(partBlocks(parts));
    } else if (content != null && !content.asText().isEmpty()) {
      blocks.addObject().put("type", "text").put("text", content.asText());
    }
    appendToolUses(m, blocks);
    return blocks;
  }

  /** The text and image blocks of content parts (other parts have no block and are left out). */
  private static ArrayNode partBlocks(Content.Parts parts) {
    ArrayNode blocks = NODES.arrayNode();
    for (ContentPart p : parts.parts()) {
      if ("image_url".equals(p.type()) && p.imageUrl() != null) {
        String url = p.imageUrl().isTextual() ? p.imageUrl().asText()
            : p.imageUrl().path("url").asText();
        ObjectNode image = blocks.addObject();
        image.put("type", "image");
        image.set("source", AnthropicMessages.imageSource(url));
      } else if (p.text() != null) {
        blocks.addObject().put("type", "text").put("text", p.text());
      }
    }
    return blocks;
  }

  private static void appendToolUses(Message m, ArrayNode blocks) {
    if (m.toolCalls() != null) {
      for (ToolCall call : m.toolCalls()) {
        ObjectNode use = blocks.addObject();
        use.put("type", "tool_use");
        use.put("id", call.id());
        use.put("name", call.function() == null ? null : call.function().name());
        String args = call.function() == null ? null : call.function().arguments();
        JsonNode input;
        try {
          input = args == null || args.isBlank() ? NODES.objectNode()
              : Json.mapper().readTree(args);
        } catch (JsonProcessingException e) {
          throw new IllegalArgumentException("the arguments of tool call " + call.id()
              + " are not JSON");
        }
        if (!input.isObject()) {
          throw new IllegalArgumentException("the arguments of tool call " + call.id()
              + " are not a JSON object");
        }
        use.set("input", input);
      }
    }
  }

  /**
   * Translates a Messages API response into the OpenAI shape.
   *
   * @param message the response body
   * @param created the creation time to report, in epoch seconds (the API reports none)
   * @return the response, with usage when the body has it
   * @throws IllegalArgumentException if the body is not a message
   */
  public static ChatResponse translateResponse(JsonNode message, long created) {
    if (!message.isObject() || !message.path("content").isArray()) {
      throw new IllegalArgumentException("not a message");
    }
    StringBuilder text = new StringBuilder();
    List<ToolCall> tools = new ArrayList<>();
    for (JsonNode block : message.get("content")) {
      String type = block.path("type").asText();
      if (type.equals("text")) {
        text.append(block.path("text").asText());
      } else if (type.equals("tool_use")) {
        tools.add(new ToolCall(block.path("id").asText(), "function", new FunctionCall(
            block.path("name").asText(), block.path("input").toString(), null), null));
      }
    }
    Content content = text.length() == 0 && !tools.isEmpty() ? null
        : Content.text(text.toString());
    Message out = new Message(Role.ASSISTANT, content, null, tools.isEmpty() ? null : tools,
        null, null);
    Usage usage = message.hasNonNull("usage") ? usageOf(message.get("usage"), -1) : null;
    String stopReason = message.path("stop_reason").asText(null);
    JsonNode sequence = message.get("stop_sequence");
    // The finish reason "stop" is both end_turn and stop_sequence: the sequence is kept, so
    // that a Messages response made from this one says which.
    Map<String, JsonNode> choiceExtra = "stop_sequence".equals(stopReason) && sequence != null
        && sequence.isTextual() ? Map.of(AnthropicMessages.STOP_SEQUENCE, sequence) : null;
    return new ChatResponse(message.path("id").asText("msg"), "chat.completion", created,
        message.path("model").asText(null), List.of(new Choice(0, out,
            finishReason(stopReason), null, choiceExtra)),
        usage, null, null);
  }

  static String finishReason(String stopReason) {
    return AnthropicMessages.finishReason(stopReason);
  }

  /** Builds usage from an Anthropic usage object; outputOverride replaces output_tokens. */
  static Usage usageOf(JsonNode u, long outputOverride) {
    return AnthropicMessages.usageOf(u, outputOverride);
  }

  @Override
  public ProviderReply send(ProviderCall call) {
    ProviderTransport.Response response = transport.exchange(httpRequest(call, false), call,
        false);
    if (response.status >= 300) {
      throw ProviderErrors.fromStatus(response.status, response.headers,
          response.body, transport.clock().now(), scrubber(call));
    }
    byte[] body = response.body;
    try {
      ChatResponse r = translateResponse(Json.mapper().readTree(body),
          transport.clock().now().getEpochSecond());
      return ProviderReply.of(r);
    } catch (IOException | RuntimeException e) {
      throw ProviderErrors.undecodable(transport.name(), "the response is not a message ("
          + e.getClass().getSimpleName() + ")", e);
    }
  }

  @Override
  public ProviderReply stream(ProviderCall call, ChunkSink sink) {
    boolean callerWantsUsage = call.request().streamOptions() != null
        && Boolean.TRUE.equals(call.request().streamOptions().includeUsage());
    ProviderTransport.Response response = transport.exchange(httpRequest(call, true), call,
        true);
    if (response.status >= 300) {
      throw ProviderErrors.fromStatus(response.status, response.headers,
          response.body, transport.clock().now(), scrubber(call));
    }
    StreamTranslation t = new StreamTranslation(sink, callerWantsUsage,
        transport.clock().now().getEpochSecond(), call.request().model());
    SseParser parser = new SseParser(t::onEvent);
    try {
      transport.stream(response, parser::feed, t::stopped,
          () -> t.done && !t.cancelled && t.failure == null);
    } catch (SseException e) {
      throw t.failure("the event stream is malformed: " + e.getMessage(), e);
    }
    if (t.failure != null) {
      response.cancel();
      throw t.failure;
    }
    if (!t.done && !t.cancelled) {
      throw ProviderErrors.interrupted(transport.name(),
          "the stream ended without message_stop", null);
    }
    ChatResponse assembled = t.assembler.response(call.request().model(), t.created);
    return new ProviderReply(assembled, t.cancelled ? null : t.usage(), false);
  }

  /** Turns Messages stream events into OpenAI chunks. One per stream; not thread-safe. */
  private final class StreamTranslation {
    final ChunkSink sink;
    final boolean callerWantsUsage;
    final long created;
    final StreamAssembler assembler = new StreamAssembler(maxStreamContent);
    String id = "msg";
    String model;
    JsonNode startUsage;
    long outputTokens = -1;
    String finish;
    final Map<Integer, Integer> toolIndexByBlock = new LinkedHashMap<>();
    boolean done;
    boolean cancelled;
    ProviderException failure;

    StreamTranslation(ChunkSink sink, boolean callerWantsUsage, long created, String model) {
      this.sink = sink;
      this.callerWantsUsage = callerWantsUsage;
      this.created = created;
      this.model = model;
    }

    boolean stopped() {
      return done || cancelled || failure != null;
    }

    Usage usage() {
      if (outputTokens < 0) {
        return null;
      }
      return usageOf(startUsage == null ? NODES.objectNode() : startUsage, outputTokens);
    }

    ProviderException failure(String what, Throwable cause) {
      ProviderException.Kind kind = assembler.hasOutput()
          ? ProviderException.Kind.STREAM_ERROR : ProviderException.Kind.UNDECODABLE_RESPONSE;
      return ProviderException.unknownOutcome(kind, "[" + kind.code() + "] " + transport.name() + ": "
          + what, cause);
    }

    void onEvent(SseEvent event) {
      if (stopped()) {
        return;
      }
      JsonNode data;
      try {
        data = Json.mapper().readTree(event.data());
      } catch (IOException e) {
        failure = failure("a stream event is not JSON", e);
        return;
      }
      String type = data.path("type").asText(event.event());
      switch (type) {
        case "message_start": {
          JsonNode message = data.path("message");
          id = message.path("id").asText(id);
          model = message.path("model").asText(model);
          startUsage = message.get("usage");
          emit(new ChunkDelta(Role.ASSISTANT, "", null, null), null, null);
          break;
        }
        case "content_block_start": {
          JsonNode block = data.path("content_block");
          if ("tool_use".equals(block.path("type").asText())) {
            int toolIndex = toolIndexByBlock.size();
            toolIndexByBlock.put(data.path("index").asInt(), toolIndex);
            ArrayNode calls = NODES.arrayNode();
            ObjectNode c = calls.addObject();
            c.put("index", toolIndex);
            c.put("id", block.path("id").asText());
            c.put("type", "function");
            c.putObject("function").put("name", block.path("name").asText())
                .put("arguments", "");
            emit(new ChunkDelta(null, null, calls, null), null, null);
          } else if (block.hasNonNull("text") && !block.get("text").asText().isEmpty()) {
            emit(new ChunkDelta(null, block.get("text").asText(), null, null), null, null);
          }
          break;
        }
        case "content_block_delta": {
          JsonNode delta = data.path("delta");
          String deltaType = delta.path("type").asText();
          if (deltaType.equals("text_delta")) {
            emit(new ChunkDelta(null, delta.path("text").asText(), null, null), null, null);
          } else if (deltaType.equals("input_json_delta")) {
            Integer toolIndex = toolIndexByBlock.get(data.path("index").asInt());
            if (toolIndex != null) {
              ArrayNode calls = NODES.arrayNode();
              ObjectNode c = calls.addObject();
              c.put("index", toolIndex);
              c.putObject("function").put("arguments", delta.path("partial_json").asText());
              emit(new ChunkDelta(null, null, calls, null), null, null);
            }
          }
          // Thinking and signature deltas have no OpenAI counterpart and are dropped.
          break;
        }
        case "message_delta": {
          finish = finishReason(data.path("delta").path("stop_reason").asText(null));
          JsonNode u = data.get("usage");
          if (u != null && u.has("output_tokens")) {
            outputTokens = u.get("output_tokens").asLong();
            if (u.has("input_tokens") || u.has("cache_read_input_tokens")) {
              // Newer API versions repeat the cumulative input counts here.
              ObjectNode merged = startUsage == null ? NODES.objectNode()
                  : ((ObjectNode) startUsage.deepCopy());
              u.properties().forEach(f -> merged.set(f.getKey(), f.getValue()));
              startUsage = merged;
            }
          }
          emit(new ChunkDelta(null, null, null, null), finish, null);
          break;
        }
        case "message_stop":
          if (callerWantsUsage && usage() != null) {
            ChatChunk usageChunk = new ChatChunk(id, "chat.completion.chunk", created, model,
                List.of(), usage(), null);
            assembler.add(usageChunk);
            if (!sink.accept(usageChunk)) {
              cancelled = true;
            }
          }
          done = true;
          break;
        case "error": {
          JsonNode error = data.path("error");
          String errorType = error.path("type").asText("error");
          String message = ErrorScrubber.shapesOnly()
              .scrub(ProviderErrors.sanitize(error.path("message").asText("")));
          if (!assembler.hasOutput()) {
            int status = statusOf(errorType);
            ProviderException.Kind kind =
                ProviderErrors.kindOf(status, errorType, null, message);
            failure = ProviderException.answered(status, "[" + kind.code() + "] "
                + errorType + ": " + message, null, null, null, kind);
          } else {
            failure = failure("the stream reported " + errorType + ": " + message, null);
          }
          break;
        }
        default:
          // ping and future event types carry nothing to translate.
          break;
      }
    }

    private void emit(ChunkDelta delta, String finishReason, Usage usage) {
      ChatChunk chunk = new ChatChunk(id, "chat.completion.chunk", created, model,
          List.of(new ChunkChoice(0, delta, finishReason, null)), usage, null);
      if (!assembler.add(chunk)) {
        // Cut before this chunk; the transport cancels the body once it sees the failure.
        failure = ProviderErrors.streamTooLarge(transport.name(), maxStreamContent);
        return;
      }
      if (!sink.accept(chunk)) {
        cancelled = true;
      }
    }
  }

  static int statusOf(String errorType) {
    switch (errorType) {
      case "invalid_request_error":
        return 400;
      case "authentication_error":
        return 401;
      case "permission_error":
        return 403;
      case "not_found_error":
        return 404;
      case "request_too_large":
        return 413;
      case "rate_limit_error":
        return 429;
      case "overloaded_error":
        return 529;
      default:
        return 500;
    }
  }

  /** What to remove from this call's error texts: the credential sent and the prompt. */
  private ErrorScrubber scrubber(ProviderCall call) {
    String key;
    try {
      key = credential == null ? null : credential.secret();
    } catch (RuntimeException e) {
      key = null;
    }
    return ErrorScrubber.of(key, call.request());
  }

  private HttpRequest.Builder httpRequest(ProviderCall call, boolean stream) {
    byte[] body;
    String key;
    try {
      body = Json.mapper().writeValueAsBytes(translateRequest(call.request(), stream));
      key = credential == null ? null : credential.secret();
    } catch (JsonProcessingException | RuntimeException e) {
      throw ProviderException.notSent("[" + ProviderException.Kind.NOT_SENT.code() + "] "
          + transport.name() + ": the request could not be prepared ("
          + e.getClass().getSimpleName() + ")", e);
    }
    HttpRequest.Builder b = HttpRequest.newBuilder(messages)
        .header("content-type", "application/json")
        .header("accept", stream ? "text/event-stream" : "application/json")
        .header("anthropic-version", version)
        .POST(ProviderTransport.body(body));
    if (key != null) {
      b.header("x-api-key", key);
    }
    headers.forEach(b::header);
    return b;
  }

  @Override
  public String toString() {
    return "AnthropicProvider(" + transport.name() + ", " + baseUri + ")";
  }

  /**
   * Builds an {@link AnthropicProvider}. Setters fail fast on null and bad values. Not
   * thread-safe.
   */
  public static final class Builder {
    private String name = "anthropic";
    private URI baseUri = URI.create("https://api.anthropic.com");
    private String version = DEFAULT_VERSION;
    private Credential credential;
    private int defaultMaxTokens = 4096;
    private final Map<String, String> headers = new LinkedHashMap<>();
    private HttpTimeouts timeouts = HttpTimeouts.ofDefaults();
    private HttpClient httpClient;
    private HttpTransport httpTransport;
    private Clock clock = Clock.system();
    private int maxStreamContent = StreamAssembler.DEFAULT_MAX_CONTENT;

    private Builder() {}

    /**
     * Sets the name used in error messages. Default {@code "anthropic"}.
     *
     * @param value the name
     * @return this builder
     * @throws NullPointerException if value is null
     */
    public Builder name(String value) {
      this.name = Objects.requireNonNull(value, "name");
      return this;
    }

    /**
     * Sets the API origin; attempts go to {@code {baseUri}/v1/messages}. Default
     * {@code https://api.anthropic.com}.
     *
     * @param value the origin
     * @return this builder
     * @throws NullPointerException if value is null
     * @throws IllegalArgumentException if the scheme is not http or https
     */
    public Builder baseUri(URI value) {
      Objects.requireNonNull(value, "baseUri");
      if (!"http".equals(value.getScheme()) && !"https".equals(value.getScheme())) {
        throw new IllegalArgumentException("baseUri must be http or https: " + value);
      }
      this.baseUri = value;
      return this;
    }

    /**
     * Sets the {@code anthropic-version} header. Default {@link #DEFAULT_VERSION}.
     *
     * @param value the version
     * @return this builder
     * @throws NullPointerException if value is null
     */
    public Builder version(String value) {
      this.version = Objects.requireNonNull(value, "version");
      return this;
    }

    /**
     * Sets the credential, sent as {@code x-api-key}.
     *
     * @param value the credential
     * @return this builder
     * @throws NullPointerException if value is null
     */
    public Builder credential(Credential value) {
      this.credential = Objects.requireNonNull(value, "credential");
      return this;
    }

    /**
     * Sets the {@code max_tokens} sent when the request has no output cap (the Messages API
     * requires one). Default 4096. A gateway's requests always carry the cap their hold
     * assumed, which is sent instead; this default applies only to requests sent without one.
     *
     * @param value the cap
     * @return this builder
     * @throws IllegalArgumentException if value is below 1
     */
    public Builder defaultMaxTokens(int value) {
      if (value < 1) {
        throw new IllegalArgumentException("defaultMaxTokens must be positive: " + value);
      }
      this.defaultMaxTokens = value;
      return this;
    }

    /**
     * Adds a header sent with every attempt (for example {@code anthropic-beta}).
     *
     * @param name the header name
     * @param value the value
     * @return this builder
     * @throws NullPointerException if an argument is null
     */
    public Builder header(String name, String value) {
      headers.put(Objects.requireNonNull(name, "name"), Objects.requireNonNull(value, "value"));
      return this;
    }

    /**
     * Sets the timeouts. Default {@link HttpTimeouts#ofDefaults()}.
     *
     * @param value the timeouts
     * @return this builder
     * @throws NullPointerException if value is null
     */
    public Builder timeouts(HttpTimeouts value) {
      this.timeouts = Objects.requireNonNull(value, "timeouts");
      return this;
    }

    /**
     * Sets the most content a stream's assembled response may hold, in characters (text and
     * tool calls: ids, names and arguments, plus a small allowance per choice and per tool
     * call). The chunks go to the caller as they arrive; the assembled response, which the
     * gateway needs for its output guardrail and usage estimate, is what this bounds. A stream
     * that would go beyond it is cut before the chunk that would cross it: its connection is
     * closed and the attempt fails with a {@link ProviderException} of rule
     * {@code stream.too_large} (kind {@link ProviderErrorKind#STREAM_TOO_LARGE}), billing
     * unknown, not retryable, so that the gateway charges the attempt's worst case. Default
     * 16 Mi characters; the heap it takes is one byte per character of Latin-1 text, two of
     * other text, plus the builders' spare capacity, and a copy when the response is built.
     *
     * @param value the limit, at least 1
     * @return this builder
     * @throws IllegalArgumentException if value is below 1
     */
    public Builder maxStreamContent(int value) {
      if (value < 1) {
        throw new IllegalArgumentException("maxStreamContent must be positive: " + value);
      }
      this.maxStreamContent = value;
      return this;
    }

    /**
     * Shares an existing client (its connection pool, executor and connect timeout).
     *
     * @param value the client
     * @return this builder
     * @throws NullPointerException if value is null
     */
    public Builder httpClient(HttpClient value) {
      this.httpClient = Objects.requireNonNull(value, "httpClient");
      this.httpTransport = null;
      return this;
    }

    /**
     * Sends every attempt through another HTTP transport than the JDK's client (for example
     * {@code pointsman-httpclient5}'s). The adapter's timeouts, body caps, stream
     * back-pressure and error mapping stay the same, except the connect timeout, which is the
     * transport's own. Replaces {@link #httpClient}; a {@link JdkHttpTransport} is the same
     * as {@code httpClient(transport.client())}.
     *
     * @param value the transport
     * @return this builder
     * @throws NullPointerException if value is null
     */
    public Builder transport(HttpTransport value) {
      this.httpTransport = Objects.requireNonNull(value, "transport");
      this.httpClient = null;
      return this;
    }

    /**
     * Sets the clock used for deadlines, HTTP-date retry hints and response timestamps.
     *
     * @param value the clock
     * @return this builder
     * @throws NullPointerException if value is null
     */
    public Builder clock(Clock value) {
      this.clock = Objects.requireNonNull(value, "clock");
      return this;
    }

    /**
     * Builds the provider.
     *
     * @return the provider
     */
    public AnthropicProvider build() {
      return new AnthropicProvider(this);
    }
  }
}
