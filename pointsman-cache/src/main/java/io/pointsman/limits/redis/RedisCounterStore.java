package io.pointsman.limits.redis;

import io.pointsman.spi.Counter;
import io.pointsman.spi.CounterGrant;
import io.pointsman.spi.CounterReading;
import io.pointsman.spi.CounterStore;
import io.pointsman.spi.CounterStoreUnavailableException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.LongAdder;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.exceptions.JedisException;
import redis.clients.jedis.exceptions.JedisNoScriptException;

/**
 * A {@link CounterStore} in Redis, shared by every gateway instance that points at the same
 * server and key prefix. Each operation is one Lua script, one round trip: {@link #acquire}
 * checks every counter of a reservation and takes all of them or none, atomically (a script
 * runs alone on the server), so instances never overspend a shared budget between them.
 *
 * <p>Keys are {@code <prefix>{<hashTag>}:<counter key>}. Every key carries the same hash tag, so
 * on Redis Cluster all counters live in one slot and a reservation across key, team, org, tag
 * and model scopes stays one atomic script; the price is that one shard serves all limits of
 * one hash tag (use separate tags for independent tenants). Layout: a budget is a hash
 * ({@code s} spent, {@code h} held) that expires a day after its period ends; a concurrency
 * limit is a sorted set of reservation ids scored by lease expiry, so a slot whose holder died
 * frees itself; a rate is a string holding the GCRA theoretical arrival time in microseconds,
 * expiring when the rate has fully replenished.
 *
 * <p>Times come from the caller's clock (the gateway's injected clock), not from Redis; expiry
 * is set relative to it, so a skewed server clock only shifts when idle keys disappear.
 * Instances sharing a store should keep their clocks in sync (NTP). Numbers are exact up to
 * {@link Counter#MAX_VALUE} (Lua numbers are doubles).
 *
 * <p>When Redis cannot be reached every method throws {@link CounterStoreUnavailableException};
 * the limiter decides whether that fails closed or open.
 *
 * <p>Thread-safe (the client's pool is).
 *
 * <pre>{@code
 * RedisCounterStore store = RedisCounterStore.builder(new JedisPooled("redis", 6379))
 *     .keyPrefix("prod:").hashTag("limits").build();
 * CounterLimiter limiter = CounterLimiter.builder(store)
 *     .budget(Scope.org("acme"), Period.monthly(ZoneId.of("UTC")), 100_000_000).build();
 * }</pre>
 */
public final class RedisCounterStore implements CounterStore {
  private static final long GRACE_MILLIS = 86_400_000L;

  /**
   * Checks every counter, then takes all of them, or none. KEYS: one per counter. ARGV: now (ms),
   * reservation id, then per counter: type (b, c, r), limit, amount, horizon. Returns
   * {denied index or 0, remaining_1, reset_1, ...}.
   */
  static final String ACQUIRE = """
      local now = tonumber(ARGV[1])
      local id = ARGV[2]
      local nowus = now * 1000
      local out = {0}
      local nts = {}
      for i = 1, #KEYS do
        local a = 2 + (i - 1) * 4
        local t = ARGV[a + 1]
        local limit = tonumber(ARGV[a + 2])
        local amount = tonumber(ARGV[a + 3])
        local horizon = tonumber(ARGV[a + 4])
        local rem, reset, deny
        if t == 'b' then
          local v = redis.call('HMGET', KEYS[i], 's', 'h')
          local avail = limit - (tonumber(v[1]) or 0) - (tonumber(v[2]) or 0)
          reset = horizon
          if amount > avail then deny = true; rem = avail else rem = avail - amount end
        elseif t == 'c' then
          local inflight = redis.call('ZCOUNT', KEYS[i], '(' .. ARGV[1], '+inf')
          reset = 0
          if inflight + 1 > limit then deny = true; rem = 0 else rem = limit - inflight - 1 end
        else
          local interval = math.ceil(horizon * 1000 / limit)
          local tol = limit * interval
          local tat = tonumber(redis.call('GET', KEYS[i]) or '0')
          if tat < nowus then tat = nowus end
          local nt = tat + amount * interval
          if nt - nowus > tol then
            deny = true; rem = math.floor((tol - (tat - nowus)) / interval)
            reset = math.ceil(tat / 1000)
          else
            rem = math.floor((tol - (nt - nowus)) / interval); reset = math.ceil(nt / 1000)
            nts[i] = nt
          end
        end
        out[2 * i] = rem
        out[2 * i + 1] = reset
        if deny then
          out[1] = i
          for j = 2 * i + 2, 2 * #KEYS + 1 do out[j] = 0 end
          return out
        end
      end
      for i = 1, #KEYS do
        local a = 2 + (i - 1) * 4
        local t = ARGV[a + 1]
        local horizon = tonumber(ARGV[a + 4])
        if t == 'b' then
          redis.call('HINCRBY', KEYS[i], 'h', ARGV[a + 3])
          if horizon > 0 then
            redis.call('PEXPIRE', KEYS[i], string.format('%%.0f', math.max(1, horizon - now + %d)))
          end
        elseif t == 'c' then
          redis.call('ZREMRANGEBYSCORE', KEYS[i], '-inf', ARGV[1])
          redis.call('ZADD', KEYS[i], string.format('%%.0f', now + horizon), id)
          redis.call('PEXPIRE', KEYS[i], ARGV[a + 4])
        else
          local ttl = math.ceil((nts[i] - nowus) / 1000) + 1
          redis.call('SET', KEYS[i], string.format('%%.0f', nts[i]), 'PX',
            string.format('%%.0f', ttl))
        end
      end
      return out
      """.formatted(GRACE_MILLIS);

