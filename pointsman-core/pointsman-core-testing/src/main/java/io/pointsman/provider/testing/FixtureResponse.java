package io.pointsman.provider.testing;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Iterator;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.function.LongFunction;

/**
 * A scripted response of {@link HttpFixtureServer}. A plain response is sent with a
 * {@code content-length}; an event stream is sent with chunked transfer encoding, one chunk per
 * frame, so that frame boundaries, delays and cuts are exact. Immutable.
 */
public final class FixtureResponse {
  /** What the server does with the connection after the frames it sends. */
  enum Ending {
    COMPLETE, CUT, HANG
  }

  final int status;
  final Map<String, String> headers;
  final byte[] body;
  /** The frames of an event stream, null for a plain body; made lazily when generated. */
  final Iterable<byte[]> frames;
  final Duration headersDelay;
  final Duration frameDelay;
  final int framesBeforeEnding;
  final Ending ending;

  private FixtureResponse(int status, Map<String, String> headers, byte[] body,
      Iterable<byte[]> frames, Duration headersDelay, Duration frameDelay, int framesBeforeEnding,
      Ending ending) {
    this.status = status;
    this.headers = Map.copyOf(headers);
    this.body = body;
    this.frames = frames;
    this.headersDelay = headersDelay;
    this.frameDelay = frameDelay;
    this.framesBeforeEnding = framesBeforeEnding;
    this.ending = ending;
  }

  /**
   * Returns a JSON response.
   *
   * @param status the HTTP status
   * @param json the body
   * @return the response
   * @throws NullPointerException if json is null
   */
  public static FixtureResponse json(int status, String json) {
    return new FixtureResponse(status, Map.of("content-type", "application/json"),
        json.getBytes(StandardCharsets.UTF_8), null, Duration.ZERO, Duration.ZERO,
        Integer.MAX_VALUE, Ending.COMPLETE);
  }

  /**
   * Returns an event-stream response of status 200 whose frames are written one chunk each,
   * exactly as given (include the blank line that ends each event).
   *
   * @param frames the raw frames
   * @return the response
   * @throws NullPointerException if frames is null
   */
  public static FixtureResponse sse(List<String> frames) {
    List<byte[]> raw = new ArrayList<>();
    for (String f : frames) {
      raw.add(f.getBytes(StandardCharsets.UTF_8));
    }
    return new FixtureResponse(200, Map.of("content-type", "text/event-stream"), null,
        List.copyOf(raw), Duration.ZERO, Duration.ZERO, Integer.MAX_VALUE, Ending.COMPLETE);
  }

  /**
   * Returns an event-stream response of status 200 whose frames are made one at a time, as
   * they are written, and written one chunk each: a stream of any length (gigabytes, for
   * memory tests) holds no more than one frame in the server's memory. Each request answered
   * with this response makes its frames anew.
   *
   * @param count how many frames
   * @param frame makes frame {@code i} (from 0) exactly as sent (include the blank line that
   *     ends each event); called on the connection's thread, and may return the same array
   *     each time
   * @return the response
   * @throws NullPointerException if frame is null
   * @throws IllegalArgumentException if count is negative
   */
  public static FixtureResponse sse(long count, LongFunction<byte[]> frame) {
    Objects.requireNonNull(frame, "frame");
    if (count < 0) {
      throw new IllegalArgumentException("count must not be negative: " + count);
    }
    Iterable<byte[]> frames = () -> new Iterator<>() {
      private long next;

      @Override
      public boolean hasNext() {
        return next < count;
      }

      @Override
      public byte[] next() {
        if (next >= count) {
          throw new NoSuchElementException();
        }
        return Objects.requireNonNull(frame.apply(next++), "frame");
      }
    };
    return new FixtureResponse(200, Map.of("content-type", "text/event-stream"), null, frames,
        Duration.ZERO, Duration.ZERO, Integer.MAX_VALUE, Ending.COMPLETE);
  }

  /**
   * Returns a response that resets the connection after reading the request, before any byte
   * of a response: the client cannot know whether the request was processed.
   *
   * @return the response
   */
  public static FixtureResponse resetAfterRequest() {
    return new FixtureResponse(0, Map.of(), new byte[0], null, Duration.ZERO, Duration.ZERO, 0,
        Ending.CUT);
  }

  /**
   * Returns a copy with an added header.
   *
   * @param name the header name
   * @param value the value
   * @return the response
   * @throws NullPointerException if an argument is null
   */
  public FixtureResponse header(String name, String value) {
    Map<String, String> h = new LinkedHashMap<>(headers);
    h.put(Objects.requireNonNull(name, "name"), Objects.requireNonNull(value, "value"));
    return new FixtureResponse(status, h, body, frames, headersDelay, frameDelay,
        framesBeforeEnding, ending);
  }

  /**
   * Returns a copy that waits before sending the status line.
   *
   * @param delay the wait
   * @return the response
   * @throws NullPointerException if delay is null
   */
  public FixtureResponse headersDelay(Duration delay) {
    return new FixtureResponse(status, headers, body, frames, Objects.requireNonNull(delay),
        frameDelay, framesBeforeEnding, ending);
  }

  /**
   * Returns a copy that waits before each stream frame after the first.
   *
   * @param delay the wait
   * @return the response
   * @throws NullPointerException if delay is null
   */
  public FixtureResponse frameDelay(Duration delay) {
    return new FixtureResponse(status, headers, body, frames, headersDelay,
        Objects.requireNonNull(delay), framesBeforeEnding, ending);
  }

  /**
   * Returns a copy that resets the connection after sending this many frames (for a plain
   * response, after the headers and this many body bytes).
   *
   * @param count frames (or bytes) sent before the cut
   * @return the response
   */
  public FixtureResponse cutAfter(int count) {
    return new FixtureResponse(status, headers, body, frames, headersDelay, frameDelay, count,
        Ending.CUT);
  }

  /**
   * Returns a copy that stops sending after this many frames and keeps the connection open
   * and silent until the server closes.
   *
   * @param count frames sent before the silence
   * @return the response
   */
  public FixtureResponse hangAfter(int count) {
    return new FixtureResponse(status, headers, body, frames, headersDelay, frameDelay, count,
        Ending.HANG);
  }
}
