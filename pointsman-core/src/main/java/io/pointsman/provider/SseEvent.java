package io.pointsman.provider;

import java.util.Objects;

/**
 * One server-sent event, as dispatched by {@link SseParser}. Immutable.
 *
 * @param event the event type; {@code "message"} when the stream named none
 * @param data the data lines joined with {@code '\n'}
 * @param id the last event id seen on the stream, or {@code null}
 */
public record SseEvent(String event, String data, String id) {

  /**
   * Validates the fields.
   *
   * @param event the event type; {@code "message"} when the stream named none
   * @param data the data lines joined with {@code '\n'}
   * @param id the last event id seen on the stream, or {@code null}
   * @throws NullPointerException if event or data is null
   */
  public SseEvent {
    Objects.requireNonNull(event, "event");
    Objects.requireNonNull(data, "data");
  }
}
