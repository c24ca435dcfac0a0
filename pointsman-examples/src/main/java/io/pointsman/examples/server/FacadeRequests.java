package io.pointsman.examples.server;

import io.pointsman.CacheControl;
import io.pointsman.PointsmanException;
import io.pointsman.model.Json;
import java.util.Locale;
import java.util.UUID;
import java.util.regex.Pattern;

/**
 * How the facade reads what a client's headers ask, independent of the server layer:
 * the request id and the cache control. Stateless and thread-safe.
 */
public final class FacadeRequests {
  private static final Pattern REQUEST_ID = Pattern.compile("[A-Za-z0-9._:-]{1,128}");

  private FacadeRequests() {}

  /**
   * Returns the request id of a call: the client's {@code X-Request-Id} when it is 1 to 128
   * characters of {@code [A-Za-z0-9._:-]}, else a new one.
   *
   * @param header the client's {@code X-Request-Id}, or null
   * @return the id, never null
   */
  public static String requestId(String header) {
    if (header != null && REQUEST_ID.matcher(header).matches()) {
      return header;
    }
    return "req-" + UUID.randomUUID();
  }

  /**
   * Returns the cache control a call asks for. {@code X-Cache-Control} takes {@code no-cache}
   * (skip reading the cache, still store) or {@code no-store} (neither), and refuses anything
   * else. Without it, the standard {@code Cache-Control} request header is read: its
   * {@code no-store} directive wins over {@code no-cache}, and other directives
   * ({@code max-age=0}, {@code no-transform}, …) are ignored.
   *
   * @param xCacheControl the {@code X-Cache-Control} header, or null
   * @param cacheControl the standard {@code Cache-Control} header, or null
   * @return the cache control, or null for the default
   * @throws PointsmanException with status 400 when {@code X-Cache-Control} is not one of its
   *     values
   */
  public static CacheControl cacheControl(String xCacheControl, String cacheControl) {
    if (xCacheControl != null) {
      switch (xCacheControl.trim().toLowerCase(Locale.ROOT)) {
        case "no-cache" -> {
          return CacheControl.NO_CACHE;
        }
        case "no-store" -> {
          return CacheControl.NO_STORE;
        }
        case "", "default" -> {
          return null;
        }
        default -> throw PointsmanException.badRequest("facade",
            "X-Cache-Control must be no-cache or no-store, not "
            + Json.quoteForMessage(xCacheControl));
      }
    }
    if (cacheControl == null) {
      return null;
    }
    CacheControl found = null;
    for (String directive : cacheControl.split(",")) {
      String d = directive.trim().toLowerCase(Locale.ROOT);
      if (d.equals("no-store")) {
        return CacheControl.NO_STORE;
      }
      if (d.equals("no-cache")) {
        found = CacheControl.NO_CACHE;
      }
    }
    return found;
  }
}
