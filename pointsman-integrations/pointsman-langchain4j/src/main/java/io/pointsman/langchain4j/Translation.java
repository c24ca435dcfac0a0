package io.pointsman.langchain4j;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.agent.tool.ToolSpecification;
import dev.langchain4j.data.image.Image;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.ImageContent;
import dev.langchain4j.data.message.SystemMessage;
import dev.langchain4j.data.message.TextContent;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.exception.UnsupportedFeatureException;
import dev.langchain4j.internal.JsonSchemaElementUtils;
import dev.langchain4j.model.chat.request.ChatRequestParameters;
import dev.langchain4j.model.chat.request.ResponseFormat;
import dev.langchain4j.model.chat.request.ResponseFormatType;
import dev.langchain4j.model.chat.request.ToolChoice;
import dev.langchain4j.model.chat.request.json.JsonObjectSchema;
import dev.langchain4j.model.chat.request.json.JsonSchema;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.model.output.FinishReason;
import dev.langchain4j.model.output.TokenUsage;
import io.pointsman.ChatResult;
import io.pointsman.model.ChatRequest;
import io.pointsman.model.Choice;
import io.pointsman.model.Content;
import io.pointsman.model.ContentPart;
import io.pointsman.model.FunctionCall;
import io.pointsman.model.Message;
import io.pointsman.model.Role;
import io.pointsman.model.Tool;
import io.pointsman.model.ToolCall;
import io.pointsman.model.Usage;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Translates between LangChain4j's chat model and the gateway's OpenAI-shaped one, both ways.
 * Stateless and thread-safe.
 */
final class Translation {
  private static final ObjectMapper MAPPER = new ObjectMapper();
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  private Translation() {}

  /**
   * The gateway request for a LangChain4j request (whose parameters already hold the model's
   * defaults).
   *
   * @param request the LangChain4j request
   * @param fallbackModel the model when the request names none, or {@code null}
   * @param strictJsonSchema whether a JSON schema response format is sent as strict
   * @return the gateway request
   * @throws dev.langchain4j.exception.InvalidRequestException when no model is named
   * @throws UnsupportedFeatureException for content or parameters the gateway cannot carry
   */
  static ChatRequest toGateway(dev.langchain4j.model.chat.request.ChatRequest request,
      String fallbackModel, boolean strictJsonSchema) {
    ChatRequestParameters p = request.parameters();
    String model = p.modelName() != null ? p.modelName() : fallbackModel;
    if (model == null) {
      throw new dev.langchain4j.exception.InvalidRequestException(
          "no model: set defaultModel on the builder or modelName on the request");
    }
    if (p.topK() != null) {
      throw new UnsupportedFeatureException("topK is not part of the Chat Completions request"
          + " the gateway takes");
    }
    ChatRequest.Builder b = ChatRequest.builder().model(model);
    for (ChatMessage m : request.messages()) {
      b.addMessage(toGateway(m));
    }
    if (p.temperature() != null) {
      b.temperature(p.temperature());
    }
    if (p.topP() != null) {
      b.topP(p.topP());
    }
    if (p.maxOutputTokens() != null) {
      b.maxCompletionTokens(p.maxOutputTokens());
    }
    if (p.stopSequences() != null && !p.stopSequences().isEmpty()) {
      ArrayNode stop = NODES.arrayNode();
      p.stopSequences().forEach(stop::add);
      b.stop(stop);
    }
    if (p.frequencyPenalty() != null) {
      b.extra("frequency_penalty", NODES.numberNode(p.frequencyPenalty()));
    }
    if (p.presencePenalty() != null) {
      b.extra("presence_penalty", NODES.numberNode(p.presencePenalty()));
    }
    List<ToolSpecification> specs = p.toolSpecifications();
    if (specs != null && !specs.isEmpty()) {
      List<Tool> tools = new ArrayList<>(specs.size());
      for (ToolSpecification spec : specs) {
        tools.add(toGateway(spec));
      }
      b.tools(tools);
      if (p.toolChoice() != null) {
        b.toolChoice(NODES.textNode(toolChoice(p.toolChoice())));
      }
    }
    JsonNode format = responseFormat(p.responseFormat(), strictJsonSchema);
    if (format != null) {
      b.responseFormat(format);
    }
    return b.build();
  }

  static Message toGateway(ChatMessage message) {
    if (message instanceof SystemMessage s) {
      return Message.system(s.text());
    }
    if (message instanceof UserMessage u) {
      Content content;
      if (u.hasSingleText()) {
        content = Content.text(u.singleText());
      } else {
        List<ContentPart> parts = new ArrayList<>();
        for (dev.langchain4j.data.message.Content c : u.contents()) {
          parts.add(toGateway(c));
        }
        content = Content.parts(parts);
      }
      return new Message(Role.USER, content, u.name(), null, null, null);
    }
    if (message instanceof AiMessage a) {
      List<ToolCall> calls = null;
      if (a.hasToolExecutionRequests()) {
        calls = new ArrayList<>();
        for (ToolExecutionRequest r : a.toolExecutionRequests()) {
          calls.add(new ToolCall(r.id(), "function", new FunctionCall(r.name(),
              r.arguments() == null ? "{}" : r.arguments(), null), null));
        }
      }
      Content content = a.text() == null && calls != null ? null
          : Content.text(a.text() == null ? "" : a.text());
      return new Message(Role.ASSISTANT, content, null, calls, null, null);
    }
    if (message instanceof ToolExecutionResultMessage t) {
      return new Message(Role.TOOL, Content.text(t.text()), null, null, t.id(), null);
    }
    throw new UnsupportedFeatureException("message type " + message.type()
        + " cannot be sent through the gateway");
  }

