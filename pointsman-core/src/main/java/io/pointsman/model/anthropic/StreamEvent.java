package io.pointsman.model.anthropic;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.pointsman.model.Json;
import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * One Server-Sent Event of a Messages API stream: its name ({@code message_start},
 * {@code content_block_start}, {@code content_block_delta}, {@code content_block_stop},
 * {@code message_delta}, {@code message_stop}, {@code ping}, {@code error}) and its data, whose
 * {@code type} is the same name.
 *
 * @param event the event name
 * @param data the event's JSON data
 */
public record StreamEvent(String event, ObjectNode data) {
  /**
   * Validates the event.
   *
   * @param event the event name
   * @param data the event's JSON data
   * @throws NullPointerException if an argument is null
   */
  public StreamEvent {
    Objects.requireNonNull(event, "event");
    Objects.requireNonNull(data, "data");
  }

  /**
   * Returns the event as it goes on the wire: {@code event: NAME}, {@code data: JSON} and a
   * blank line.
   *
   * @return UTF-8 bytes
   */
  public byte[] sse() {
    return ("event: " + event + "\ndata: " + Json.write(data) + "\n\n")
        .getBytes(StandardCharsets.UTF_8);
  }
}
