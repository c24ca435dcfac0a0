package io.pointsman.springai;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.pointsman.ChatResult;
import io.pointsman.PointsmanException;
import io.pointsman.Status;
import io.pointsman.model.ChatRequest;
import io.pointsman.model.Choice;
import io.pointsman.model.Content;
import io.pointsman.model.ContentPart;
import io.pointsman.model.FunctionCall;
import io.pointsman.model.Json;
import io.pointsman.model.Message;
import io.pointsman.model.Role;
import io.pointsman.model.Tool;
import io.pointsman.model.ToolCall;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.ai.chat.messages.AssistantMessage;
import org.springframework.ai.chat.messages.SystemMessage;
import org.springframework.ai.chat.messages.ToolResponseMessage;
import org.springframework.ai.chat.messages.UserMessage;
import org.springframework.ai.chat.metadata.ChatGenerationMetadata;
import org.springframework.ai.chat.metadata.ChatResponseMetadata;
import org.springframework.ai.chat.metadata.DefaultUsage;
import org.springframework.ai.chat.metadata.EmptyUsage;
import org.springframework.ai.chat.model.ChatResponse;
import org.springframework.ai.chat.model.Generation;
import org.springframework.ai.content.Media;
import org.springframework.ai.retry.NonTransientAiException;
import org.springframework.ai.retry.TransientAiException;
import org.springframework.ai.tool.definition.ToolDefinition;

/**
 * Between Spring AI's types and the gateway's OpenAI-shaped model: prompts to requests,
 * responses to Spring AI responses, gateway failures to Spring AI's exceptions. Stateless.
 */
final class Translation {

  /** The response metadata key of the gateway's request id. */
  static final String REQUEST_ID = PointsmanChatModel.METADATA_REQUEST_ID;
  /** The response metadata key of the call's event id (its usage record's key). */
  static final String EVENT_ID = PointsmanChatModel.METADATA_EVENT_ID;
  /** The response metadata key of the amount charged, in micro-units. */
  static final String COST_MICROS = PointsmanChatModel.METADATA_COST_MICROS;
  /** The response metadata key of whether the cost is an estimate. */
  static final String COST_ESTIMATED = PointsmanChatModel.METADATA_COST_ESTIMATED;
  /** The response metadata key of the call's outcome. */
  static final String OUTCOME = PointsmanChatModel.METADATA_OUTCOME;
  /** The response metadata key of the cache status. */
  static final String CACHE_STATUS = PointsmanChatModel.METADATA_CACHE_STATUS;
  /** The response metadata key of the deployment that answered. */
  static final String DEPLOYMENT = PointsmanChatModel.METADATA_DEPLOYMENT;

  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  private Translation() {}

  /**
   * Builds the gateway request for a prompt.
   *
   * @param messages the prompt's messages
   * @param options the merged options
   * @param tools the tool definitions to offer, possibly empty
   * @return the request
   */
  static ChatRequest request(List<org.springframework.ai.chat.messages.Message> messages,
      PointsmanChatOptions options, List<ToolDefinition> tools) {
    ChatRequest.Builder b = ChatRequest.builder();
    if (options.getModel() != null) {
      b.model(options.getModel());
    }
    b.messages(messages(messages));
    if (!tools.isEmpty()) {
      List<Tool> out = new ArrayList<>(tools.size());
      for (ToolDefinition t : tools) {
        out.add(tool(t));
      }
      b.tools(out);
    }
    if (options.getTemperature() != null) {
      b.temperature(options.getTemperature());
    }
    if (options.getTopP() != null) {
      b.topP(options.getTopP());
    }
    if (options.getMaxTokens() != null) {
      b.maxCompletionTokens(options.getMaxTokens());
    }
    List<String> stop = options.getStopSequences();
    if (stop != null && !stop.isEmpty()) {
      ArrayNode array = NODES.arrayNode();
      stop.forEach(array::add);
      b.stop(array);
    }
    if (options.getSeed() != null) {
      b.seed(options.getSeed());
    }
    if (options.getUser() != null) {
      b.user(options.getUser());
    }
    if (options.getFrequencyPenalty() != null) {
      b.extra("frequency_penalty", NODES.numberNode(options.getFrequencyPenalty()));
    }
    if (options.getPresencePenalty() != null) {
      b.extra("presence_penalty", NODES.numberNode(options.getPresencePenalty()));
    }
    if (options.getOutputSchema() != null) {
      b.responseFormat(responseFormat(options));
    }
    return b.build();
  }

  private static JsonNode responseFormat(PointsmanChatOptions options) {
    JsonNode schema;
    try {
      schema = Json.mapper().readTree(options.getOutputSchema());
    } catch (IOException e) {
      throw new IllegalArgumentException("the output schema is not JSON", e);
    }
    ObjectNode jsonSchema = NODES.objectNode();
    jsonSchema.put("name",
        options.getOutputSchemaName() == null ? "response" : options.getOutputSchemaName());
    jsonSchema.set("schema", schema);
    jsonSchema.put("strict", options.getStrictSchema() == null || options.getStrictSchema());
    ObjectNode format = NODES.objectNode();
    format.put("type", "json_schema");
    format.set("json_schema", jsonSchema);
    return format;
  }

