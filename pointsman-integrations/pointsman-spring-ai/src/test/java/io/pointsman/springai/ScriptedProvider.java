package io.pointsman.springai;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.pointsman.model.ChatChunk;
import io.pointsman.model.ChatRequest;
import io.pointsman.model.ChatResponse;
import io.pointsman.model.Choice;
import io.pointsman.model.ChunkChoice;
import io.pointsman.model.ChunkDelta;
import io.pointsman.model.FunctionCall;
import io.pointsman.model.Message;
import io.pointsman.model.Role;
import io.pointsman.model.ToolCall;
import io.pointsman.model.Usage;
import io.pointsman.spi.ChunkSink;
import io.pointsman.spi.Provider;
import io.pointsman.spi.ProviderCall;
import io.pointsman.spi.ProviderReply;
import io.pointsman.testing.FixtureProvider;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The fixture provider, plus a scripted tool call: a request that offers tools and whose last
 * message is not a tool result is answered with a call of the first tool (arguments scripted);
 * every other request goes to the {@link FixtureProvider}. Records the requests it saw and,
 * for streams, how many chunks the gateway took and whether it refused one (cancelled).
 */
final class ScriptedProvider implements Provider {
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  private final FixtureProvider fixture;
  private final String toolArguments;
  final List<ChatRequest> requests = new CopyOnWriteArrayList<>();
  final AtomicInteger chunksAccepted = new AtomicInteger();
  final AtomicBoolean chunkRefused = new AtomicBoolean();
  final AtomicBoolean streamReturned = new AtomicBoolean();

  ScriptedProvider(FixtureProvider fixture, String toolArguments) {
    this.fixture = fixture;
    this.toolArguments = toolArguments;
  }

  private static boolean wantsTool(ChatRequest request) {
    if (request.tools() == null || request.tools().isEmpty()) {
      return false;
    }
    List<Message> messages = request.messages();
    return messages.get(messages.size() - 1).role() != Role.TOOL;
  }

  private static String toolName(ChatRequest request) {
    return request.tools().get(0).function().get("name").asText();
  }

  @Override
  public ProviderReply send(ProviderCall call) {
    ChatRequest request = call.request();
    requests.add(request);
    if (!wantsTool(request)) {
      return fixture.send(call);
    }
    Usage usage = FixtureProvider.usageFor(request, toolArguments);
    ToolCall toolCall = new ToolCall("call-" + requests.size(), "function",
        new FunctionCall(toolName(request), toolArguments, null), null);
    Message message = new Message(Role.ASSISTANT, null, null, List.of(toolCall), null, null);
    ChatResponse response = new ChatResponse("scripted-" + call.eventId(), "chat.completion", 0,
        request.model(), List.of(new Choice(0, message, "tool_calls", null, null)), usage, null,
        null);
    return new ProviderReply(response, usage, false);
  }

  @Override
  public ProviderReply stream(ProviderCall call, ChunkSink sink) {
    ChatRequest request = call.request();
    requests.add(request);
    ChunkSink counting = chunk -> {
      boolean accepted = sink.accept(chunk);
      if (accepted) {
        chunksAccepted.incrementAndGet();
      } else {
        chunkRefused.set(true);
      }
      return accepted;
    };
    try {
      if (!wantsTool(request)) {
        return fixture.stream(call, counting);
      }
      // The tool call in two fragments, as OpenAI streams one: id and name, then arguments.
      String id = "call-" + requests.size();
      int half = toolArguments.length() / 2;
      ArrayNode first = NODES.arrayNode();
      ObjectNode a = first.addObject().put("index", 0).put("id", id).put("type", "function");
      a.putObject("function").put("name", toolName(request))
          .put("arguments", toolArguments.substring(0, half));
      ArrayNode second = NODES.arrayNode();
      second.addObject().put("index", 0).putObject("function")
          .put("arguments", toolArguments.substring(half));
      String chunkId = "scripted-" + call.eventId();
      counting.accept(new ChatChunk(chunkId, "chat.completion.chunk", 0, request.model(),
          List.of(new ChunkChoice(0, new ChunkDelta(Role.ASSISTANT, null, first, null), null,
              null)), null, null));
      counting.accept(new ChatChunk(chunkId, "chat.completion.chunk", 0, request.model(),
          List.of(new ChunkChoice(0, new ChunkDelta(null, null, second, null), "tool_calls",
              null)), null, null));
      Usage usage = FixtureProvider.usageFor(request, toolArguments);
      ToolCall toolCall = new ToolCall(id, "function",
          new FunctionCall(toolName(request), toolArguments, null), null);
      Message message = new Message(Role.ASSISTANT, null, null, List.of(toolCall), null, null);
      ChatResponse response = new ChatResponse(chunkId, "chat.completion", 0, request.model(),
          List.of(new Choice(0, message, "tool_calls", null, null)), usage, null, null);
      return new ProviderReply(response, usage, false);
    } finally {
      streamReturned.set(true);
    }
  }
}