  static ContentPart toGateway(dev.langchain4j.data.message.Content content) {
    if (content instanceof TextContent t) {
      return ContentPart.text(t.text());
    }
    if (content instanceof ImageContent i) {
      Image image = i.image();
      String url = image.url() != null ? image.url().toString()
          : "data:" + image.mimeType() + ";base64," + image.base64Data();
      ObjectNode imageUrl = NODES.objectNode().put("url", url);
      if (i.detailLevel() != null) {
        imageUrl.put("detail", i.detailLevel().name().toLowerCase(Locale.ROOT));
      }
      return new ContentPart("image_url", null, imageUrl, null);
    }
    throw new UnsupportedFeatureException("content type " + content.type()
        + " cannot be sent through the gateway");
  }

  static Tool toGateway(ToolSpecification spec) {
    ObjectNode function = NODES.objectNode().put("name", spec.name());
    if (spec.description() != null) {
      function.put("description", spec.description());
    }
    boolean strict = Boolean.TRUE.equals(spec.strict());
    JsonObjectSchema parameters = spec.parameters();
    JsonNode schema = parameters == null
        ? NODES.objectNode().put("type", "object").set("properties", NODES.objectNode())
        : MAPPER.valueToTree(JsonSchemaElementUtils.toMap(parameters, strict));
    function.set("parameters", schema);
    if (spec.strict() != null) {
      function.put("strict", strict);
    }
    return new Tool("function", function, null);
  }

  static String toolChoice(ToolChoice choice) {
    switch (choice) {
      case REQUIRED:
        return "required";
      case NONE:
        return "none";
      case AUTO:
      default:
        return "auto";
    }
  }

  static JsonNode responseFormat(ResponseFormat format, boolean strict) {
    if (format == null || format.type() == ResponseFormatType.TEXT) {
      return null;
    }
    JsonSchema schema = format.jsonSchema();
    if (schema == null) {
      return NODES.objectNode().put("type", "json_object");
    }
    ObjectNode jsonSchema = NODES.objectNode();
    jsonSchema.put("name", schema.name() == null ? "response" : schema.name());
    jsonSchema.put("strict", strict);
    jsonSchema.set("schema",
        MAPPER.valueToTree(JsonSchemaElementUtils.toMap(schema.rootElement(), strict)));
    ObjectNode out = NODES.objectNode().put("type", "json_schema");
    out.set("json_schema", jsonSchema);
    return out;
  }

  /**
   * The LangChain4j response for the gateway's result.
   *
   * @param result the result
   * @return the response, with {@link PointsmanChatResponseMetadata}
   */
  static ChatResponse toLangChain4j(ChatResult result) {
    io.pointsman.model.ChatResponse response = result.response();
    Choice choice = response.choices().isEmpty() ? null : response.choices().get(0);
    Message message = choice == null ? null : choice.message();
    Usage usage = result.usage() != null ? result.usage() : response.usage();
    PointsmanChatResponseMetadata metadata = PointsmanChatResponseMetadata.builder()
        .result(result)
        .id(response.id())
        .modelName(response.model())
        .tokenUsage(usage == null ? null : tokenUsage(usage))
        .finishReason(choice == null ? null : finishReason(choice.finishReason()))
        .build();
    return ChatResponse.builder().aiMessage(aiMessage(message)).metadata(metadata).build();
  }

  static AiMessage aiMessage(Message message) {
    String text = message == null || message.content() == null ? null : message.text();
    List<ToolExecutionRequest> requests = new ArrayList<>();
    if (message != null && message.toolCalls() != null) {
      for (ToolCall call : message.toolCalls()) {
        requests.add(toolExecutionRequest(call));
      }
    }
    if (text == null && requests.isEmpty()) {
      text = "";
    }
    return AiMessage.builder().text(text).toolExecutionRequests(requests).build();
  }

  static ToolExecutionRequest toolExecutionRequest(ToolCall call) {
    FunctionCall f = call.function();
    return ToolExecutionRequest.builder().id(call.id())
        .name(f == null ? null : f.name())
        .arguments(f == null || f.arguments() == null ? "{}" : f.arguments())
        .build();
  }

  static TokenUsage tokenUsage(Usage usage) {
    return new TokenUsage(saturatedInt(usage.promptTokens()),
        saturatedInt(usage.completionTokens()), saturatedInt(usage.totalTokens()));
  }

  static FinishReason finishReason(String reason) {
    if (reason == null) {
      return null;
    }
    switch (reason) {
      case "stop":
        return FinishReason.STOP;
      case "length":
        return FinishReason.LENGTH;
      case "tool_calls":
      case "function_call":
        return FinishReason.TOOL_EXECUTION;
      case "content_filter":
        return FinishReason.CONTENT_FILTER;
      default:
        return FinishReason.OTHER;
    }
  }

  private static int saturatedInt(long value) {
    return value > Integer.MAX_VALUE ? Integer.MAX_VALUE : (int) value;
  }
}