  /**
   * Builds the gateway tool for a Spring AI tool definition.
   *
   * @param definition the definition
   * @return the tool
   */
  static Tool tool(ToolDefinition definition) {
    ObjectNode function = NODES.objectNode();
    function.put("name", definition.name());
    if (definition.description() != null) {
      function.put("description", definition.description());
    }
    try {
      function.set("parameters", Json.mapper().readTree(definition.inputSchema()));
    } catch (IOException e) {
      throw new IllegalArgumentException(
          "the input schema of tool " + definition.name() + " is not JSON", e);
    }
    return new Tool("function", function, null);
  }

  /**
   * Translates Spring AI messages to gateway messages; a tool response message with several
   * responses becomes one tool message per response.
   *
   * @param messages the messages
   * @return the gateway messages
   */
  static List<Message> messages(List<org.springframework.ai.chat.messages.Message> messages) {
    List<Message> out = new ArrayList<>(messages.size());
    for (org.springframework.ai.chat.messages.Message m : messages) {
      if (m instanceof SystemMessage s) {
        out.add(Message.system(s.getText()));
      } else if (m instanceof UserMessage u) {
        out.add(user(u));
      } else if (m instanceof AssistantMessage a) {
        out.add(assistant(a));
      } else if (m instanceof ToolResponseMessage t) {
        for (ToolResponseMessage.ToolResponse r : t.getResponses()) {
          out.add(new Message(Role.TOOL, Content.text(r.responseData() == null ? ""
              : r.responseData()), null, null, r.id(), null));
        }
      } else {
        throw new IllegalArgumentException("unsupported message type " + m.getMessageType());
      }
    }
    return out;
  }

  private static Message user(UserMessage u) {
    if (u.getMedia().isEmpty()) {
      return Message.user(u.getText());
    }
    List<ContentPart> parts = new ArrayList<>();
    if (u.getText() != null && !u.getText().isEmpty()) {
      parts.add(ContentPart.text(u.getText()));
    }
    for (Media media : u.getMedia()) {
      ObjectNode imageUrl = NODES.objectNode();
      imageUrl.put("url", mediaUrl(media));
      parts.add(new ContentPart("image_url", null, imageUrl, null));
    }
    return new Message(Role.USER, Content.parts(parts), null, null, null, null);
  }

  private static String mediaUrl(Media media) {
    Object data = media.getData();
    if (data instanceof String s) {
      // A URL (http, https or already a data URL).
      return s;
    }
    if (data instanceof byte[] bytes) {
      return "data:" + media.getMimeType() + ";base64,"
          + Base64.getEncoder().encodeToString(bytes);
    }
    throw new IllegalArgumentException(
        "unsupported media data " + (data == null ? "null" : data.getClass().getName()));
  }

  private static Message assistant(AssistantMessage a) {
    List<ToolCall> calls = null;
    if (a.hasToolCalls()) {
      calls = new ArrayList<>();
      for (AssistantMessage.ToolCall c : a.getToolCalls()) {
        calls.add(new ToolCall(c.id(), c.type() == null ? "function" : c.type(),
            new FunctionCall(c.name(), c.arguments(), null), null));
      }
    }
    String text = a.getText();
    Content content = text == null || (text.isEmpty() && calls != null)
        ? null : Content.text(text);
    return new Message(Role.ASSISTANT, content, null, calls, null, null);
  }

  /**
   * Builds the Spring AI response for a gateway result.
   *
   * @param result the result
   * @param usage the usage metadata to attach (the accumulated one for a tool loop)
   * @return the response
   */
  static ChatResponse response(ChatResult result,
      org.springframework.ai.chat.metadata.Usage usage) {
    List<Generation> generations = new ArrayList<>();
    for (Choice choice : result.response().choices()) {
      generations.add(generation(choice.message(), choice.finishReason(), choice.index(),
          result.response().id()));
    }
    return new ChatResponse(generations, metadata(result, usage));
  }

  /**
   * Returns the Spring AI usage for a gateway result: prompt, completion and total tokens, the
   * gateway's usage as the native usage; empty when no provider work was done.
   *
   * @param result the result
   * @return the usage
   */
  static org.springframework.ai.chat.metadata.Usage usage(ChatResult result) {
    io.pointsman.model.Usage u = result.usage() != null ? result.usage()
        : result.response().usage();
    if (u == null) {
      return new EmptyUsage();
    }
    return new DefaultUsage(toInt(u.promptTokens()), toInt(u.completionTokens()),
        toInt(u.totalTokens()), u);
  }

  private static Integer toInt(long value) {
    return (int) Math.min(Integer.MAX_VALUE, value);
  }