  /**
   * Ends a reservation's counters. KEYS[1..n]: one per counter; ARGV: reservation id, charge,
   * then per counter: type, amount, horizon. A budget whose hash expired (its period ended long
   * ago) is left alone rather than recreated with a negative hold. {@code %s} is the number of
   * counter keys.
   */
  private static final String END_COUNTERS = """
      local id = ARGV[1]
      local charge = ARGV[2]
      for i = 1, %s do
        local a = 2 + (i - 1) * 3
        local t = ARGV[a + 1]
        if t == 'b' then
          if ARGV[a + 3] == '0' or redis.call('EXISTS', KEYS[i]) == 1 then
            if ARGV[a + 2] ~= '0' then redis.call('HINCRBY', KEYS[i], 'h', '-' .. ARGV[a + 2]) end
            if charge ~= '0' then redis.call('HINCRBY', KEYS[i], 's', charge) end
          end
        elseif t == 'c' then
          redis.call('ZREM', KEYS[i], id)
        end
      end
      return 1
      """;

  /** Ends a reservation; see {@link #END_COUNTERS}. */
  static final String END = END_COUNTERS.formatted("#KEYS");

  /**
   * Ends a reservation once across every instance: KEYS as {@link #END} plus, last, the
   * reservation's end marker; ARGV as {@link #END} plus, last, the marker's lifetime (ms).
   * Returns 0, changing nothing, when the marker already exists.
   */
  static final String END_ONCE = """
      if not redis.call('SET', KEYS[#KEYS], '1', 'NX', 'PX', ARGV[#ARGV]) then
        return 0
      end
      """ + END_COUNTERS.formatted("#KEYS - 1");

  /** How long an end marker of {@link #endOnce} lives: longer than any hold is kept. */
  static final long END_MARKER_MILLIS = 8 * 86_400_000L;

  /**
   * Reads a counter. KEYS[1]; ARGV: type. Returns {spent, held, inflight}; inflight includes
   * expired leases not yet reclaimed by an acquire.
   */
  static final String READ = """
      if ARGV[1] == 'b' then
        local v = redis.call('HMGET', KEYS[1], 's', 'h')
        return {tonumber(v[1]) or 0, tonumber(v[2]) or 0, 0}
      elseif ARGV[1] == 'c' then
        return {0, 0, redis.call('ZCARD', KEYS[1])}
      end
      return {0, 0, 0}
      """;

  /** Overwrites a budget. KEYS[1]; ARGV: spent, held, period end (ms, 0 = none), now (ms). */
  static final String RESTORE = """
      redis.call('HSET', KEYS[1], 's', ARGV[1], 'h', ARGV[2])
      local horizon = tonumber(ARGV[3])
      if horizon > 0 then
        local ttl = math.max(1, horizon - tonumber(ARGV[4]) + %d)
        redis.call('PEXPIRE', KEYS[1], string.format('%%.0f', ttl))
      else
        redis.call('PERSIST', KEYS[1])
      end
      return 1
      """.formatted(GRACE_MILLIS);

  private final UnifiedJedis redis;
  private final String prefix;
  private final Script acquire;
  private final Script end;
  private final Script endOnce;
  private final Script read;
  private final Script restore;
  private final LongAdder roundTrips = new LongAdder();
  private final LongAdder failures = new LongAdder();

  private final class Script {
    final String source;
    volatile String sha;

    Script(String source) {
      this.source = source;
    }

