package io.pointsman.guardrail;

import io.pointsman.PointsmanException;
import io.pointsman.Stages;
import io.pointsman.Status;
import io.pointsman.model.ChatRequest;
import io.pointsman.model.Content;
import io.pointsman.model.ContentPart;
import io.pointsman.model.Message;
import io.pointsman.model.Role;
import io.pointsman.model.ToolCall;
import io.pointsman.spi.Identity;
import io.pointsman.spi.InputGuardrail;
import java.util.HashSet;
import java.util.Set;

/**
 * The default input guardrail: bounds on message count, per-message and total UTF-8 bytes,
 * role order (a tool message must answer an earlier assistant tool call), and text encoding
 * (no NUL characters, no unpaired UTF-16 surrogates). Every refusal is a 400 naming its rule:
 * {@code bounds.messages}, {@code bounds.message_bytes}, {@code bounds.total_bytes},
 * {@code bounds.role_order}, {@code bounds.encoding}. Immutable and thread-safe.
 */
public final class MessageBoundsGuardrail implements InputGuardrail {
  private final int maxMessages;
  private final long maxMessageBytes;
  private final long maxTotalBytes;

  private MessageBoundsGuardrail(int maxMessages, long maxMessageBytes, long maxTotalBytes) {
    this.maxMessages = maxMessages;
    this.maxMessageBytes = maxMessageBytes;
    this.maxTotalBytes = maxTotalBytes;
  }

  /**
   * Returns the guardrail with default bounds: 1,000 messages, 1 MiB per message, 4 MiB in
   * total.
   *
   * @return the guardrail
   */
  public static MessageBoundsGuardrail ofDefaults() {
    return of(1_000, 1 << 20, 4 << 20);
  }

  /**
   * Returns the guardrail with custom bounds.
   *
   * @param maxMessages the most messages in one request
   * @param maxMessageBytes the most UTF-8 bytes of text in one message
   * @param maxTotalBytes the most UTF-8 bytes of text in the request
   * @return the guardrail
   * @throws IllegalArgumentException if a bound is not positive
   */
  public static MessageBoundsGuardrail of(int maxMessages, long maxMessageBytes,
      long maxTotalBytes) {
    if (maxMessages < 1 || maxMessageBytes < 1 || maxTotalBytes < 1) {
      throw new IllegalArgumentException("bounds must be positive");
    }
    return new MessageBoundsGuardrail(maxMessages, maxMessageBytes, maxTotalBytes);
  }

  @Override
  public ChatRequest check(Identity identity, ChatRequest request) {
    if (request.messages().size() > maxMessages) {
      throw block("bounds.messages", request.messages().size() + " messages exceed the limit of "
          + maxMessages);
    }
    long total = 0;
    Set<String> openCalls = new HashSet<>();
    int index = 0;
    for (Message m : request.messages()) {
      long bytes = textBytes(m, index);
      if (bytes > maxMessageBytes) {
        throw block("bounds.message_bytes", "message " + index + " has " + bytes
            + " bytes of text, over the limit of " + maxMessageBytes);
      }
      total += bytes;
      if (total > maxTotalBytes) {
        throw block("bounds.total_bytes", "the request has over " + maxTotalBytes
            + " bytes of text");
      }
      if (m.role() == Role.ASSISTANT && m.toolCalls() != null) {
        for (ToolCall call : m.toolCalls()) {
          if (call.id() != null) {
            openCalls.add(call.id());
          }
        }
      }
      if (m.role() == Role.TOOL && (m.toolCallId() == null || !openCalls.contains(
          m.toolCallId()))) {
        throw block("bounds.role_order", "message " + index
            + " is a tool result that answers no earlier assistant tool call");
      }
      index++;
    }
    return request;
  }

  private static long textBytes(Message m, int index) {
    long bytes = 0;
    Content content = m.content();
    if (content instanceof Content.Text text) {
      bytes += checked(text.text(), index);
    } else if (content instanceof Content.Parts parts) {
      for (ContentPart part : parts.parts()) {
        bytes += checked(part.text(), index);
      }
    }
    if (m.toolCalls() != null) {
      for (ToolCall call : m.toolCalls()) {
        if (call.function() != null) {
          bytes += checked(call.function().arguments(), index);
        }
      }
    }
    return bytes;
  }

  private static long checked(String text, int index) {
    if (text == null) {
      return 0;
    }
    // The UTF-8 length is counted in the same pass (the text has no unpaired surrogates once
    // it passes, so it is what TokenBounds.utf8Length returns) and without encoding a copy.
    long bytes = 0;
    int length = text.length();
    for (int i = 0; i < length; i++) {
      char c = text.charAt(i);
      if (c < 0x80) {
        if (c == 0) {
          throw block("bounds.encoding", "message " + index + " contains a NUL character");
        }
        bytes++;
        continue;
      }
      if (c < 0x800) {
        bytes += 2;
        continue;
      }
      if (Character.isHighSurrogate(c)) {
        if (i + 1 < length && Character.isLowSurrogate(text.charAt(i + 1))) {
          i++;
          bytes += 4;
          continue;
        }
        throw block("bounds.encoding", "message " + index + " contains an unpaired surrogate");
      }
      if (Character.isLowSurrogate(c)) {
        throw block("bounds.encoding", "message " + index + " contains an unpaired surrogate");
      }
      bytes += 3;
    }
    return bytes;
  }

  private static PointsmanException block(String rule, String message) {
    return PointsmanException.denied(Status.BAD_REQUEST, Stages.GUARDRAIL_INPUT, rule, message);
  }
}
