package io.pointsman.model.anthropic;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.pointsman.model.ChatRequest;
import io.pointsman.model.ChatResponse;
import io.pointsman.model.Choice;
import io.pointsman.model.Content;
import io.pointsman.model.ContentPart;
import io.pointsman.model.FunctionCall;
import io.pointsman.model.Json;
import io.pointsman.model.Message;
import io.pointsman.model.PromptTokensDetails;
import io.pointsman.model.Role;
import io.pointsman.model.StreamOptions;
import io.pointsman.model.Tool;
import io.pointsman.model.ToolCall;
import io.pointsman.model.Usage;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Translates between Anthropic's Messages API and the gateway's (OpenAI-shaped) model, both
 * ways: {@link #toChatRequest(MessagesRequest)} and {@link #fromChatResponse(ChatResponse)}; the
 * stream's events come from {@link AnthropicStream}. The same mappings serve the outbound
 * {@link io.pointsman.provider.AnthropicProvider}: stop reasons ({@link #finishReason},
 * {@link #stopReason}), image sources ({@link #imageUrl}, {@link #imageSource}) and usage
 * ({@link #usageOf(JsonNode)}, {@link #messagesUsage(Usage)}).
 *
 * <p>What both sides express is translated without loss: the {@code system} prompt (a string,
 * or text blocks, which become text parts of one system message), text and image blocks
 * (base64 sources become {@code data:} URLs, URL sources stay URLs), {@code tool_use} blocks
 * (assistant tool calls whose arguments are the input's JSON), {@code tool_result} blocks (tool
 * messages, text and images), tools with {@code input_schema} (function tools with those
 * parameters), {@code tool_choice} {@code auto}/{@code any}/{@code tool}/{@code none}
 * ({@code auto}/{@code required}/function/{@code none}; {@code disable_parallel_tool_use} is
 * {@code parallel_tool_calls: false}), {@code stop_sequences} ({@code stop}),
 * {@code temperature}, {@code top_p}, {@code max_tokens}, {@code metadata.user_id}
 * ({@code user}) and {@code stream} (with {@code stream_options.include_usage}).
 * {@code cache_control} marks are accepted and dropped: the gateway's model has no prompt-cache
 * hint (the prompt cache's reads and writes still reach usage when the upstream reports them).
 *
 * <p>Refused with an {@link AnthropicException} ({@code invalid_request_error}, status 400):
 * a request without {@code max_tokens}; {@code top_k}; {@code thinking} other than
 * {@code disabled}, and {@code thinking}/{@code redacted_thinking} blocks; {@code document}
 * blocks and every other block type; server tools; a {@code tool_result} whose
 * {@code tool_use_id} names no earlier {@code tool_use}; a {@code tool_result} with
 * {@code is_error: true} (the gateway's tool message has no error flag); image sources other
 * than base64 and URL; {@code citations}; any field the API does not define or the gateway
 * cannot carry, named in the message. Stateless and thread-safe.
 */
public final class AnthropicMessages {
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
  /** Request fields that are translated. */
  private static final Set<String> CACHE_CONTROL = Set.of("cache_control");

  private AnthropicMessages() {}

  /**
   * Reads a Messages request.
   *
   * @param json UTF-8 JSON
   * @return the request
   * @throws io.pointsman.PointsmanException with status 400 when the JSON is invalid or of the
   *     wrong shape
   */
  public static MessagesRequest readRequest(byte[] json) {
    return Json.read(json, MessagesRequest.class);
  }

  /**
   * Translates a Messages request into the gateway's model.
   *
   * @param request the request
   * @return the gateway's request
   * @throws AnthropicException when the request is invalid or asks for what the gateway's model
   *     cannot carry (see the class comment)
   */
  public static ChatRequest toChatRequest(MessagesRequest request) {
    return translate(request, true);
  }

  /**
   * Translates a {@code count_tokens} request (a Messages request without {@code max_tokens}
   * or {@code stream}) into the gateway's model, to count its prompt.
   *
   * @param request the request
   * @return the gateway's request, without an output cap
   * @throws AnthropicException when the request is invalid or asks for what the gateway's model
   *     cannot carry
   */
  public static ChatRequest toCountRequest(MessagesRequest request) {
    return translate(request, false);
  }

  private static ChatRequest translate(MessagesRequest request, boolean forCompletion) {
    checkFields(request.extra(), "", Set.of());
    if (request.model() == null || request.model().isBlank()) {
      throw invalid("model: field required");
    }
    ChatRequest.Builder b = ChatRequest.builder().model(request.model());
    if (forCompletion) {
      if (request.maxTokens() == null) {
        throw AnthropicException.invalidRequest(AnthropicException.MAX_TOKENS_MISSING,
            "max_tokens: field required");
      }
      if (request.maxTokens() < 1) {
        throw invalid("max_tokens: must be at least 1");
      }
      b.maxTokens(request.maxTokens());
      if (request.isStream()) {
        b.stream(true).streamOptions(new StreamOptions(true, null));
      }
    } else if (request.maxTokens() != null || request.stream() != null) {
      throw unsupported((request.maxTokens() != null ? "max_tokens" : "stream")
          + ": not a count_tokens field");
    }
    if (request.topK() != null) {
      throw unsupported("top_k: the gateway's model has no top-k sampling; leave it out");
    }
    JsonNode thinking = request.thinking();
    if (thinking != null && !thinking.isNull()
        && !"disabled".equals(thinking.path("type").asText())) {
      throw unsupported("thinking: extended thinking is not supported by this gateway");
    }
    if (request.temperature() != null) {
      b.temperature(request.temperature());
    }
    if (request.topP() != null) {
      b.topP(request.topP());
    }
    if (request.stopSequences() != null && !request.stopSequences().isEmpty()) {
      ArrayNode stop = NODES.arrayNode();
      for (String s : request.stopSequences()) {
        if (s == null) {
          throw invalid("stop_sequences: must be strings");
        }
        stop.add(s);
      }
      b.stop(stop);
    }
    if (request.metadata() != null) {
      checkFields(request.metadata().extra(), "metadata.", Set.of());
      if (request.metadata().userId() != null) {
        b.user(request.metadata().userId());
      }
    }
    if (request.tools() != null) {
      List<Tool> tools = new ArrayList<>();
      for (int i = 0; i < request.tools().size(); i++) {
        tools.add(tool(request.tools().get(i), "tools." + i));
      }
      if (!tools.isEmpty()) {
        b.tools(tools);
      }
    }
    if (request.toolChoice() != null) {
      toolChoice(request.toolChoice(), b);
    }
    List<Message> messages = new ArrayList<>();
    if (request.system() != null && !request.system().isEmpty()) {
      messages.add(system(request.system()));
    }
    if (request.messages() == null || request.messages().isEmpty()) {
      throw invalid("messages: at least one message is required");
    }
    Set<String> toolUses = new HashSet<>();
    for (int i = 0; i < request.messages().size(); i++) {
      InputMessage m = request.messages().get(i);
      String where = "messages." + i;
      if (m == null) {
        throw invalid(where + ": must be an object");
      }
      checkFields(m.extra(), where + ".", Set.of());
      if (m.content() == null) {
        throw invalid(where + ".content: field required");
      }
      if ("user".equals(m.role())) {
        user(m.content(), where, toolUses, messages);
      } else if ("assistant".equals(m.role())) {
        messages.add(assistant(m.content(), where, toolUses));
      } else {
        throw invalid(where + ".role: must be user or assistant");
      }
    }
    return b.messages(messages).build();
  }

  private static Message system(List<ContentBlock> blocks) {
    List<ContentPart> parts = new ArrayList<>();
    for (int i = 0; i < blocks.size(); i++) {
      ContentBlock block = blocks.get(i);
      if (!(block instanceof ContentBlock.Text t)) {
        throw block(block, "system." + i, "the system prompt takes text blocks only");
      }
      parts.add(textPart(t, "system." + i));
    }
    return parts.size() == 1 ? Message.system(parts.get(0).text())
        : new Message(Role.SYSTEM, Content.parts(parts), null, null, null, null);
  }

  private static void user(List<ContentBlock> blocks, String where, Set<String> toolUses,
      List<Message> out) {
    if (blocks.isEmpty()) {
      throw invalid(where + ".content: must not be empty");
    }
    List<ContentPart> pending = new ArrayList<>();
    for (int i = 0; i < blocks.size(); i++) {
      ContentBlock block = blocks.get(i);
      String at = where + ".content." + i;
      if (block instanceof ContentBlock.Text t) {
        pending.add(textPart(t, at));
      } else if (block instanceof ContentBlock.Image image) {
        pending.add(imagePart(image, at));
      } else if (block instanceof ContentBlock.ToolResult r) {
        if (!pending.isEmpty()) {
          out.add(new Message(Role.USER, content(pending), null, null, null, null));
          pending = new ArrayList<>();
        }
        out.add(toolResult(r, at, toolUses));
      } else {
        throw block(block, at, "a user turn takes text, image and tool_result blocks");
      }
    }
    if (!pending.isEmpty()) {
      out.add(new Message(Role.USER, content(pending), null, null, null, null));
    }
  }

  private static Message toolResult(ContentBlock.ToolResult r, String at,
      Set<String> toolUses) {
    checkFields(r.extra(), at + ".", CACHE_CONTROL);
    if (r.toolUseId() == null || r.toolUseId().isEmpty()) {
      throw invalid(at + ".tool_use_id: field required");
    }
    if (!toolUses.contains(r.toolUseId())) {
      throw AnthropicException.invalidRequest(AnthropicException.UNKNOWN_TOOL_USE, at
          + ": tool_result for " + Json.quoteForMessage(r.toolUseId())
          + ", which no earlier tool_use block has as its id");
    }
    if (Boolean.TRUE.equals(r.isError())) {
      throw unsupported(at + ".is_error: the gateway's tool message has no error flag;"
          + " put the error in the result's text");
    }
    List<ContentPart> parts = new ArrayList<>();
    if (r.content() != null) {
      for (int i = 0; i < r.content().size(); i++) {
        ContentBlock block = r.content().get(i);
        String in = at + ".content." + i;
        if (block instanceof ContentBlock.Text t) {
          parts.add(textPart(t, in));
        } else if (block instanceof ContentBlock.Image image) {
          parts.add(imagePart(image, in));
        } else {
          throw block(block, in, "a tool_result takes text and image blocks");
        }
      }
    }
    Content content = parts.isEmpty() ? Content.text("") : content(parts);
    return new Message(Role.TOOL, content, null, null, r.toolUseId(), null);
  }

  private static Message assistant(List<ContentBlock> blocks, String where,
      Set<String> toolUses) {
    List<ContentPart> texts = new ArrayList<>();
    List<ToolCall> calls = new ArrayList<>();
    for (int i = 0; i < blocks.size(); i++) {
      ContentBlock block = blocks.get(i);
      String at = where + ".content." + i;
      if (block instanceof ContentBlock.Text t) {
        if (!calls.isEmpty()) {
          throw invalid(at + ": text after a tool_use block cannot keep its place in the"
              + " gateway's model (tool calls follow the text)");
        }
        texts.add(textPart(t, at));
      } else if (block instanceof ContentBlock.ToolUse use) {
        checkFields(use.extra(), at + ".", CACHE_CONTROL);
        if (use.id() == null || use.id().isEmpty() || use.name() == null) {
          throw invalid(at + ": a tool_use block needs an id and a name");
        }
        JsonNode input = use.input() == null ? NODES.objectNode() : use.input();
        if (!input.isObject()) {
          throw invalid(at + ".input: must be an object");
        }
        calls.add(new ToolCall(use.id(), "function",
            new FunctionCall(use.name(), Json.write(input), null), null));
        toolUses.add(use.id());
      } else {
        throw block(block, at, "an assistant turn takes text and tool_use blocks");
      }
    }
    Content content;
    if (texts.isEmpty()) {
      content = calls.isEmpty() ? Content.text("") : null;
    } else {
      content = content(texts);
    }
    return new Message(Role.ASSISTANT, content, null, calls.isEmpty() ? null : calls, null,
        null);
  }

  private static Content content(List<ContentPart> parts) {
    if (parts.size() == 1 && "text".equals(parts.get(0).type())) {
      return Content.text(parts.get(0).text());
    }
    return Content.parts(parts);
  }

  private static ContentPart textPart(ContentBlock.Text t, String at) {
    checkFields(t.extra(), at + ".", CACHE_CONTROL);
    if (t.text() == null) {
      throw invalid(at + ".text: field required");
    }
    return ContentPart.text(t.text());
  }

  private static ContentPart imagePart(ContentBlock.Image image, String at) {
    checkFields(image.extra(), at + ".", CACHE_CONTROL);
    if (image.source() == null) {
      throw invalid(at + ".source: field required");
    }
    String url = imageUrl(image.source(), at + ".source");
    checkFields(image.source().extra(), at + ".source.", Set.of());
    return new ContentPart("image_url", null, NODES.objectNode().put("url", url), null);
  }

  private static Tool tool(ToolDefinition t, String at) {
    if (t == null) {
      throw invalid(at + ": must be an object");
    }
    if (t.type() != null && !"custom".equals(t.type())) {
      throw AnthropicException.invalidRequest(AnthropicException.UNSUPPORTED_TOOL, at
          + ": server tool " + Json.quoteForMessage(t.type())
          + " is not supported by this gateway; only client tools with an input_schema are");
    }
    checkFields(t.extra(), at + ".", CACHE_CONTROL);
    if (t.name() == null || t.name().isEmpty()) {
      throw invalid(at + ".name: field required");
    }
    if (t.inputSchema() == null || !t.inputSchema().isObject()) {
      throw invalid(at + ".input_schema: must be an object");
    }
    ObjectNode function = NODES.objectNode().put("name", t.name());
    if (t.description() != null) {
      function.put("description", t.description());
    }
    function.set("parameters", t.inputSchema());
    return new Tool("function", function, null);
  }

  private static void toolChoice(ToolChoice c, ChatRequest.Builder b) {
    checkFields(c.extra(), "tool_choice.", Set.of());
    String type = c.type() == null ? "" : c.type();
    switch (type) {
      case "auto" -> b.toolChoice(NODES.textNode("auto"));
      case "any" -> b.toolChoice(NODES.textNode("required"));
      case "none" -> b.toolChoice(NODES.textNode("none"));
      case "tool" -> {
        if (c.name() == null || c.name().isEmpty()) {
          throw invalid("tool_choice.name: field required for type tool");
        }
        ObjectNode choice = NODES.objectNode().put("type", "function");
        choice.putObject("function").put("name", c.name());
        b.toolChoice(choice);
      }
      default -> throw invalid("tool_choice.type: must be auto, any, tool or none");
    }
    if (c.disableParallelToolUse() != null) {
      if ("none".equals(type)) {
        throw invalid("tool_choice.disable_parallel_tool_use: not a field of type none");
      }
      if (c.disableParallelToolUse()) {
        b.extra("parallel_tool_calls", NODES.booleanNode(false));
      }
    }
  }

  /**
   * Translates a gateway response into a Messages response: the first choice's text as text
   * blocks, its tool calls as {@code tool_use} blocks (in that order), the finish reason as the
   * stop reason ({@link #stopReason}) and usage as {@link #messagesUsage(Usage)} counts it
   * (zeros when the response has none).
   *
   * @param response the gateway's response
   * @return the Messages response
   * @throws AnthropicException ({@code api_error}) when the response has no choice, or a tool
   *     call whose arguments are not a JSON object (a Messages {@code tool_use} input must be
   *     one)
   */
  public static MessagesResponse fromChatResponse(ChatResponse response) {
    if (response.choices().isEmpty() || response.choices().get(0).message() == null) {
      throw AnthropicException.untranslatable("the response has no message");
    }
    Choice choice = response.choices().get(0);
    Message m = choice.message();
    List<ContentBlock> content = new ArrayList<>();
    if (m.content() instanceof Content.Parts parts) {
      for (ContentPart p : parts.parts()) {
        if (p.text() != null && !p.text().isEmpty()) {
          content.add(ContentBlock.text(p.text()));
        }
      }
    } else if (m.content() != null && !m.content().asText().isEmpty()) {
      content.add(ContentBlock.text(m.content().asText()));
    }
    if (m.toolCalls() != null) {
      for (ToolCall call : m.toolCalls()) {
        content.add(new ContentBlock.ToolUse(call.id(),
            call.function() == null ? null : call.function().name(),
            toolInput(call), null));
      }
    }
    JsonNode sequence = choice.extra().get(STOP_SEQUENCE);
    String stopSequence = sequence != null && sequence.isTextual() ? sequence.asText() : null;
    String stopReason = stopReason(choice.finishReason());
    if (stopSequence != null && "end_turn".equals(stopReason)) {
      stopReason = "stop_sequence";
    }
    return new MessagesResponse(response.id(), "message", "assistant", response.model(),
        content, stopReason, "stop_sequence".equals(stopReason) ? stopSequence : null,
        messagesUsage(response.usage()));
  }

  /**
   * The field of a gateway choice's extra map that holds the stop sequence an Anthropic
   * upstream reported ({@code stop_reason: stop_sequence}), so that the finish reason
   * {@code stop} translates back to {@code stop_sequence} with it.
   */
  public static final String STOP_SEQUENCE = "stop_sequence";

  static JsonNode toolInput(ToolCall call) {
    String args = call.function() == null ? null : call.function().arguments();
    JsonNode input;
    try {
      input = args == null || args.isBlank() ? NODES.objectNode()
          : Json.mapper().readTree(args);
    } catch (JsonProcessingException e) {
      throw AnthropicException.untranslatable("the arguments of tool call "
          + Json.quoteForMessage(call.id()) + " are not JSON");
    }
    if (!input.isObject()) {
      throw AnthropicException.untranslatable("the arguments of tool call "
          + Json.quoteForMessage(call.id()) + " are not a JSON object");
    }
    return input;
  }

  // ---------------------------------------------------------------- shared mappings

  /**
   * Returns the gateway's finish reason for an Anthropic stop reason: {@code end_turn},
   * {@code stop_sequence} and {@code pause_turn} to {@code stop}, {@code max_tokens} to
   * {@code length}, {@code tool_use} to {@code tool_calls}, {@code refusal} to
   * {@code content_filter}.
   *
   * @param stopReason the stop reason, or {@code null}
   * @return the finish reason, or {@code null} for {@code null}
   */
  public static String finishReason(String stopReason) {
    if (stopReason == null) {
      return null;
    }
    return switch (stopReason) {
      case "max_tokens" -> "length";
      case "tool_use" -> "tool_calls";
      case "refusal" -> "content_filter";
      default -> "stop";
    };
  }

  /**
   * Returns the Anthropic stop reason for a gateway finish reason: {@code stop} (and
   * {@code null}) to {@code end_turn}, {@code length} to {@code max_tokens},
   * {@code tool_calls} and {@code function_call} to {@code tool_use}, {@code content_filter} to
   * {@code refusal}; any other to {@code end_turn}.
   *
   * @param finishReason the finish reason, or {@code null}
   * @return the stop reason
   */
  public static String stopReason(String finishReason) {
    if (finishReason == null) {
      return "end_turn";
    }
    return switch (finishReason) {
      case "length" -> "max_tokens";
      case "tool_calls", "function_call" -> "tool_use";
      case "content_filter" -> "refusal";
      default -> "end_turn";
    };
  }

  /**
   * Returns the gateway's image URL for an image source: a {@code data:} URL for base64 data,
   * the URL for a URL source.
   *
   * @param source the source
   * @param at where the source is in the request, for the error message
   * @return the URL
   * @throws AnthropicException when the source is neither base64 (with a media type and data)
   *     nor a URL
   */
  public static String imageUrl(ImageSource source, String at) {
    String type = source.type() == null ? "" : source.type();
    switch (type) {
      case "base64" -> {
        if (source.mediaType() == null || source.data() == null) {
          throw invalid(at + ": a base64 source needs media_type and data");
        }
        return "data:" + source.mediaType() + ";base64," + source.data();
      }
      case "url" -> {
        if (source.url() == null) {
          throw invalid(at + ".url: field required");
        }
        return source.url();
      }
      default -> throw AnthropicException.invalidRequest(AnthropicException.UNSUPPORTED_BLOCK,
          at + ".type: image source " + Json.quoteForMessage(type)
          + " is not supported by this gateway; use base64 or url");
    }
  }

  /**
   * Returns the Messages image source for a gateway image URL: base64 for a
   * {@code data:...;base64,} URL, else a URL source.
   *
   * @param url the URL
   * @return the source, as JSON
   */
  public static ObjectNode imageSource(String url) {
    ObjectNode source = NODES.objectNode();
    int comma = url.indexOf(',');
    if (url.startsWith("data:") && comma > 0 && url.substring(0, comma).endsWith(";base64")) {
      source.put("type", "base64");
      source.put("media_type", url.substring(5, comma - ";base64".length()));
      source.put("data", url.substring(comma + 1));
    } else {
      source.put("type", "url");
      source.put("url", url);
    }
    return source;
  }

  /**
   * Returns the gateway's usage for an Anthropic usage object: prompt tokens are input plus
   * cache-creation plus cache-read tokens, cached tokens the cache reads, cache-creation tokens
   * the cache writes (also kept in the top-level {@value Usage#LEGACY_CACHE_CREATION} field,
   * where they were before the gateway's model named them).
   *
   * @param u the usage object
   * @return the usage
   */
  public static Usage usageOf(JsonNode u) {
    return usageOf(u, -1);
  }

  /**
   * Returns the gateway's usage for an Anthropic usage object whose output count is replaced.
   *
   * @param u the usage object
   * @param outputOverride the output tokens to use, or a negative number to read them from u
   * @return the usage
   */
  public static Usage usageOf(JsonNode u, long outputOverride) {
    long input = u.path("input_tokens").asLong(0);
    long creation = u.path("cache_creation_input_tokens").asLong(0);
    long read = u.path("cache_read_input_tokens").asLong(0);
    long output = outputOverride >= 0 ? outputOverride : u.path("output_tokens").asLong(0);
    long prompt = input + creation + read;
    Map<String, JsonNode> extra = creation > 0
        ? Map.of(Usage.LEGACY_CACHE_CREATION, NODES.numberNode(creation)) : null;
    PromptTokensDetails details = read > 0 || creation > 0
        ? new PromptTokensDetails(read > 0 ? read : null, creation > 0 ? creation : null, null)
        : null;
    return new Usage(prompt, output, prompt + output, details, null, extra);
  }

  /**
   * Returns the Messages usage for the gateway's usage: input tokens are the prompt tokens
   * less the cached and cache-creation ones, cache reads the cached tokens, cache writes the
   * cache-creation tokens; zeros when usage is {@code null}.
   *
   * @param usage the gateway's usage, or {@code null}
   * @return the Messages usage
   */
  public static MessagesUsage messagesUsage(Usage usage) {
    if (usage == null) {
      return new MessagesUsage(0, 0, 0, 0);
    }
    long read = usage.cachedTokens();
    long creation = usage.cacheCreationTokens();
    long input = Math.max(0, usage.promptTokens() - read - creation);
    return new MessagesUsage(input, usage.completionTokens(), creation, read);
  }

  // ---------------------------------------------------------------- refusals

  private static void checkFields(Map<String, JsonNode> extra, String prefix,
      Set<String> dropped) {
    for (Map.Entry<String, JsonNode> e : extra.entrySet()) {
      if (dropped.contains(e.getKey()) || e.getValue() == null || e.getValue().isNull()) {
        continue;
      }
      throw unsupported(prefix + e.getKey() + ": not supported by this gateway");
    }
  }

  private static AnthropicException block(ContentBlock block, String at, String what) {
    String type = block.type();
    if (type == null) {
      return invalid(at + ": a content block must be an object with a type");
    }
    String why = switch (type) {
      case "thinking", "redacted_thinking" ->
          "extended thinking is not supported by this gateway";
      case "document" -> "document blocks are not supported by this gateway";
      case "text", "image", "tool_use", "tool_result" -> null;
      default -> "this gateway does not support blocks of this type";
    };
    if (why == null) {
      return invalid(at + ": " + Json.quoteForMessage(type) + " block: " + what);
    }
    return AnthropicException.invalidRequest(AnthropicException.UNSUPPORTED_BLOCK,
        at + ": " + Json.quoteForMessage(type) + " block: " + why);
  }

  private static AnthropicException unsupported(String message) {
    return AnthropicException.invalidRequest(AnthropicException.UNSUPPORTED_FIELD, message);
  }

  private static AnthropicException invalid(String message) {
    return AnthropicException.invalidRequest(AnthropicException.INVALID_REQUEST, message);
  }
}