    Object run(List<String> keys, List<String> args) {
      try {
        String s = sha;
        if (s != null) {
          try {
            roundTrips.increment();
            return redis.evalsha(s, keys, args);
          } catch (JedisNoScriptException e) {
            // The server restarted or flushed its scripts: send the source once more.
          }
        }
        roundTrips.increment();
        Object result = redis.eval(source, keys, args);
        sha = sha1(source);
        return result;
      } catch (JedisConnectionException e) {
        failures.increment();
        throw new CounterStoreUnavailableException("Redis is unreachable: " + e.getMessage(), e);
      } catch (JedisDataException e) {
        if (isServerUnavailable(e)) {
          failures.increment();
          throw new CounterStoreUnavailableException("Redis refused the script: "
              + e.getMessage(), e);
        }
        throw new IllegalStateException("limit script failed: " + e.getMessage(), e);
      } catch (JedisException e) {
        failures.increment();
        throw new CounterStoreUnavailableException("Redis failed: " + e.getMessage(), e);
      }
    }
  }

  private static boolean isServerUnavailable(JedisDataException e) {
    String m = String.valueOf(e.getMessage());
    return m.startsWith("LOADING") || m.startsWith("BUSY") || m.startsWith("MASTERDOWN")
        || m.startsWith("CLUSTERDOWN") || m.startsWith("TRYAGAIN") || m.startsWith("READONLY")
        || m.startsWith("OOM");
  }

  private RedisCounterStore(Builder b) {
    this.redis = b.redis;
    this.prefix = b.keyPrefix + "{" + b.hashTag + "}:";
    this.acquire = new Script(ACQUIRE);
    this.end = new Script(END);
    this.endOnce = new Script(END_ONCE);
    this.read = new Script(READ);
    this.restore = new Script(RESTORE);
  }

  /**
   * Returns a builder over a client.
   *
   * @param redis the client ({@code JedisPooled} or {@code JedisCluster}); the store does not
   *     close it
   * @return a builder
   * @throws NullPointerException if redis is null
   */
  public static Builder builder(UnifiedJedis redis) {
    return new Builder(Objects.requireNonNull(redis, "redis"));
  }

  @Override
  public CounterGrant acquire(String reservationId, List<Counter> counters, long nowMillis) {
    Objects.requireNonNull(reservationId, "reservationId");
    int n = counters.size();
    List<String> keys = new ArrayList<>(n);
    List<String> args = new ArrayList<>(2 + 4 * n);
    args.add(Long.toString(nowMillis));
    args.add(reservationId);
    for (Counter c : counters) {
      keys.add(prefix + c.key());
      args.add(code(c.type()));
      args.add(Long.toString(c.limit()));
      args.add(Long.toString(c.amount()));
      args.add(Long.toString(c.horizonMillis()));
    }
    List<?> out = (List<?>) acquire.run(keys, args);
    long[] remaining = new long[n];
    long[] resets = new long[n];
    for (int i = 0; i < n; i++) {
      remaining[i] = (Long) out.get(1 + 2 * i);
      resets[i] = (Long) out.get(2 + 2 * i);
    }
    return CounterGrant.of((int) (long) (Long) out.get(0) - 1, remaining, resets);
  }

  @Override
  public void settle(String reservationId, List<Counter> counters, long chargeMicros,
      long nowMillis) {
    if (chargeMicros < 0 || chargeMicros > Counter.MAX_VALUE) {
      throw new IllegalArgumentException("charge must be between 0 and " + Counter.MAX_VALUE
          + ": " + chargeMicros);
    }
    runEnd(reservationId, counters, chargeMicros);
  }

  @Override
  public void release(String reservationId, List<Counter> counters, long nowMillis) {
    runEnd(reservationId, counters, 0);
  }

  private void runEnd(String reservationId, List<Counter> counters, long charge) {
    List<String> keys = new ArrayList<>(counters.size());
    List<String> args = new ArrayList<>(2 + 3 * counters.size());
    endArguments(reservationId, counters, charge, keys, args);
    end.run(keys, args);
  }

  /** Fills the keys and arguments of {@link #END} for a reservation. */
  private void endArguments(String reservationId, List<Counter> counters, long charge,
      List<String> keys, List<String> args) {
    args.add(reservationId);
    args.add(Long.toString(charge));
    for (Counter c : counters) {
      keys.add(prefix + c.key());
      args.add(code(c.type()));
      args.add(Long.toString(c.amount()));
      args.add(Long.toString(c.horizonMillis()));
    }
  }


