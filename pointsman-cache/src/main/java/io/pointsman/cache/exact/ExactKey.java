package io.pointsman.cache.exact;

import io.pointsman.model.ChatRequest;
import io.pointsman.model.Content;
import io.pointsman.model.Message;
import io.pointsman.spi.CacheQuery;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The in-process key of the exact L1: the tenant scope ({@link CacheQuery#tenant()}: org and
 * team, or the key when the identity has neither), the model that answered
 * ({@link CacheQuery#keyModel()}) and the normalized request itself, so two
 * keys are equal only when the requests are structurally equal (no digest collision can ever
 * serve one tenant's entry to another). The normalization is the one of core's canonical key:
 * canonical model name; {@code stream}, {@code stream_options}, {@code user} and
 * {@code metadata} dropped; {@code top_p} 1 and {@code n} 1 as absent; record, list, map and
 * JSON-node equality ignore key order where the canonical form does.
 *
 * <p>The hash is computed once, over the UTF-8 bytes of every text eight bytes at a time with a
 * per-process random seed: {@code String.hashCode} on a fresh 4 KiB prompt costs microseconds on
 * Java 17, and a seeded hash keeps crafted collisions from piling entries into one bucket.
 * Fields that are rarely large (tools, response format, extra fields) use their own
 * {@code hashCode}. Immutable.
 */
final class ExactKey {
  private static final long SEED = new SecureRandom().nextLong();
  private static final VarHandle LONGS =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
  private static final long M1 = 0x9E3779B97F4A7C15L;
  private static final long M2 = 0xC2B2AE3D27D4EB4FL;

  private final String tenant;
  private final ChatRequest normalized;
  private final int hash;

  private ExactKey(String tenant, ChatRequest normalized, int hash) {
    this.tenant = tenant;
    this.normalized = normalized;
    this.hash = hash;
  }

  static ExactKey of(CacheQuery query) {
    String tenant = query.tenant();
    ChatRequest r = query.request();
    String model = query.keyModel();
    ChatRequest normalized = new ChatRequest(model, r.messages(), r.tools(), r.toolChoice(),
        r.temperature(), r.topP() != null && r.topP() == 1.0 ? null : r.topP(), r.maxTokens(),
        r.maxCompletionTokens(), r.stop(), r.seed(), r.responseFormat(), null, null, null, null,
        r.n() != null && r.n() == 1 ? null : r.n(), r.extra());
    long h = SEED;
    h = mix(h, text(tenant));
    h = mix(h, text(model));
    List<Message> messages = r.messages() == null ? List.of() : r.messages();
    for (Message m : messages) {
      if (m == null) {
        h = mix(h, 0);
        continue;
      }
      h = mix(h, m.role() == null ? 1 : m.role().ordinal() + 2);
      h = mix(h, m.content() instanceof Content.Text t ? text(t.text())
          : Objects.hashCode(m.content()));
      h = mix(h, text(m.name()));
      h = mix(h, Objects.hashCode(m.toolCalls()));
      h = mix(h, text(m.toolCallId()));
      h = mix(h, m.extra().hashCode());
    }
    h = mix(h, Objects.hash(normalized.tools(), normalized.toolChoice(),
        normalized.temperature(), normalized.topP(), normalized.maxTokens(),
        normalized.maxCompletionTokens(), normalized.stop(), normalized.seed(),
        normalized.responseFormat(), normalized.n(), normalized.extra()));
    return new ExactKey(tenant, normalized, (int) (h ^ (h >>> 32)));
  }

  private static long mix(long h, long v) {
    long x = (h ^ v) * M1;
    return x ^ (x >>> 29);
  }

  /** A seeded hash of a text's UTF-8 bytes; distinct values for null and empty. */
  private static long text(String s) {
    if (s == null) {
      return 0x5bd1e995L;
    }
    byte[] b = s.getBytes(StandardCharsets.UTF_8);
    long a0 = SEED ^ b.length;
    long a1 = M2;
    long a2 = M1 ^ SEED;
    long a3 = ~SEED;
    int i = 0;
    // Four independent lanes, so the multiplies overlap instead of waiting on each other.
    for (; i + 32 <= b.length; i += 32) {
      a0 = (a0 ^ (long) LONGS.get(b, i)) * M1;
      a1 = (a1 ^ (long) LONGS.get(b, i + 8)) * M1;
      a2 = (a2 ^ (long) LONGS.get(b, i + 16)) * M1;
      a3 = (a3 ^ (long) LONGS.get(b, i + 24)) * M1;
      a0 ^= a0 >>> 31;
      a1 ^= a1 >>> 31;
      a2 ^= a2 >>> 31;
      a3 ^= a3 >>> 31;
    }
    long tail = 0;
    for (int shift = 0; i < b.length; i++, shift = (shift + 8) & 63) {
      tail ^= (b[i] & 0xFFL) << shift;
      if (shift == 56) {
        a0 = (a0 ^ tail) * M2;
        tail = 0;
      }
    }
    long h = (a0 ^ tail) * M2;
    h = (h ^ Long.rotateLeft(a1, 17)) * M1;
    h = (h ^ Long.rotateLeft(a2, 31)) * M2;
    h = (h ^ Long.rotateLeft(a3, 47)) * M1;
    return h ^ (h >>> 32);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof ExactKey k && hash == k.hash && tenant.equals(k.tenant)
        && normalized.equals(k.normalized);
  }

  @Override
  public int hashCode() {
    return hash;
  }

  @Override
  public String toString() {
    List<String> parts = new ArrayList<>();
    parts.add(tenant);
    parts.add(normalized.model());
    return "ExactKey" + parts + "#" + Integer.toHexString(hash);
  }
}