  /**
   * Builds the response metadata: id, model, usage, and the gateway's request id, event id,
   * cost, outcome, cache status and deployment.
   *
   * @param result the result
   * @param usage the usage to attach
   * @return the metadata
   */
  static ChatResponseMetadata metadata(ChatResult result,
      org.springframework.ai.chat.metadata.Usage usage) {
    ChatResponseMetadata.Builder b = ChatResponseMetadata.builder()
        .id(result.response().id() == null ? "" : result.response().id())
        .model(result.response().model() == null ? "" : result.response().model())
        .usage(usage)
        .keyValue(REQUEST_ID, result.requestId())
        .keyValue(EVENT_ID, result.eventId())
        .keyValue(COST_MICROS, result.costMicros())
        .keyValue(COST_ESTIMATED, result.costEstimated())
        .keyValue(OUTCOME, result.outcome().toString())
        .keyValue(CACHE_STATUS, result.cacheStatus().toString());
    if (result.deploymentId() != null) {
      b.keyValue(DEPLOYMENT, result.deploymentId());
    }
    return b.build();
  }

  /**
   * Builds one generation.
   *
   * @param message the gateway message, or {@code null}
   * @param finishReason the finish reason, or {@code null}
   * @param index the choice index
   * @param id the response id, or {@code null}
   * @return the generation
   */
  static Generation generation(Message message, String finishReason, int index, String id) {
    String text = message == null || message.content() == null ? "" : message.content().asText();
    List<AssistantMessage.ToolCall> calls = new ArrayList<>();
    if (message != null && message.toolCalls() != null) {
      for (ToolCall c : message.toolCalls()) {
        FunctionCall f = c.function();
        calls.add(new AssistantMessage.ToolCall(c.id(),
            c.type() == null ? "function" : c.type(),
            f == null ? null : f.name(), f == null ? "" : f.arguments()));
      }
    }
    Map<String, Object> properties = new HashMap<>();
    properties.put("index", index);
    properties.put("finishReason", finishReason == null ? "" : finishReason);
    if (id != null) {
      properties.put("id", id);
    }
    AssistantMessage out = AssistantMessage.builder().content(text).properties(properties)
        .toolCalls(calls).build();
    ChatGenerationMetadata.Builder meta = ChatGenerationMetadata.builder();
    if (finishReason != null) {
      meta.finishReason(finishReason.toUpperCase(java.util.Locale.ROOT));
    }
    return new Generation(out, meta.build());
  }

  /**
   * Maps a gateway failure to Spring AI's exceptions: 429, 500, 502, 503 and 504 are transient
   * (worth a retry), 400, 401, 402, 403 and 404 are not. The message names the status, the
   * deciding stage and rule; the cause is the gateway's exception.
   *
   * @param e the failure
   * @return the Spring AI exception
   */
  static RuntimeException error(PointsmanException e) {
    Status status = e.status();
    String message = status.httpStatus() + " " + status + " at " + e.stage()
        + (e.rule() == null ? "" : " (" + e.rule() + ")") + ": " + e.getMessage();
    return switch (status) {
      case TOO_MANY_REQUESTS, INTERNAL, BAD_GATEWAY, UNAVAILABLE, GATEWAY_TIMEOUT ->
          new TransientAiException(message, e);
      case BAD_REQUEST, UNAUTHORIZED, PAYMENT_REQUIRED, FORBIDDEN, NOT_FOUND ->
          new NonTransientAiException(message, e);
    };
  }

  /** Assembles the tool calls of a stream from their deltas (OpenAI's indexed fragments). */
  static final class ToolCallAssembler {
    private final Map<Integer, String[]> calls = new LinkedHashMap<>();

    /**
     * Adds the tool-call fragments of one delta.
     *
     * @param toolCalls the delta's {@code tool_calls} array, or {@code null}
     */
    void add(JsonNode toolCalls) {
      if (toolCalls == null || !toolCalls.isArray()) {
        return;
      }
      for (JsonNode call : toolCalls) {
        int index = call.path("index").asInt(calls.size());
        String[] c = calls.computeIfAbsent(index, i -> new String[] {null, "function", null, ""});
        if (call.hasNonNull("id")) {
          c[0] = call.get("id").asText();
        }
        if (call.hasNonNull("type")) {
          c[1] = call.get("type").asText();
        }
        JsonNode f = call.path("function");
        if (f.hasNonNull("name")) {
          c[2] = c[2] == null ? f.get("name").asText() : c[2] + f.get("name").asText();
        }
        if (f.hasNonNull("arguments")) {
          c[3] = c[3] + f.get("arguments").asText();
        }
      }
    }

    /**
     * Returns whether any tool call was seen.
     *
     * @return true when a fragment arrived
     */
    boolean isEmpty() {
      return calls.isEmpty();
    }

    /**
     * Returns the assembled tool calls, in index order of arrival.
     *
     * @return the calls
     */
    List<AssistantMessage.ToolCall> calls() {
      List<AssistantMessage.ToolCall> out = new ArrayList<>();
      for (String[] c : calls.values()) {
        out.add(new AssistantMessage.ToolCall(c[0], c[1], c[2], c[3]));
      }
      return out;
    }
  }

  /**
   * Reads a JSON text, for tests of the translation.
   *
   * @param json the text
   * @return the tree
   */
  static JsonNode tree(String json) {
    try {
      return Json.mapper().readTree(json);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