  /**
   * Ends the reservation unless any instance already ended it through this method: one script
   * sets the reservation's end marker ({@code <prefix>{<hashTag>}:ended:<id>}, kept
   * {@value #END_MARKER_MILLIS} ms) only if absent and ends the counters only then, so every
   * instance holding a handle to a crashed instance's hold may try and exactly one applies.
   */
  @Override
  public boolean endOnce(String reservationId, List<Counter> counters, long chargeMicros,
      long nowMillis) {
    Objects.requireNonNull(reservationId, "reservationId");
    if (chargeMicros > Counter.MAX_VALUE) {
      throw new IllegalArgumentException("charge must be at most " + Counter.MAX_VALUE + ": "
          + chargeMicros);
    }
    List<String> keys = new ArrayList<>(counters.size() + 1);
    List<String> args = new ArrayList<>(3 + 3 * counters.size());
    endArguments(reservationId, counters, Math.max(0, chargeMicros), keys, args);
    keys.add(prefix + "ended:" + reservationId);
    args.add(Long.toString(END_MARKER_MILLIS));
    return (Long) endOnce.run(keys, args) == 1L;
  }

  @Override
  public CounterReading read(Counter counter) {
    List<?> out = (List<?>) read.run(List.of(prefix + counter.key()),
        List.of(code(counter.type())));
    return new CounterReading((Long) out.get(0), (Long) out.get(1), (Long) out.get(2));
  }

  @Override
  public void restore(Counter counter, long spentMicros, long heldMicros, long nowMillis) {
    if (counter.type() != Counter.Type.BUDGET) {
      throw new IllegalArgumentException("only budget counters are restored: " + counter.key());
    }
    if (spentMicros < 0 || heldMicros < 0) {
      throw new IllegalArgumentException("restored amounts must not be negative");
    }
    restore.run(List.of(prefix + counter.key()), List.of(Long.toString(spentMicros),
        Long.toString(heldMicros), Long.toString(counter.horizonMillis()),
        Long.toString(nowMillis)));
  }

  /**
   * Returns how many commands this store sent to Redis: one per acquire, settle, release,
   * read or restore, plus one when the server had to be sent a script's source again.
   *
   * @return the count
   */
  public long roundTrips() {
    return roundTrips.sum();
  }

  /**
   * Returns how many operations failed because Redis could not be reached.
   *
   * @return the count
   */
  public long failures() {
    return failures.sum();
  }

  /**
   * Returns the full Redis key of a counter key, for operators and tests.
   *
   * @param counterKey the counter's key
   * @return the Redis key, with the prefix and hash tag
   */
  public String redisKey(String counterKey) {
    return prefix + counterKey;
  }

  private static String code(Counter.Type type) {
    return switch (type) {
      case BUDGET -> "b";
      case CONCURRENCY -> "c";
      case RATE -> "r";
    };
  }

  private static String sha1(String source) {
    try {
      byte[] d = java.security.MessageDigest.getInstance("SHA-1")
          .digest(source.getBytes(java.nio.charset.StandardCharsets.UTF_8));
      return java.util.HexFormat.of().formatHex(d);
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-1 is required by the Java platform", e);
    }
  }

  /** A builder of {@link RedisCounterStore}. Setters fail fast; not thread-safe. */
  public static final class Builder {
    private final UnifiedJedis redis;
    private String keyPrefix;
    private String hashTag;

    private Builder(UnifiedJedis redis) {
      this.redis = redis;
    }

    /**
     * Sets the prefix of every key. Default: {@code pointsman:}.
     *
     * @param value the prefix, without braces
     * @return this builder
     * @throws NullPointerException if value is null
     * @throws IllegalArgumentException if it contains a brace
     * @throws IllegalStateException if already set
     */
    public Builder keyPrefix(String value) {
      Objects.requireNonNull(value, "keyPrefix");
      if (value.indexOf('{') >= 0 || value.indexOf('}') >= 0) {
        throw new IllegalArgumentException("keyPrefix must not contain braces: " + value);
      }
      if (keyPrefix != null) {
        throw new IllegalStateException("keyPrefix was already set to " + keyPrefix);
      }
      keyPrefix = value;
      return this;
    }

    /**
     * Sets the hash tag every key carries. Default: {@code limits}.
     *
     * @param value the tag, non-empty and without braces
     * @return this builder
     * @throws NullPointerException if value is null
     * @throws IllegalArgumentException if empty or it contains a brace
     * @throws IllegalStateException if already set
     */
    public Builder hashTag(String value) {
      Objects.requireNonNull(value, "hashTag");
      if (value.isEmpty() || value.indexOf('{') >= 0 || value.indexOf('}') >= 0) {
        throw new IllegalArgumentException("hashTag must be non-empty, without braces: " + value);
      }
      if (hashTag != null) {
        throw new IllegalStateException("hashTag was already set to " + hashTag);
      }
      hashTag = value;
      return this;
    }

    /**
     * Builds the store. Scripts are sent on first use and then run by their SHA-1.
     *
     * @return the store
     */
    public RedisCounterStore build() {
      if (keyPrefix == null) {
        keyPrefix = "pointsman:";
      }
      if (hashTag == null) {
        hashTag = "limits";
      }
      return new RedisCounterStore(this);
    }
  }
}
