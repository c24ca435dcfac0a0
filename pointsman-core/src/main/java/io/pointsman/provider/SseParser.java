package io.pointsman.provider;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * An incremental parser of {@code text/event-stream} bodies, following the WHATWG
 * server-sent events algorithm: bytes arrive in arbitrary pieces (a frame, a line or even a
 * UTF-8 character may be split across pieces), lines end with CR, LF or CRLF (a CR at the end of
 * one piece and an LF at the start of the next are one line end), lines starting with
 * {@code ':'} are comments (keep-alives), several {@code data:} lines join with {@code '\n'},
 * and an empty line dispatches the event. An event without data is not dispatched. A line
 * longer than the configured bound, or an event whose data (its {@code data:} lines joined)
 * would be longer, fails the parse rather than growing without limit.
 *
 * <pre>{@code
 * SseParser parser = new SseParser(event -> handle(event.data()));
 * parser.feed(bytes, 0, n);   // as often as bytes arrive
 * parser.finish();            // at the end of the body
 * }</pre>
 *
 * <p>Not thread-safe: one parser serves one stream, fed from one thread at a time.
 */
public final class SseParser {
  /** The default bound of one line, in bytes (and of one event's data, in characters). */
  public static final int DEFAULT_MAX_LINE_BYTES = 4 * 1024 * 1024;

  private final Consumer<SseEvent> listener;
  private final int maxLineBytes;
  private byte[] line = new byte[256];
  private int lineLength;
  private boolean pendingCr;
  private boolean atStart = true;
  private final StringBuilder data = new StringBuilder();
  private boolean hasData;
  private String eventType;
  private String lastId;

  /**
   * Creates a parser with the default line bound.
   *
   * @param listener receives each dispatched event, on the feeding thread
   * @throws NullPointerException if listener is null
   */
  public SseParser(Consumer<SseEvent> listener) {
    this(listener, DEFAULT_MAX_LINE_BYTES);
  }

  /**
   * Creates a parser.
   *
   * @param listener receives each dispatched event, on the feeding thread
   * @param maxLineBytes the longest line accepted, in bytes, and the longest data of one
   *     event, in characters
   * @throws NullPointerException if listener is null
   * @throws IllegalArgumentException if maxLineBytes is below 1
   */
  public SseParser(Consumer<SseEvent> listener, int maxLineBytes) {
    this.listener = Objects.requireNonNull(listener, "listener");
    if (maxLineBytes < 1) {
      throw new IllegalArgumentException("maxLineBytes must be positive: " + maxLineBytes);
    }
    this.maxLineBytes = maxLineBytes;
  }

  /**
   * Feeds the bytes remaining in a buffer, consuming them.
   *
   * @param buffer the bytes
   * @throws SseException if a line or an event's data exceeds the bound
   */
  public void feed(ByteBuffer buffer) {
    if (buffer.hasArray()) {
      int n = buffer.remaining();
      feed(buffer.array(), buffer.arrayOffset() + buffer.position(), n);
      buffer.position(buffer.position() + n);
    } else {
      byte[] copy = new byte[buffer.remaining()];
      buffer.get(copy);
      feed(copy, 0, copy.length);
    }
  }

  /**
   * Feeds a piece of the body.
   *
   * @param bytes the bytes
   * @param offset where the piece starts
   * @param length how many bytes
   * @throws SseException if a line or an event's data exceeds the bound
   * @throws IndexOutOfBoundsException if the range is outside the array
   */
  public void feed(byte[] bytes, int offset, int length) {
    Objects.checkFromIndexSize(offset, length, bytes.length);
    int end = offset + length;
    int runStart = offset;
    for (int i = offset; i < end; i++) {
      byte b = bytes[i];
      if (pendingCr) {
        pendingCr = false;
        if (b == '\n') {
          // The LF of a CRLF whose CR already ended the line, possibly in an earlier piece.
          runStart = i + 1;
          continue;
        }
      }
      if (b == '\n' || b == '\r') {
        append(bytes, runStart, i - runStart);
        runStart = i + 1;
        pendingCr = b == '\r';
        endLine();
      }
    }
    append(bytes, runStart, end - runStart);
  }

  /**
   * Ends the body. Per the specification an event not followed by an empty line is discarded.
   * The parser may be fed again afterwards, as a new stream.
   */
  public void finish() {
    lineLength = 0;
    pendingCr = false;
    atStart = true;
    data.setLength(0);
    hasData = false;
    eventType = null;
  }

  private void append(byte[] bytes, int from, int n) {
    if (n <= 0) {
      return;
    }
    if (lineLength + n > maxLineBytes) {
      throw new SseException("an event-stream line exceeds " + maxLineBytes + " bytes");
    }
    if (lineLength + n > line.length) {
      line = java.util.Arrays.copyOf(line, Math.min(maxLineBytes,
          Math.max(line.length * 2, lineLength + n)));
    }
    System.arraycopy(bytes, from, line, lineLength, n);
    lineLength += n;
  }

  private void endLine() {
    int start = 0;
    if (atStart) {
      atStart = false;
      // A UTF-8 byte order mark may open the stream.
      if (lineLength >= 3 && (line[0] & 0xff) == 0xEF && (line[1] & 0xff) == 0xBB
          && (line[2] & 0xff) == 0xBF) {
        start = 3;
      }
    }
    int n = lineLength - start;
    lineLength = 0;
    if (n == 0) {
      dispatch();
      return;
    }
    if (line[start] == ':') {
      return;
    }
    int colon = -1;
    for (int i = start; i < start + n; i++) {
      if (line[i] == ':') {
        colon = i;
        break;
      }
    }
    String field;
    String value;
    if (colon < 0) {
      field = ascii(start, n);
      value = "";
    } else {
      field = ascii(start, colon - start);
      int v = colon + 1;
      if (v < start + n && line[v] == ' ') {
        v++;
      }
      value = new String(line, v, start + n - v, StandardCharsets.UTF_8);
    }
    switch (field) {
      case "data":
        if ((long) data.length() + value.length() + (hasData ? 1 : 0) > maxLineBytes) {
          throw new SseException("an event's data exceeds " + maxLineBytes + " characters");
        }
        if (hasData) {
          data.append('\n');
        }
        data.append(value);
        hasData = true;
        break;
      case "event":
        eventType = value;
        break;
      case "id":
        if (value.indexOf('\0') < 0) {
          lastId = value;
        }
        break;
      default:
        // "retry" and unknown fields do not concern a client that never reconnects.
        break;
    }
  }

  private String ascii(int from, int n) {
    return new String(line, from, n, StandardCharsets.UTF_8);
  }

  private void dispatch() {
    if (!hasData) {
      eventType = null;
      return;
    }
    SseEvent event = new SseEvent(eventType == null || eventType.isEmpty() ? "message"
        : eventType, data.toString(), lastId);
    data.setLength(0);
    hasData = false;
    eventType = null;
    listener.accept(event);
  }
}
