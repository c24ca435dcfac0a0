package io.pointsman.model.anthropic;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.pointsman.model.ChatChunk;
import io.pointsman.model.ChunkChoice;
import io.pointsman.model.ChunkDelta;
import io.pointsman.model.Json;
import io.pointsman.model.Usage;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Translates one gateway stream (its {@link ChatChunk}s, in order) into the events of a
 * Messages API stream, in Anthropic's order: {@code message_start}; for each content block
 * {@code content_block_start}, its {@code content_block_delta}s ({@code text_delta} for text,
 * {@code input_json_delta} for a tool call's arguments) and {@code content_block_stop}; then, at
 * {@link #finish(Usage)}, {@code message_delta} (the stop reason and the usage) and
 * {@code message_stop}.
 *
 * <p>The gateway's chunks say the usage only at the stream's end, so {@code message_start}
 * reports zero tokens and {@code message_delta} the whole usage (input, output and the prompt
 * cache's counts, as Anthropic's newer streams do). Tool calls must arrive one after another,
 * as every OpenAI-compatible server sends them; arguments for a call whose block was already
 * closed are refused ({@link AnthropicException}, {@code api_error}). One per stream; not
 * thread-safe.
 */
public final class AnthropicStream {
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  private final String model;
  private String id;
  private boolean started;
  private boolean finished;
  /** The index of the open block, or -1. */
  private int open = -1;
  private boolean openIsText;
  private int blocks;
  /** The block index of each tool call's index in the chunks. */
  private final Map<Integer, Integer> toolBlocks = new HashMap<>();
  private String finishReason;
  private Usage usage;

  /**
   * Starts a translation.
   *
   * @param model the model to report until a chunk names one, or {@code null}
   */
  public AnthropicStream(String model) {
    this.model = model;
  }

  /**
   * Translates one chunk.
   *
   * @param chunk the chunk
   * @return the events it gives, possibly none
   * @throws AnthropicException when the chunk has no Messages form (a tool call's arguments
   *     after its block was closed)
   */
  public List<StreamEvent> onChunk(ChatChunk chunk) {
    if (finished) {
      throw new IllegalStateException("the stream is finished");
    }
    List<StreamEvent> out = new ArrayList<>();
    if (!started) {
      out.add(messageStart(chunk));
    }
    if (chunk.usage() != null) {
      usage = chunk.usage();
    }
    for (ChunkChoice choice : chunk.choices()) {
      if (choice.index() != 0) {
        continue;
      }
      ChunkDelta delta = choice.delta();
      if (delta != null) {
        if (delta.content() != null && !delta.content().isEmpty()) {
          text(delta.content(), out);
        }
        if (delta.toolCalls() != null && delta.toolCalls().isArray()) {
          for (JsonNode call : delta.toolCalls()) {
            toolCall(call, out);
          }
        }
      }
      if (choice.finishReason() != null) {
        finishReason = choice.finishReason();
      }
    }
    return out;
  }

  /**
   * Ends the stream: closes the open block and gives {@code message_delta} (stop reason and
   * usage, from the chunks' usage or the one given) and {@code message_stop}.
   *
   * @param finalUsage the stream's usage when the chunks did not carry it, or {@code null}
   * @return the closing events
   */
  public List<StreamEvent> finish(Usage finalUsage) {
    if (finished) {
      throw new IllegalStateException("the stream is finished");
    }
    List<StreamEvent> out = new ArrayList<>();
    if (!started) {
      out.add(messageStart(null));
    }
    closeOpen(out);
    finished = true;
    Usage u = usage != null ? usage : finalUsage;
    ObjectNode delta = event("message_delta");
    delta.putObject("delta").put("stop_reason", AnthropicMessages.stopReason(finishReason))
        .putNull("stop_sequence");
    delta.set("usage", Json.mapper().valueToTree(AnthropicMessages.messagesUsage(u)));
    out.add(new StreamEvent("message_delta", delta));
    out.add(new StreamEvent("message_stop", event("message_stop")));
    return out;
  }

  /**
   * Returns a {@code ping} event, which a server may send at any point to keep the connection
   * busy.
   *
   * @return the event
   */
  public static StreamEvent ping() {
    return new StreamEvent("ping", event("ping"));
  }

  private StreamEvent messageStart(ChatChunk chunk) {
    started = true;
    id = chunk == null || chunk.id() == null ? "msg" : chunk.id();
    String name = chunk == null || chunk.model() == null ? model : chunk.model();
    ObjectNode data = event("message_start");
    ObjectNode message = data.putObject("message");
    message.put("id", id).put("type", "message").put("role", "assistant").put("model", name);
    message.putArray("content");
    message.putNull("stop_reason");
    message.putNull("stop_sequence");
    message.set("usage", Json.mapper().valueToTree(new MessagesUsage(0, 0, 0, 0)));
    return new StreamEvent("message_start", data);
  }

  private void text(String text, List<StreamEvent> out) {
    if (open < 0 || !openIsText) {
      closeOpen(out);
      open = blocks++;
      openIsText = true;
      ObjectNode start = event("content_block_start").put("index", open);
      start.putObject("content_block").put("type", "text").put("text", "");
      out.add(new StreamEvent("content_block_start", start));
    }
    ObjectNode delta = event("content_block_delta").put("index", open);
    delta.putObject("delta").put("type", "text_delta").put("text", text);
    out.add(new StreamEvent("content_block_delta", delta));
  }

  private void toolCall(JsonNode call, List<StreamEvent> out) {
    int index = call.path("index").asInt(0);
    JsonNode function = call.path("function");
    Integer block = toolBlocks.get(index);
    if (block == null) {
      closeOpen(out);
      block = blocks++;
      toolBlocks.put(index, block);
      open = block;
      openIsText = false;
      ObjectNode start = event("content_block_start").put("index", block);
      start.putObject("content_block").put("type", "tool_use")
          .put("id", call.path("id").asText(""))
          .put("name", function.path("name").asText(""))
          .putObject("input");
      out.add(new StreamEvent("content_block_start", start));
    }
    String arguments = function.path("arguments").asText("");
    if (arguments.isEmpty()) {
      return;
    }
    if (block != open) {
      throw AnthropicException.untranslatable("the arguments of tool call " + index
          + " continue after another block began; a Messages stream cannot reopen a block");
    }
    ObjectNode delta = event("content_block_delta").put("index", block);
    delta.putObject("delta").put("type", "input_json_delta").put("partial_json", arguments);
    out.add(new StreamEvent("content_block_delta", delta));
  }

  private void closeOpen(List<StreamEvent> out) {
    if (open >= 0) {
      out.add(new StreamEvent("content_block_stop", event("content_block_stop")
          .put("index", open)));
      open = -1;
    }
  }

  private static ObjectNode event(String type) {
    return NODES.objectNode().put("type", type);
  }
}
