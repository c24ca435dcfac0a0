package io.pointsman.limits.redis;

import io.pointsman.cache.redis.RedisConnection;
import io.pointsman.spi.Counter;
import io.pointsman.spi.CounterGrant;
import io.pointsman.spi.CounterHold;
import io.pointsman.spi.CounterReading;
import io.pointsman.spi.CounterRebuild;
import io.pointsman.spi.CounterStore;
import io.pointsman.spi.CounterStoreStaleException;
import io.pointsman.spi.CounterStoreUnavailableException;
import java.net.ConnectException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.atomic.LongAdder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.Protocol;
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
 * <p><b>Exactly once.</b> Every hold has a record ({@code <prefix>{<tag>}:~r:<reservation id>},
 * a hash) written by the same script that takes it: the grant, the amount held per budget, the
 * generation, the creation time by Redis {@code TIME} and the owner. A repeated acquire of the
 * same id returns the recorded grant and changes nothing; an extension records its operation
 * id and result; an end records its result and changes nothing when repeated, so a client that
 * retries after a lost reply never applies anything twice. An end of a reservation without a
 * record (its acquire never applied, or it was admitted without limits) charges and leaves a
 * tombstone, so an acquire that arrives after its end takes nothing. Ended records are kept
 * {@value #END_MARKER_MILLIS} ms.
 *
 * <p><b>Generations.</b> A marker key ({@code ~gen}) names the counters' generation. Every
 * script checks it first: when it is missing (Redis restarted without persistence, failed over
 * to a replica without the data, was flushed) the script changes nothing and the store throws
 * {@link CounterStoreStaleException} until a {@link #beginRebuild rebuild} under the lock key
 * ({@code ~lock}) commits a new generation. A hold recorded under an earlier generation is
 * ended by charging only. A new namespace is stale too until its first rebuild: an empty Redis
 * cannot tell a new deployment from a lost one.
 *
 * <p><b>Leases.</b> Concurrency slots and hold ages are measured by Redis {@code TIME}, the one
 * clock every instance sees; budgets' periods and rates use the caller's clock, passed in.
 * Holds are indexed by creation time ({@code ~holds}) for {@link #holdsOlderThan} and
 * {@link #sweep}.
 *
 * <p><b>Eviction.</b> Counters must never be evicted: {@link Builder#build()} reads
 * {@code maxmemory-policy} and refuses any policy other than {@code noeviction} with an
 * {@link EvictionPolicyException} unless {@link Builder#allowEvictionPolicy} was set (then it
 * logs a warning). Keep the counters on their own server or database, with their own
 * {@link RedisConnection}, apart from the cache's (which may evict).
 *
 * <p>Keys are {@code <prefix>{<hashTag>}:<counter key>}; every key of the store carries the
 * same hash tag, so on Redis Cluster all of them live in one slot and a reservation across
 * key, team, org, tag and model scopes stays one atomic script; the price is that one shard
 * serves all limits of one hash tag (use separate tags for independent tenants). Layout: a
 * budget is a hash ({@code s} spent, {@code h} held) that expires a day after its period ends;
 * a concurrency limit is a sorted set of reservation ids scored by lease expiry; a rate is a
 * string holding the GCRA theoretical arrival time in microseconds. Numbers are exact up to
 * {@link Counter#MAX_VALUE} (Lua numbers are doubles).
 *
 * <p>When Redis cannot be reached every method throws {@link CounterStoreUnavailableException}
 * (with {@link CounterStoreUnavailableException#outcomeUnknown()} true when the command may
 * have run); the limiter retries with the same id and decides whether that fails closed or
 * open.
 *
 * <p>Thread-safe (the client's pool is).
 *
 * <pre>{@code
 * RedisConnection counters = RedisConnection.builder(URI.create("redis://limits:6379"))
 *     .timeout(Duration.ofSeconds(1)).build();
 * RedisCounterStore store = RedisCounterStore.builder(counters).hashTag("limits").build();
 * CounterLimiter limiter = CounterLimiter.builder(store)
 *     .budget(Scope.org("acme"), Period.monthly(ZoneId.of("UTC")), 100_000_000)
 *     .ledger(SpendSource.of(budgetStore::spent, settlement::unresolvedIntents)).build();
 * }</pre>
 */
public final class RedisCounterStore implements CounterStore {
  private static final Logger LOG = LoggerFactory.getLogger(RedisCounterStore.class);
  private static final long GRACE_MILLIS = 86_400_000L;

  /** How long the record of an ended reservation lives: longer than any retry or hold. */
  static final long END_MARKER_MILLIS = 8 * 86_400_000L;

  /** The Lua statements that read Redis TIME into {@code tnow}, epoch milliseconds. */
  private static final String TNOW = """
      local tm = redis.call('TIME')
      local tnow = tonumber(tm[1]) * 1000 + math.floor(tonumber(tm[2]) / 1000)
      """;

  /**
   * Checks every counter, then takes all of them and records the hold, or takes none.
   * KEYS: generation, record, hold index, then one per counter. ARGV: now (ms), reservation id,
   * owner, counter spec, the generation the caller last saw (empty: any), then per counter:
   * type (b, c, r), limit, amount, horizon. Returns {status, generation, remaining_1, reset_1,
   * ...}: status 0 granted, i the refusing counter, -1 stale, -2 a repeat ({-2, generation,
   * recorded grant}), -3 ended before it applied, -4 the generation changed since the caller
   * last saw it (another instance rebuilt: the caller counts its live holds again first).
   */
  static final String ACQUIRE = """
      local gen = redis.call('GET', KEYS[1])
      if not gen then return {-1} end
      local rec = KEYS[2]
      local first = redis.call('HMGET', rec, 'h', 'e')
      if first[1] then return {-2, gen, first[1]} end
      if first[2] then return {-3, gen} end
      if ARGV[5] ~= '' and ARGV[5] ~= gen then return {-4, gen} end
      local now = tonumber(ARGV[1])
      local nowus = now * 1000
      """ + TNOW + """
      local n = #KEYS - 3
      local out = {0, gen}
      local nts = {}
      for i = 1, n do
        local key = KEYS[i + 3]
        local a = 5 + (i - 1) * 4
        local t = ARGV[a + 1]
        local limit = tonumber(ARGV[a + 2])
        local amount = tonumber(ARGV[a + 3])
        local horizon = tonumber(ARGV[a + 4])
        local rem, reset, deny
        if t == 'b' then
          local v = redis.call('HMGET', key, 's', 'h')
          local avail = limit - (tonumber(v[1]) or 0) - (tonumber(v[2]) or 0)
          reset = horizon
          if amount > avail then deny = true; rem = avail else rem = avail - amount end
        elseif t == 'c' then
          local inflight = redis.call('ZCOUNT', key, '(' .. string.format('%%.0f', tnow), '+inf')
          reset = 0
          if inflight + 1 > limit then deny = true; rem = 0 else rem = limit - inflight - 1 end
        else
          local interval
          if limit == 0 then interval = horizon * 1000 + 1
          else interval = math.max(1, math.ceil(horizon * 1000 / limit)) end
          local tol = limit * interval
          local tat = tonumber(redis.call('GET', key) or '0')
          if tat < nowus then tat = nowus end
          local nt = nil
          if amount <= limit then nt = tat + amount * interval end
          if nt == nil or nt - nowus > tol then
            deny = true; rem = math.max(0, math.floor((tol - (tat - nowus)) / interval))
            reset = math.ceil(tat / 1000)
          else
            rem = math.floor((tol - (nt - nowus)) / interval); reset = math.ceil(nt / 1000)
            nts[i] = nt
          end
        end
        out[2 * i + 1] = rem
        out[2 * i + 2] = reset
        if deny then
          out[1] = i
          for j = 2 * i + 3, 2 * n + 2 do out[j] = 0 end
          return out
        end
      end
      local fields = {'g', gen, 't', string.format('%%.0f', tnow), 'o', ARGV[3], 'k', ARGV[4]}
      for i = 1, n do
        local key = KEYS[i + 3]
        local a = 5 + (i - 1) * 4
        local t = ARGV[a + 1]
        local horizon = tonumber(ARGV[a + 4])
        if t == 'b' then
          redis.call('HINCRBY', key, 'h', ARGV[a + 3])
          if horizon > 0 then
            redis.call('PEXPIRE', key, string.format('%%.0f', math.max(1, horizon - now + %1$d)))
          end
          fields[#fields + 1] = key
          fields[#fields + 1] = ARGV[a + 3]
        elseif t == 'c' then
          redis.call('ZREMRANGEBYSCORE', key, '-inf', string.format('%%.0f', tnow))
          redis.call('ZADD', key, string.format('%%.0f', tnow + horizon), ARGV[2])
          redis.call('PEXPIRE', key, ARGV[a + 4])
        else
          local ttl = math.ceil((nts[i] - nowus) / 1000) + 1
          redis.call('SET', key, string.format('%%.0f', nts[i]), 'PX',
            string.format('%%.0f', ttl))
        end
      end
      local parts = {}
      for j = 3, #out do parts[#parts + 1] = string.format('%%.0f', out[j]) end
      fields[#fields + 1] = 'h'
      fields[#fields + 1] = table.concat(parts, ' ')
      redis.call('HSET', rec, unpack(fields))
      redis.call('ZADD', KEYS[3], string.format('%%.0f', tnow), ARGV[2])
      return out
      """.formatted(GRACE_MILLIS);

  /**
   * Ends a reservation once. KEYS: generation, record, hold index, then one per counter. ARGV:
   * reservation id, charge (negative: release), now (ms), record lifetime (ms), then per
   * counter: type, amount, horizon. A budget's hold is released by the amount recorded, only
   * when the record is of the current generation and was not swept, and never on a key that
   * no longer exists (a period that ended long ago); the charge is added when the key exists
   * or its period is current. Returns {1, generation, result} when applied, {0, generation,
   * first result} for a repeat, {-1} when stale.
   */
  static final String END = """
      local gen = redis.call('GET', KEYS[1])
      if not gen then return {-1} end
      local rec = KEYS[2]
      local r = redis.call('HMGET', rec, 'e', 'h', 'g', 'sw')
      if r[1] then return {0, gen, r[1]} end
      local held = r[2] and r[3] == gen and not r[4]
      local charge = tonumber(ARGV[2])
      local now = tonumber(ARGV[3])
      for i = 1, #KEYS - 3 do
        local key = KEYS[i + 3]
        local a = 4 + (i - 1) * 3
        local t = ARGV[a + 1]
        if t == 'b' then
          local horizon = tonumber(ARGV[a + 3])
          local exists = redis.call('EXISTS', key) == 1
          if exists and held then
            local amt = redis.call('HGET', rec, key)
            if amt then redis.call('HINCRBY', key, 'h', '-' .. amt) end
          end
          if charge > 0 and (exists or horizon == 0 or horizon + %1$d > now) then
            redis.call('HINCRBY', key, 's', ARGV[2])
            if not exists and horizon > 0 then
              redis.call('PEXPIRE', key, string.format('%%.0f', math.max(1, horizon - now + %1$d)))
            end
          end
        elseif t == 'c' then
          redis.call('ZREM', key, ARGV[1])
        end
      end
      local how = 'unheld'
      if held then how = 'held' elseif r[4] then how = 'swept'
      elseif r[2] then how = 'earlier-generation' end
      local result = 'released ' .. how
      if charge >= 0 then result = 'settled ' .. ARGV[2] .. ' ' .. how end
      redis.call('HSET', rec, 'e', result)
      redis.call('PEXPIRE', rec, ARGV[4])
      redis.call('ZREM', KEYS[3], ARGV[1])
      return {1, gen, result}
      """.formatted(GRACE_MILLIS);

  /**
   * Extends a held reservation in every budget, all or none. KEYS: generation, record, then
   * one per budget counter. ARGV: operation id, additional amount, then per counter its limit
   * (ARGV[i] is the limit of KEYS[i]). Returns {1 or 0, generation}, the recorded result for a
   * repeat, {-1} when stale.
   */
  static final String EXTEND = """
      local gen = redis.call('GET', KEYS[1])
      if not gen then return {-1} end
      local rec = KEYS[2]
      local f = 'x:' .. ARGV[1]
      local r = redis.call('HMGET', rec, f, 'h', 'g', 'e', 'sw')
      if r[1] then return {tonumber(r[1]), gen} end
      if not r[2] or r[3] ~= gen or r[4] or r[5] then return {0, gen} end
      local add = tonumber(ARGV[2])
      for i = 3, #KEYS do
        if not redis.call('HGET', rec, KEYS[i]) then return {0, gen} end
        local v = redis.call('HMGET', KEYS[i], 's', 'h')
        if (tonumber(v[1]) or 0) + (tonumber(v[2]) or 0) + add > tonumber(ARGV[i]) then
          redis.call('HSET', rec, f, '0')
          return {0, gen}
        end
      end
      for i = 3, #KEYS do
        redis.call('HINCRBY', KEYS[i], 'h', ARGV[2])
        redis.call('HINCRBY', rec, KEYS[i], ARGV[2])
      end
      redis.call('HSET', rec, f, '1')
      return {1, gen}
      """;

  /**
   * Counts a live hold again after a rebuild. KEYS: generation, record, hold index, then one
   * per counter. ARGV: reservation id, owner, now (ms), counter spec, then per counter: type,
   * amount, horizon. Returns {1, generation} when counted again, {0, generation} when already
   * counted or ended, {-1} when stale.
   */
  static final String REASSERT = """
      local gen = redis.call('GET', KEYS[1])
      if not gen then return {-1} end
      local rec = KEYS[2]
      local r = redis.call('HMGET', rec, 'g', 'e', 'sw')
      if r[2] or r[3] or r[1] == gen then return {0, gen} end
      local now = tonumber(ARGV[3])
      """ + TNOW + """
      redis.call('DEL', rec)
      local fields = {'g', gen, 't', string.format('%%.0f', tnow), 'o', ARGV[2], 'k', ARGV[4],
        'h', 'reasserted'}
      for i = 1, #KEYS - 3 do
        local key = KEYS[i + 3]
        local a = 4 + (i - 1) * 3
        local t = ARGV[a + 1]
        local horizon = tonumber(ARGV[a + 3])
        if t == 'b' then
          redis.call('HINCRBY', key, 'h', ARGV[a + 2])
          if horizon > 0 then
            redis.call('PEXPIRE', key, string.format('%%.0f', math.max(1, horizon - now + %1$d)))
          end
          fields[#fields + 1] = key
          fields[#fields + 1] = ARGV[a + 2]
        elseif t == 'c' then
          redis.call('ZADD', key, string.format('%%.0f', tnow + horizon), ARGV[1])
          redis.call('PEXPIRE', key, ARGV[a + 3])
        end
      end
      redis.call('HSET', rec, unpack(fields))
      redis.call('ZADD', KEYS[3], string.format('%%.0f', tnow), ARGV[1])
      return {1, gen}
      """.formatted(GRACE_MILLIS);

  /**
   * Reads a counter. KEYS: generation, counter. ARGV: type. Returns {0, generation, spent,
   * held, inflight} or {-1} when stale; inflight counts unexpired leases.
   */
  static final String READ = """
      local gen = redis.call('GET', KEYS[1])
      if not gen then return {-1} end
      if ARGV[1] == 'b' then
        local v = redis.call('HMGET', KEYS[2], 's', 'h')
        return {0, gen, tonumber(v[1]) or 0, tonumber(v[2]) or 0, 0}
      elseif ARGV[1] == 'c' then
        local tm = redis.call('TIME')
        local tnow = tonumber(tm[1]) * 1000 + math.floor(tonumber(tm[2]) / 1000)
        return {0, gen, 0, 0, redis.call('ZCOUNT', KEYS[2], '(' .. string.format('%.0f', tnow),
          '+inf')}
      end
      return {0, gen, 0, 0, 0}
      """;

  /**
   * Takes the rebuild lock and removes the generation, so nothing is admitted until commit.
   * KEYS: generation, lock. ARGV: token, lock lifetime (ms), only-if-stale (1 or 0). Returns 1,
   * 0 when not stale (only-if-stale), -1 when the lock is held.
   */
  static final String REBUILD_BEGIN = """
      if ARGV[3] == '1' and redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
      if not redis.call('SET', KEYS[2], ARGV[1], 'NX', 'PX', ARGV[2]) then return -1 end
      redis.call('DEL', KEYS[1], KEYS[3], KEYS[4])
      """ + TNOW + """
      redis.call('HSET', KEYS[3], 'g', ARGV[1], 't', string.format('%.0f', tnow))
      redis.call('PEXPIRE', KEYS[3], ARGV[2])
      return 1
      """;

  /**
   * Registers an instance and, acknowledging the rebuild in progress, stages its live holds.
   * KEYS: generation, rebuild in progress, instances, acknowledgements, staged holds. ARGV:
   * owner, registration lifetime (ms), acknowledged rebuild ('' none), then pairs of
   * reservation id and counter spec. Returns {generation or '', rebuild waiting or ''}.
   */
  static final String HEARTBEAT = TNOW + """
      redis.call('ZADD', KEYS[3], string.format('%.0f', tnow + tonumber(ARGV[2])), ARGV[1])
      local nx = redis.call('HMGET', KEYS[2], 'g', 'c')
      if ARGV[3] ~= '' and nx[1] == ARGV[3] and not nx[2] then
        for i = 4, #ARGV - 1, 2 do redis.call('HSET', KEYS[5], ARGV[i], ARGV[i + 1]) end
        redis.call('HSET', KEYS[4], ARGV[1], ARGV[3])
        redis.call('PEXPIRE', KEYS[5], redis.call('PTTL', KEYS[2]))
      end
      local pend = ''
      if nx[1] and not nx[2] then pend = nx[1] end
      return {redis.call('GET', KEYS[1]) or '', pend}
      """;

  /**
   * Closes a rebuild's reporting once every registered instance acknowledged it (or expired)
   * and one registration lifetime passed since it began. KEYS: lock, rebuild in progress,
   * instances, acknowledgements, staged holds. ARGV: token, registration lifetime (ms).
   * Returns {1, id_1, spec_1, ...}, {-1} to wait, {0} when the lock is lost.
   */
  static final String SNAPSHOT = """
      if redis.call('GET', KEYS[1]) ~= ARGV[1] then return {0} end
      local nx = redis.call('HMGET', KEYS[2], 'g', 't')
      if nx[1] ~= ARGV[1] then return {0} end
      """ + TNOW + """
      if tnow < tonumber(nx[2]) + tonumber(ARGV[2]) then return {-1} end
      redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', string.format('%.0f', tnow))
      for _, m in ipairs(redis.call('ZRANGE', KEYS[3], 0, -1)) do
        if redis.call('HGET', KEYS[4], m) ~= ARGV[1] then return {-1} end
      end
      redis.call('HSET', KEYS[2], 'c', '1')
      local out = {1}
      local st = redis.call('HGETALL', KEYS[5])
      for i = 1, #st do out[#out + 1] = st[i] end
      return out
      """;

  /**
   * Overwrites a budget under the lock. KEYS: lock, counter. ARGV: token, spent, held, period
   * end (ms, 0 = none), now (ms). Returns 0 when the lock is not ours.
   */
  static final String REBUILD_RESTORE = """
      if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
      redis.call('HSET', KEYS[2], 's', ARGV[2], 'h', ARGV[3])
      local horizon = tonumber(ARGV[4])
      if horizon > 0 then
        local ttl = math.max(1, horizon - tonumber(ARGV[5]) + %d)
        redis.call('PEXPIRE', KEYS[2], string.format('%%.0f', ttl))
      else
        redis.call('PERSIST', KEYS[2])
      end
      return 1
      """.formatted(GRACE_MILLIS);

  /**
   * Records a recovered hold under the lock, for the generation being built. KEYS: lock,
   * record, hold index, then one per budget counter. ARGV: token, reservation id, counter spec,
   * then per counter its amount. Returns 0 when the lock is not ours.
   */
  static final String REBUILD_HOLD = """
      if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
      """ + TNOW + """
      redis.call('DEL', KEYS[2])
      local fields = {'g', ARGV[1], 't', string.format('%.0f', tnow), 'o', 'rebuild',
        'k', ARGV[3], 'h', 'rebuilt'}
      for i = 4, #KEYS do
        fields[#fields + 1] = KEYS[i]
        fields[#fields + 1] = ARGV[i]
      end
      redis.call('HSET', KEYS[2], unpack(fields))
      redis.call('ZADD', KEYS[3], string.format('%.0f', tnow), ARGV[2])
      return 1
      """;

  /** Commits a rebuild. KEYS: generation, lock. ARGV: token. Returns 0 when the lock is lost. */
  static final String REBUILD_COMMIT = """
      if redis.call('GET', KEYS[1]) == ARGV[1] then return 1 end
      if redis.call('GET', KEYS[2]) ~= ARGV[1] then return 0 end
      redis.call('SET', KEYS[1], ARGV[1])
      redis.call('DEL', KEYS[2], KEYS[3], KEYS[4])
      return 1
      """;

  /** Releases the lock of an uncommitted rebuild. KEYS: lock. ARGV: token. */
  static final String REBUILD_ABORT = """
      if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1], KEYS[2], KEYS[3]) end
      return 1
      """;

  /**
   * Lists holds older than an age by Redis TIME. KEYS: hold index. ARGV: age (ms), most.
   * Returns {id_1, created_1, ...}.
   */
  static final String LIST = TNOW + """
      local r = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf',
        string.format('%.0f', tnow - tonumber(ARGV[1])), 'WITHSCORES', 'LIMIT', 0, ARGV[2])
      return r
      """;

  /**
   * Releases one old hold. KEYS: generation, record, hold index, then one per counter. ARGV:
   * reservation id, age (ms), record lifetime (ms), then per counter its type. Returns 1 when
   * it released counters, 2 when it only retired a record of an earlier generation, 0 when the
   * hold ended or is younger than the age.
   */
  static final String SWEEP = """
      local rec = KEYS[2]
      local r = redis.call('HMGET', rec, 't', 'e', 'sw', 'h', 'g')
      if not r[1] or r[2] or r[3] then
        redis.call('ZREM', KEYS[3], ARGV[1])
        return 0
      end
      """ + TNOW + """
      if tonumber(r[1]) > tnow - tonumber(ARGV[2]) then return 0 end
      local gen = redis.call('GET', KEYS[1])
      local held = gen and r[4] and r[5] == gen
      if held then
        for i = 4, #KEYS do
          local t = ARGV[i]
          if t == 'b' then
            local amt = redis.call('HGET', rec, KEYS[i])
            if amt and redis.call('EXISTS', KEYS[i]) == 1 then
              redis.call('HINCRBY', KEYS[i], 'h', '-' .. amt)
            end
          elseif t == 'c' then
            redis.call('ZREM', KEYS[i], ARGV[1])
          end
        end
      end
      redis.call('HSET', rec, 'sw', string.format('%.0f', tnow))
      redis.call('PEXPIRE', rec, ARGV[3])
      redis.call('ZREM', KEYS[3], ARGV[1])
      if held then return 1 end
      return 2
      """;

  private final UnifiedJedis redis;
  private final String prefix;
  private final String owner;
  private final String genKey;
  private final String lockKey;
  private final String indexKey;
  private final String nextKey;
  private final String membersKey;
  private final String acksKey;
  private final String stageKey;
  private final Script heartbeat;
  private final Script snapshot;
  private final Script acquire;
  private final Script end;
  private final Script extend;
  private final Script reassert;
  private final Script read;
  private final Script rebuildBegin;
  private final Script rebuildRestore;
  private final Script rebuildHold;
  private final Script rebuildCommit;
  private final Script rebuildAbort;
  private final Script list;
  private final Script sweep;
  private final LongAdder roundTrips = new LongAdder();
  private final LongAdder failures = new LongAdder();
  private final boolean allowEviction;
  private volatile String evictionPolicy;
  private volatile String generation;

  private final class Script {
    final String source;
    final String sha;

    Script(String source) {
      this.source = source;
      this.sha = sha1(source);
    }

    Object run(List<String> keys, List<String> args) {
      if (evictionPolicy == null) {
        checkEvictionPolicy();
      }
      try {
        try {
          roundTrips.increment();
          return redis.evalsha(sha, keys, args);
        } catch (JedisNoScriptException e) {
          // First use, or the server restarted or flushed its scripts: send the source. The
          // script did not run, so running it now is its first and only execution.
          roundTrips.increment();
          return redis.eval(source, keys, args);
        }
      } catch (JedisConnectionException e) {
        failures.increment();
        throw new CounterStoreUnavailableException("Redis is unreachable: " + e.getMessage(), e,
            mayHaveRun(e));
      } catch (JedisDataException e) {
        if (isServerUnavailable(e)) {
          failures.increment();
          // The server refused before the script wrote anything.
          throw new CounterStoreUnavailableException("Redis refused the script: "
              + e.getMessage(), e, false);
        }
        throw new IllegalStateException("limit script failed: " + e.getMessage(), e);
      } catch (JedisException e) {
        failures.increment();
        throw new CounterStoreUnavailableException("Redis failed: " + e.getMessage(), e,
            mayHaveRun(e));
      }
    }
  }

  /** False when the command certainly never reached the server. */
  private static boolean mayHaveRun(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof ConnectException || t instanceof NoSuchElementException) {
        return false;
      }
      for (Throwable s : t.getSuppressed()) {
        // Jedis reports a refused connection to every address as suppressed failures.
        if (s instanceof ConnectException
            || (s.getCause() instanceof ConnectException)) {
          return false;
        }
      }
    }
    return true;
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
    this.owner = b.owner;
    this.genKey = prefix + "~gen";
    this.lockKey = prefix + "~lock";
    this.indexKey = prefix + "~holds";
    this.nextKey = prefix + "~next";
    this.membersKey = prefix + "~instances";
    this.acksKey = prefix + "~acks";
    this.stageKey = prefix + "~staged";
    this.heartbeat = new Script(HEARTBEAT);
    this.snapshot = new Script(SNAPSHOT);
    this.allowEviction = b.allowEviction;
    this.acquire = new Script(ACQUIRE);
    this.end = new Script(END);
    this.extend = new Script(EXTEND);
    this.reassert = new Script(REASSERT);
    this.read = new Script(READ);
    this.rebuildBegin = new Script(REBUILD_BEGIN);
    this.rebuildRestore = new Script(REBUILD_RESTORE);
    this.rebuildHold = new Script(REBUILD_HOLD);
    this.rebuildCommit = new Script(REBUILD_COMMIT);
    this.rebuildAbort = new Script(REBUILD_ABORT);
    this.list = new Script(LIST);
    this.sweep = new Script(SWEEP);
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

  /**
   * Returns a builder over the counters' own connection: its client, and its key prefix as the
   * default prefix. Give the counters a connection of their own (a server or database that
   * never evicts, a time-out suited to a limiter) rather than the cache's.
   *
   * @param counters the connection; the store does not close it
   * @return a builder
   * @throws NullPointerException if counters is null
   */
  public static Builder builder(RedisConnection counters) {
    Objects.requireNonNull(counters, "counters");
    Builder b = new Builder(counters.client());
    b.defaultPrefix = counters.keyPrefix();
    return b;
  }

  /** Reads the server's eviction policy once it answers; refuses one that evicts. */
  private void checkEvictionPolicy() {
    String policy;
    try {
      policy = configValue(redis.sendCommand(Protocol.Command.CONFIG, "GET",
          "maxmemory-policy"));
    } catch (JedisConnectionException e) {
      // Checked again on the next operation, which fails the same way meanwhile.
      return;
    } catch (JedisDataException e) {
      policy = null;
      if (!allowEviction) {
        throw new EvictionPolicyException("cannot verify the Redis eviction policy (CONFIG GET"
            + " maxmemory-policy failed: " + e.getMessage() + "); limit counters need"
            + " noeviction. Allow it explicitly with allowEvictionPolicy(true) once the"
            + " server is known not to evict");
      }
    }
    if (policy == null) {
      policy = "unknown";
    }
    if (!"noeviction".equals(policy)) {
      if (!allowEviction) {
        throw new EvictionPolicyException("Redis maxmemory-policy is " + policy
            + ": it may evict limit counters and let budgets restart at zero; set it to"
            + " noeviction (or give the counters a server of their own), or allow it"
            + " explicitly with allowEvictionPolicy(true)");
      }
      LOG.warn("Redis maxmemory-policy is {}, not noeviction: limit counters may be EVICTED and"
          + " budgets silently under-count; allowed by configuration", policy);
    }
    evictionPolicy = policy;
  }

  /** The value of a one-parameter CONFIG GET reply (a flat list in RESP2, a map in RESP3). */
  private static String configValue(Object reply) {
    if (reply instanceof List<?> l && l.size() >= 2) {
      return text(l.get(1));
    }
    if (reply instanceof Map<?, ?> m && !m.isEmpty()) {
      return text(m.values().iterator().next());
    }
    return null;
  }

  private static String text(Object o) {
    return o instanceof byte[] b ? new String(b, java.nio.charset.StandardCharsets.UTF_8)
        : String.valueOf(o);
  }

  /**
   * Returns the server's {@code maxmemory-policy} as read when the store first reached it.
   *
   * @return the policy, or {@code null} when the server was not reached yet
   */
  public String evictionPolicy() {
    return evictionPolicy;
  }

  private String record(String reservationId) {
    return prefix + "~r:" + reservationId;
  }

  private void seen(Object generation) {
    String g = (String) generation;
    if (!g.equals(this.generation)) {
      this.generation = g;
    }
  }

  private CounterStoreStaleException stale() {
    return new CounterStoreStaleException("the Redis limit counters under " + prefix
        + " have no generation marker: Redis lost them (restart without persistence,"
        + " failover, flush) or they are being rebuilt; nothing was changed");
  }

  private static String code(Counter.Type type) {
    return switch (type) {
      case BUDGET -> "b";
      case CONCURRENCY -> "c";
      case RATE -> "r";
    };
  }

  /** One line per counter: type, key, limit, amount, horizon, tab-separated. */
  private static String spec(List<Counter> counters) {
    StringBuilder sb = new StringBuilder(counters.size() * 48);
    for (Counter c : counters) {
      if (c.type() == Counter.Type.RATE) {
        continue;
      }
      if (sb.length() > 0) {
        sb.append('\n');
      }
      sb.append(code(c.type())).append('\t').append(c.key()).append('\t').append(c.limit())
          .append('\t').append(c.amount()).append('\t').append(c.horizonMillis());
    }
    return sb.toString();
  }

  private static List<Counter> parseSpec(String spec) {
    List<Counter> out = new ArrayList<>();
    if (spec == null || spec.isEmpty()) {
      return out;
    }
    for (String line : spec.split("\n")) {
      String[] f = line.split("\t");
      Counter.Type type = "b".equals(f[0]) ? Counter.Type.BUDGET : Counter.Type.CONCURRENCY;
      out.add(new Counter(f[1], type, Long.parseLong(f[2]), Long.parseLong(f[3]),
          Long.parseLong(f[4])));
    }
    return out;
  }

  @Override
  public CounterGrant acquire(String reservationId, List<Counter> counters, long nowMillis,
      long monotonicMicros) {
    Objects.requireNonNull(reservationId, "reservationId");
    int n = counters.size();
    List<String> keys = new ArrayList<>(n + 3);
    List<String> args = new ArrayList<>(4 + 4 * n);
    keys.add(genKey);
    keys.add(record(reservationId));
    keys.add(indexKey);
    args.add(Long.toString(nowMillis));
    args.add(reservationId);
    args.add(owner);
    args.add(spec(counters));
    String expected = generation;
    args.add(expected == null ? "" : expected);
    for (Counter c : counters) {
      keys.add(prefix + c.key());
      args.add(code(c.type()));
      args.add(Long.toString(c.limit()));
      args.add(Long.toString(c.amount()));
      args.add(Long.toString(c.horizonMillis()));
    }
    List<?> out = (List<?>) acquire.run(keys, args);
    long status = (Long) out.get(0);
    if (status == -1) {
      throw stale();
    }
    seen(out.get(1));
    long[] remaining = new long[n];
    long[] resets = new long[n];
    if (status == -4) {
      throw new CounterStoreStaleException("the Redis limit counters under " + prefix
          + " were rebuilt (generation " + expected + " became " + out.get(1) + "); live"
          + " holds of this process must be counted again before admitting");
    }
    if (status == -3) {
      throw new IllegalStateException("reservation " + reservationId + " was ended before its"
          + " acquire applied; a new reservation needs a new id");
    }
    if (status == -2) {
      // A repeat: the recorded grant of the first execution.
      String[] f = ((String) out.get(2)).split(" ");
      for (int i = 0; i < n; i++) {
        remaining[i] = Long.parseLong(f[2 * i]);
        resets[i] = Long.parseLong(f[2 * i + 1]);
      }
      return CounterGrant.of(-1, remaining, resets);
    }
    for (int i = 0; i < n; i++) {
      remaining[i] = (Long) out.get(2 + 2 * i);
      resets[i] = (Long) out.get(3 + 2 * i);
    }
    return CounterGrant.of((int) status - 1, remaining, resets);
  }

  @Override
  public boolean extend(String reservationId, String operationId, List<Counter> counters,
      long additionalMicros, long nowMillis) {
    Objects.requireNonNull(reservationId, "reservationId");
    Objects.requireNonNull(operationId, "operationId");
    if (additionalMicros < 0 || additionalMicros > Counter.MAX_VALUE) {
      throw new IllegalArgumentException("additional amount must be between 0 and "
          + Counter.MAX_VALUE + ": " + additionalMicros);
    }
    List<String> keys = new ArrayList<>(counters.size() + 2);
    List<String> args = new ArrayList<>(counters.size() + 2);
    keys.add(genKey);
    keys.add(record(reservationId));
    args.add(operationId);
    args.add(Long.toString(additionalMicros));
    for (Counter c : counters) {
      if (c.type() == Counter.Type.BUDGET) {
        keys.add(prefix + c.key());
        args.add(Long.toString(c.limit()));
      }
    }
    if (keys.size() == 2 || additionalMicros == 0) {
      return true;
    }
    List<?> out = (List<?>) extend.run(keys, args);
    long status = (Long) out.get(0);
    if (status == -1) {
      throw stale();
    }
    seen(out.get(1));
    return status == 1;
  }

  @Override
  public boolean end(String reservationId, List<Counter> counters, long chargeMicros,
      long nowMillis) {
    Objects.requireNonNull(reservationId, "reservationId");
    if (chargeMicros > Counter.MAX_VALUE) {
      throw new IllegalArgumentException("charge must be at most " + Counter.MAX_VALUE + ": "
          + chargeMicros);
    }
    List<String> keys = new ArrayList<>(counters.size() + 3);
    List<String> args = new ArrayList<>(4 + 3 * counters.size());
    keys.add(genKey);
    keys.add(record(reservationId));
    keys.add(indexKey);
    args.add(reservationId);
    args.add(Long.toString(chargeMicros < 0 ? -1 : chargeMicros));
    args.add(Long.toString(nowMillis));
    args.add(Long.toString(END_MARKER_MILLIS));
    for (Counter c : counters) {
      keys.add(prefix + c.key());
      args.add(code(c.type()));
      args.add(Long.toString(c.amount()));
      args.add(Long.toString(c.horizonMillis()));
    }
    List<?> out = (List<?>) end.run(keys, args);
    long status = (Long) out.get(0);
    if (status == -1) {
      throw stale();
    }
    seen(out.get(1));
    return status == 1;
  }

  @Override
  public boolean reassert(String reservationId, List<Counter> counters, long nowMillis) {
    List<String> keys = new ArrayList<>(counters.size() + 3);
    List<String> args = new ArrayList<>(4 + 3 * counters.size());
    keys.add(genKey);
    keys.add(record(reservationId));
    keys.add(indexKey);
    args.add(reservationId);
    args.add(owner);
    args.add(Long.toString(nowMillis));
    args.add(spec(counters));
    for (Counter c : counters) {
      keys.add(prefix + c.key());
      args.add(code(c.type()));
      args.add(Long.toString(c.amount()));
      args.add(Long.toString(c.horizonMillis()));
    }
    List<?> out = (List<?>) reassert.run(keys, args);
    if ((Long) out.get(0) == -1) {
      throw stale();
    }
    seen(out.get(1));
    return (Long) out.get(0) == 1;
  }

  @Override
  public String heartbeat(long ttlMillis, String acknowledged, List<CounterHold> liveHolds) {
    List<String> args = new ArrayList<>(3 + 2 * liveHolds.size());
    args.add(owner);
    args.add(Long.toString(ttlMillis));
    args.add(acknowledged == null ? "" : acknowledged);
    if (acknowledged != null) {
      for (CounterHold h : liveHolds) {
        String spec = spec(h.counters());
        if (!spec.isEmpty()) {
          args.add(h.reservationId());
          args.add(spec);
        }
      }
    }
    List<?> out = (List<?>) heartbeat.run(List.of(genKey, nextKey, membersKey, acksKey,
        stageKey), args);
    String gen = (String) out.get(0);
    if (!gen.isEmpty()) {
      seen(gen);
    }
    String waiting = (String) out.get(1);
    return waiting.isEmpty() ? null : waiting;
  }

  @Override
  public CounterReading read(Counter counter) {
    List<?> out = (List<?>) read.run(List.of(genKey, prefix + counter.key()),
        List.of(code(counter.type())));
    if ((Long) out.get(0) == -1) {
      throw stale();
    }
    seen(out.get(1));
    return new CounterReading((Long) out.get(2), (Long) out.get(3), (Long) out.get(4));
  }

  @Override
  public String observedGeneration() {
    return generation;
  }

  /** Returns true: several instances share these counters. */
  @Override
  public boolean shared() {
    return true;
  }

  @Override
  public CounterRebuild beginRebuild(long lockMillis, boolean onlyIfStale) {
    if (lockMillis <= 0) {
      throw new IllegalArgumentException("lockMillis must be positive: " + lockMillis);
    }
    String token = UUID.randomUUID().toString();
    long r = (Long) rebuildBegin.run(List.of(genKey, lockKey, nextKey, stageKey), List.of(token,
        Long.toString(lockMillis), onlyIfStale ? "1" : "0"));
    if (r != 1) {
      return null;
    }
    return new Rebuild(token);
  }

  private final class Rebuild implements CounterRebuild {
    private final String token;
    private boolean open = true;

    Rebuild(String token) {
      this.token = token;
    }

    private void check(Object result) {
      if ((Long) result != 1L) {
        open = false;
        throw new IllegalStateException("the rebuild lock " + lockKey + " was lost (it expired"
            + " and another instance took it); this rebuild wrote nothing more");
      }
    }

    private void checkOpen() {
      if (!open) {
        throw new IllegalStateException("the rebuild has ended");
      }
    }

    @Override
    public void restore(Counter counter, long spentMicros, long heldMicros, long nowMillis) {
      checkOpen();
      if (counter.type() != Counter.Type.BUDGET) {
        throw new IllegalArgumentException("only budget counters are restored: "
            + counter.key());
      }
      if (spentMicros < 0 || heldMicros < 0) {
        throw new IllegalArgumentException("restored amounts must not be negative");
      }
      check(rebuildRestore.run(List.of(lockKey, prefix + counter.key()), List.of(token,
          Long.toString(spentMicros), Long.toString(heldMicros),
          Long.toString(counter.horizonMillis()), Long.toString(nowMillis))));
    }

    @Override
    public void hold(String reservationId, List<Counter> counters, long nowMillis) {
      checkOpen();
      List<String> keys = new ArrayList<>(counters.size() + 3);
      List<String> args = new ArrayList<>(counters.size() + 3);
      keys.add(lockKey);
      keys.add(record(reservationId));
      keys.add(indexKey);
      args.add(token);
      args.add(reservationId);
      args.add(spec(counters));
      for (Counter c : counters) {
        if (c.type() == Counter.Type.BUDGET) {
          keys.add(prefix + c.key());
          args.add(Long.toString(c.amount()));
        }
      }
      check(rebuildHold.run(keys, args));
    }

    @Override
    public List<CounterHold> liveHolds(long heartbeatTtlMillis) {
      checkOpen();
      List<?> out = (List<?>) snapshot.run(List.of(lockKey, nextKey, membersKey, acksKey,
          stageKey), List.of(token, Long.toString(heartbeatTtlMillis)));
      long status = (Long) out.get(0);
      if (status == 0) {
        check(0L);
      }
      if (status == -1) {
        return null;
      }
      List<CounterHold> holds = new ArrayList<>();
      for (int i = 1; i + 1 < out.size(); i += 2) {
        holds.add(new CounterHold((String) out.get(i), "staged", 0,
            parseSpec((String) out.get(i + 1))));
      }
      return holds;
    }

    @Override
    public void commit() {
      checkOpen();
      check(rebuildCommit.run(List.of(genKey, lockKey, nextKey, stageKey), List.of(token)));
      open = false;
      generation = token;
      LOG.info("limit counters under {} rebuilt: generation {}", prefix, token);
    }

    @Override
    public void close() {
      if (open) {
        open = false;
        try {
          rebuildAbort.run(List.of(lockKey, nextKey, stageKey), List.of(token));
        } catch (CounterStoreUnavailableException e) {
          LOG.warn("could not release the rebuild lock {}; it expires by itself", lockKey, e);
        }
      }
    }
  }

  @Override
  public List<CounterHold> holdsOlderThan(long ageMillis, int max) {
    List<?> ids = (List<?>) list.run(List.of(indexKey), List.of(Long.toString(ageMillis),
        Integer.toString(max)));
    List<CounterHold> out = new ArrayList<>(ids.size() / 2);
    for (int i = 0; i + 1 < ids.size(); i += 2) {
      String id = (String) ids.get(i);
      long created = (long) Double.parseDouble((String) ids.get(i + 1));
      Map<String, String> rec;
      try {
        rec = redis.hgetAll(record(id));
      } catch (JedisException e) {
        failures.increment();
        throw new CounterStoreUnavailableException("Redis failed: " + e.getMessage(), e, false);
      }
      List<Counter> counters = new ArrayList<>();
      for (Counter c : parseSpec(rec.get("k"))) {
        String amount = rec.get(prefix + c.key());
        counters.add(amount == null ? c : new Counter(c.key(), c.type(), c.limit(),
            Long.parseLong(amount), c.horizonMillis()));
      }
      out.add(new CounterHold(id, rec.getOrDefault("o", "unknown"), created, counters));
    }
    return out;
  }

  @Override
  public boolean sweep(CounterHold hold, long ageMillis) {
    List<String> keys = new ArrayList<>(hold.counters().size() + 3);
    List<String> args = new ArrayList<>(hold.counters().size() + 3);
    keys.add(genKey);
    keys.add(record(hold.reservationId()));
    keys.add(indexKey);
    args.add(hold.reservationId());
    args.add(Long.toString(ageMillis));
    args.add(Long.toString(END_MARKER_MILLIS));
    for (Counter c : hold.counters()) {
      keys.add(prefix + c.key());
      args.add(code(c.type()));
    }
    return (Long) sweep.run(keys, args) == 1L;
  }

  /**
   * Returns how many commands this store sent to Redis: one per operation, plus one when the
   * server had to be sent a script's source, plus one per hold read by
   * {@link #holdsOlderThan}.
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

  /**
   * Returns the Redis key of a reservation's record, for operators and tests.
   *
   * @param reservationId the reservation's id
   * @return the key of its hash
   */
  public String recordKey(String reservationId) {
    return record(reservationId);
  }

  /**
   * Returns this store's owner name, recorded with every hold it takes.
   *
   * @return the owner
   */
  public String owner() {
    return owner;
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
    private String defaultPrefix = "pointsman:";
    private String keyPrefix;
    private String hashTag;
    private String owner;
    private boolean allowEviction;
    private boolean allowEvictionSet;

    private Builder(UnifiedJedis redis) {
      this.redis = redis;
    }

    /**
     * Sets the prefix of every key. Default: {@code pointsman:}, or the connection's prefix.
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
     * Sets the owner name recorded with every hold this store takes (shown by the orphan
     * sweep). Default: the process id and a random suffix.
     *
     * @param value a non-empty name without tabs or line breaks
     * @return this builder
     * @throws NullPointerException if value is null
     * @throws IllegalArgumentException if empty or it contains a tab or line break
     * @throws IllegalStateException if already set
     */
    public Builder owner(String value) {
      Objects.requireNonNull(value, "owner");
      if (value.isEmpty() || value.indexOf('\t') >= 0 || value.indexOf('\n') >= 0) {
        throw new IllegalArgumentException("owner must be non-empty, on one line: " + value);
      }
      if (owner != null) {
        throw new IllegalStateException("owner was already set to " + owner);
      }
      owner = value;
      return this;
    }

    /**
     * Allows a server whose {@code maxmemory-policy} is not {@code noeviction} (or cannot be
     * read). An evicted budget restarts at zero, so this is for servers known never to reach
     * their memory limit; the store logs a warning. Default: false (refused).
     *
     * @param value true to allow
     * @return this builder
     * @throws IllegalStateException if already set
     */
    public Builder allowEvictionPolicy(boolean value) {
      if (allowEvictionSet) {
        throw new IllegalStateException("allowEvictionPolicy was already set to "
            + allowEviction);
      }
      allowEvictionSet = true;
      allowEviction = value;
      return this;
    }

    /**
     * Builds the store and, when the server answers, checks its eviction policy (otherwise the
     * first operation that reaches it does). Scripts are sent on first use and then run by
     * their SHA-1.
     *
     * @return the store
     * @throws EvictionPolicyException if the server may evict counters and that was not
     *     allowed
     */
    public RedisCounterStore build() {
      if (keyPrefix == null) {
        keyPrefix = defaultPrefix;
      }
      if (hashTag == null) {
        hashTag = "limits";
      }
      if (owner == null) {
        owner = ProcessHandle.current().pid() + "-"
            + UUID.randomUUID().toString().substring(0, 8);
      }
      RedisCounterStore store = new RedisCounterStore(this);
      store.checkEvictionPolicy();
      return store;
    }
  }
}
