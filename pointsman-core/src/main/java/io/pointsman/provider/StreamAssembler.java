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
 * fragments merged by index, finish reasons, and the usage when a chunk carries it. The
 * assembled content is bounded: a chunk that would take it beyond the limit is refused (see
 * {@link #add}), so that a stream of any length holds at most the limit in memory. Not
 * thread-safe: one per stream.
 */
final class StreamAssembler {
  /** The default limit of the assembled content, in characters: 16 Mi. */
  static final int DEFAULT_MAX_CONTENT = 16 * 1024 * 1024;
  /**
   * What each new choice and each new tool call counts toward the limit on top of its
   * characters (roughly the memory of its entry), so that a stream of empty entries is bounded
   * too.
   */
  static final int ENTRY_ALLOWANCE = 64;
  private final long maxContent;
  /** The content assembled so far, in characters plus entry allowances. */
  private long size;
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

  /** An assembler with the {@linkplain #DEFAULT_MAX_CONTENT default limit}. */
  StreamAssembler() {
    this(DEFAULT_MAX_CONTENT);
  }

  /**
   * An assembler with a limit.
   *
   * @param maxContent the most content to assemble, in characters (text, tool-call ids, types,
   *     names and arguments, plus {@link #ENTRY_ALLOWANCE} per choice and per tool call)
   */
  StreamAssembler(long maxContent) {
    this.maxContent = maxContent;
  }

  /**
   * Adds a chunk, unless its content would take the assembled content beyond the limit: then
   * nothing of it is added and the stream should be cut.
   *
   * @return true when added, false when over the limit
   */
  boolean add(ChatChunk chunk) {
    long grow = sizeOf(chunk);
    if (grow > maxContent - size) {
      return false;
    }
    size += grow;
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
    return true;
  }

  /** What the chunk adds to the assembled content; allocates nothing. */
  private long sizeOf(ChatChunk chunk) {
    long n = 0;
    for (ChunkChoice c : chunk.choices()) {
      ChoiceState state = choices.get(c.index());
      if (state == null) {
        n += ENTRY_ALLOWANCE;
      }
      if (c.delta() == null) {
        continue;
      }
      if (c.delta().content() != null) {
        n += c.delta().content().length();
      }
      JsonNode calls = c.delta().toolCalls();
      if (calls != null && calls.isArray()) {
        for (JsonNode call : calls) {
          JsonNode index = call.get("index");
          if (state == null || index == null || !state.tools.containsKey(index.asInt())) {
            n += ENTRY_ALLOWANCE;
          }
          n += length(call.get("id")) + length(call.get("type"));
          JsonNode fn = call.get("function");
          if (fn != null) {
            n += length(fn.get("name")) + length(fn.get("arguments"));
          }
        }
      }
    }
    return n;
  }

  private static long length(JsonNode node) {
    // What add() appends or keeps: the text, or asText() of another value.
    return node == null || node.isNull() ? 0 : node.isTextual() ? node.textValue().length()
        : node.asText().length();
  }

  /** The content assembled so far, as counted toward the limit. */
  long size() {
    return size;
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
