package io.pointsman.provider;

import com.fasterxml.jackson.databind.JsonNode;
import io.pointsman.model.ChatChunk;
import io.pointsman.model.ChatResponse;
import io.pointsman.model.ChunkChoice;
import io.pointsman.model.Choice;
import io.pointsman.model.Content;
import io.pointsman.model.FunctionCall;
import io.pointsman.model.Message;
import io.pointsman.model.Role;
import io.pointsman.model.ToolCall;
import io.pointsman.model.Usage;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Assembles OpenAI-shaped stream chunks into the complete response: text per choice, tool-call
 * fragments merged by index, finish reasons, and the usage when a chunk carries it. Not
 * thread-safe: one per stream.
 */
final class StreamAssembler {
  private String id;
  private String model;
  private long created;
  private Usage usage;
  private final Map<Integer, ChoiceState> choices = new TreeMap<>();

  private static final class ChoiceState {
    final StringBuilder text = new StringBuilder();
    String finishReason;
    final Map<Integer, ToolState> tools = new TreeMap<>();
  }

  private static final class ToolState {
    String id;
    String type;
    String name;
    final StringBuilder arguments = new StringBuilder();
  }

  void add(ChatChunk chunk) {
    if (id == null && chunk.id() != null) {
      id = chunk.id();
    }
    if (model == null && chunk.model() != null) {
      model = chunk.model();
    }
    if (created == 0) {
      created = chunk.created();
    }
    if (chunk.usage() != null) {
      usage = chunk.usage();
    }
    for (ChunkChoice c : chunk.choices()) {
      ChoiceState state = choices.computeIfAbsent(c.index(), k -> new ChoiceState());
      if (c.finishReason() != null) {
        state.finishReason = c.finishReason();
      }
      if (c.delta() == null) {
        continue;
      }
      if (c.delta().content() != null) {
        state.text.append(c.delta().content());
      }
      JsonNode calls = c.delta().toolCalls();
      if (calls != null && calls.isArray()) {
        for (JsonNode call : calls) {
          int index = call.path("index").asInt(state.tools.size());
          ToolState tool = state.tools.computeIfAbsent(index, k -> new ToolState());
          if (call.hasNonNull("id")) {
            tool.id = call.get("id").asText();
          }
          if (call.hasNonNull("type")) {
            tool.type = call.get("type").asText();
          }
          JsonNode fn = call.get("function");
          if (fn != null) {
            if (fn.hasNonNull("name")) {
              tool.name = fn.get("name").asText();
            }
            if (fn.hasNonNull("arguments")) {
              tool.arguments.append(fn.get("arguments").asText());
            }
          }
        }
      }
    }
  }

  boolean hasOutput() {
    return !choices.isEmpty();
  }

  Usage usage() {
    return usage;
  }

  ChatResponse response(String fallbackModel, long fallbackCreated) {
    List<Choice> out = new ArrayList<>();
    if (choices.isEmpty()) {
      choices.put(0, new ChoiceState());
    }
    for (Map.Entry<Integer, ChoiceState> e : choices.entrySet()) {
      ChoiceState s = e.getValue();
      List<ToolCall> tools = null;
      if (!s.tools.isEmpty()) {
        tools = new ArrayList<>();
        for (ToolState t : s.tools.values()) {
          tools.add(new ToolCall(t.id, t.type == null ? "function" : t.type,
              new FunctionCall(t.name, t.arguments.toString(), null), null));
        }
      }
      Content content = s.text.length() == 0 && tools != null ? null
          : Content.text(s.text.toString());
      out.add(new Choice(e.getKey(), new Message(Role.ASSISTANT, content, null, tools, null,
          null), s.finishReason, null, null));
    }
    return new ChatResponse(id == null ? "chatcmpl-stream" : id, "chat.completion",
        created == 0 ? fallbackCreated : created, model == null ? fallbackModel : model, out,
        usage, null, null);
  }
}
