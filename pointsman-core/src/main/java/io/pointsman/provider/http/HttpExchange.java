package io.pointsman.provider.http;

import java.io.IOException;
import java.net.http.HttpHeaders;

/**
 * A response whose status and headers are in and whose body is pulled by the reading thread.
 * One thread reads; {@link #abort} may be called from any thread. A slow reader holds back only
 * its own connection: the implementation reads ahead at most a bounded amount.
 */
public interface HttpExchange {
  /**
   * Returns the status code.
   *
   * @return the status code
   */
  int status();

  /**
   * Returns the response headers (for {@code Retry-After} and the rate-limit headers).
   *
   * @return the headers
   */
  HttpHeaders headers();

  /**
   * Reads body bytes as soon as any are there, waiting at most {@code waitNanos} for the
   * first of them.
   *
   * @param into where the bytes go
   * @param offset where in {@code into} they start
   * @param length at most how many (positive)
   * @param waitNanos how long to wait for at least one byte
   * @return how many bytes were read (at least one), or -1 at the end of the body
   * @throws java.net.http.HttpTimeoutException when nothing arrived within the wait (the
   *     exchange stays usable; the caller usually aborts it)
   * @throws IOException when the body broke off or the exchange was aborted
   * @throws InterruptedException when the calling thread was interrupted (the exchange is then
   *     aborted)
   */
  int read(byte[] into, int offset, int length, long waitNanos)
      throws IOException, InterruptedException;

  /**
   * Ends the exchange. When the body was read to its end, the connection goes back to the pool;
   * otherwise it is closed. Idempotent.
   */
  void close();

  /**
   * Closes the exchange's connection at once, from any thread: a read blocked in it fails.
   * Idempotent, and harmless after {@link #close}.
   */
  void abort();
}
