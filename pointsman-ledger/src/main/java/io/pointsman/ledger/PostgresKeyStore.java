package io.pointsman.ledger;

import io.pointsman.Clock;
import io.pointsman.PointsmanException;
import io.pointsman.Stages;
import io.pointsman.Status;
import io.pointsman.auth.KeySpec;
import io.pointsman.auth.VirtualKeys;
import io.pointsman.spi.Authenticator;
import io.pointsman.spi.Grant;
import io.pointsman.spi.Identity;
import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import javax.sql.DataSource;
import org.jdbi.v3.core.Jdbi;

/**
 * An {@link Authenticator} whose virtual keys, teams and organisations live in PostgreSQL:
 * keys as SHA-256 hashes only ({@link VirtualKeys#hash}), looked up by hash and compared in
 * constant time. Resolved identities are cached in process; a change made through this store
 * (revoke, update, team or org grants) invalidates the cache at once, and a change made by
 * another instance is seen within the cache's time to live (default 30 seconds). Unknown keys
 * are not cached: each costs one indexed query.
 *
 * <pre>{@code
 * PostgresKeyStore keys = PostgresKeyStore.create(dataSource, Clock.system());
 * String key = VirtualKeys.generate();           // show once; only its hash is stored
 * keys.addKey(key, KeySpec.builder("key-1").team("t1").org("acme").build());
 * Identity who = keys.authenticate(key);
 * }</pre>
 *
 * <p>Thread-safe.
 */
public final class PostgresKeyStore implements Authenticator {
  /** The cache time to live used unless one is given. */
  public static final Duration DEFAULT_CACHE_TTL = Duration.ofSeconds(30);

  private record Cached(
      byte[] hash, KeySpec spec, boolean revoked, Grant team, Grant org, long loadedNanos) {}

  private static final String LOOKUP_SQL = "SELECT k.key_hash, k.key_id, k.user_id, k.team_id,"
      + " k.org_id, k.tags, k.every_model, k.models, k.expires_at, k.revoked_at,"
      + " t.every_model, t.models, o.every_model, o.models"
      + " FROM pointsman.virtual_keys k"
      + " LEFT JOIN pointsman.teams t ON t.team_id = k.team_id"
      + " LEFT JOIN pointsman.orgs o ON o.org_id = k.org_id"
      + " WHERE k.key_hash = ?";

  private final Jdbi jdbi;
  private final Clock clock;
  private final long ttlNanos;
  private final Map<ByteBuffer, Cached> cache = new ConcurrentHashMap<>();

  private PostgresKeyStore(DataSource dataSource, Clock clock, Duration ttl) {
    this.jdbi = Jdbi.create(dataSource);
    this.clock = clock;
    this.ttlNanos = ttl.toNanos();
  }

  /**
   * Creates a store with the default cache time to live, migrating the schema.
   *
   * @param dataSource the ledger's database
   * @param clock the clock that decides expiry and cache age
   * @return the store
   * @throws NullPointerException if an argument is null
   * @throws LedgerSchemaException if the database's schema cannot be used by this code
   */
  public static PostgresKeyStore create(DataSource dataSource, Clock clock) {
    return create(dataSource, clock, DEFAULT_CACHE_TTL);
  }

  /**
   * Creates a store, migrating the schema.
   *
   * @param dataSource the ledger's database
   * @param clock the clock that decides expiry and cache age
   * @param cacheTtl how long a resolved key is trusted without reading it again; zero turns
   *     the cache off
   * @return the store
   * @throws NullPointerException if an argument is null
   * @throws IllegalArgumentException if cacheTtl is negative
   * @throws LedgerSchemaException if the database's schema cannot be used by this code
   */
  public static PostgresKeyStore create(DataSource dataSource, Clock clock, Duration cacheTtl) {
    Objects.requireNonNull(dataSource, "dataSource");
    Objects.requireNonNull(clock, "clock");
    Objects.requireNonNull(cacheTtl, "cacheTtl");
    if (cacheTtl.isNegative()) {
      throw new IllegalArgumentException("cacheTtl must not be negative: " + cacheTtl);
    }
    LedgerSchema.migrate(dataSource);
    return new PostgresKeyStore(dataSource, clock, cacheTtl);
  }

  /**
   * Adds a key. Only its hash is stored.
   *
   * @param key the key as callers will present it
   * @param spec what the key stands for
   * @throws NullPointerException if an argument is null
   * @throws IllegalArgumentException if the key is malformed, or its id or hash is already
   *     stored
   * @throws PointsmanException with status 503 if the database cannot be written
   */
  public void addKey(String key, KeySpec spec) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(spec, "spec");
    if (!VirtualKeys.wellFormed(key)) {
      throw new IllegalArgumentException(
          "key must be 8 to 256 printable ASCII characters without spaces");
    }
    byte[] hash = VirtualKeys.hash(key);
    int inserted = Sql.inTransaction(jdbi, "adding key " + spec.keyId(), h -> {
      Connection c = h.getConnection();
      try (PreparedStatement ps = c.prepareStatement("INSERT INTO pointsman.virtual_keys"
          + " (key_id, key_hash, user_id, team_id, org_id, tags, every_model, models,"
          + " expires_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING")) {
        ps.setString(1, spec.keyId());
        ps.setBytes(2, hash);
        bindSpec(c, ps, 3, spec);
        return ps.executeUpdate();
      }
    });
    if (inserted == 0) {
      throw new IllegalArgumentException("key id or key already stored: " + spec.keyId());
    }
  }

  /**
   * Replaces what a key stands for (user, team, org, tags, models, expiry); the key itself is
   * unchanged. Invalidates the key in this store's cache.
   *
   * @param spec the new spec, naming the key by its id
   * @return true if the key existed
   * @throws NullPointerException if spec is null
   * @throws PointsmanException with status 503 if the database cannot be written
   */
  public boolean updateKey(KeySpec spec) {
    Objects.requireNonNull(spec, "spec");
    int updated = Sql.inTransaction(jdbi, "updating key " + spec.keyId(), h -> {
      Connection c = h.getConnection();
      try (PreparedStatement ps = c.prepareStatement("UPDATE pointsman.virtual_keys SET"
          + " user_id = ?, team_id = ?, org_id = ?, tags = ?, every_model = ?, models = ?,"
          + " expires_at = ?, updated_at = now() WHERE key_id = ?")) {
        bindSpec(c, ps, 1, spec);
        ps.setString(8, spec.keyId());
        return ps.executeUpdate();
      }
    });
    invalidateKey(spec.keyId());
    return updated > 0;
  }

  /**
   * Revokes a key: later calls with it get 401, at once on this instance and within the
   * cache's time to live on others.
   *
   * @param keyId the key's id
   * @return true if the key existed and was not yet revoked
   * @throws NullPointerException if keyId is null
   * @throws PointsmanException with status 503 if the database cannot be written
   */
  public boolean revoke(String keyId) {
    Objects.requireNonNull(keyId, "keyId");
    String now = clock.now().toString();
    int updated = Sql.inTransaction(jdbi, "revoking key " + keyId, h -> {
      try (PreparedStatement ps = h.getConnection().prepareStatement(
          "UPDATE pointsman.virtual_keys SET revoked_at = ?::timestamptz, updated_at = now()"
              + " WHERE key_id = ? AND revoked_at IS NULL")) {
        ps.setString(1, now);
        ps.setString(2, keyId);
        return ps.executeUpdate();
      }
    });
    invalidateKey(keyId);
    return updated > 0;
  }

  /**
   * Sets the models a team allows and the organisation it belongs to. Invalidates the cache.
   *
   * @param teamId the team
   * @param orgId the organisation, or {@code null}
   * @param grant the grant
   * @throws NullPointerException if teamId or grant is null
   * @throws PointsmanException with status 503 if the database cannot be written
   */
  public void putTeam(String teamId, String orgId, Grant grant) {
    Objects.requireNonNull(teamId, "teamId");
    Objects.requireNonNull(grant, "grant");
    Sql.inTransaction(jdbi, "storing team " + teamId, h -> {
      Connection c = h.getConnection();
      try (PreparedStatement ps = c.prepareStatement("INSERT INTO pointsman.teams"
          + " (team_id, org_id, every_model, models) VALUES (?, ?, ?, ?)"
          + " ON CONFLICT (team_id) DO UPDATE SET org_id = excluded.org_id,"
          + " every_model = excluded.every_model, models = excluded.models,"
          + " updated_at = now()")) {
        ps.setString(1, teamId);
        ps.setString(2, orgId);
        ps.setBoolean(3, grant.everyModel());
        ps.setArray(4, Sql.text(c, grant.models().toArray(new String[0])));
        return ps.executeUpdate();
      }
    });
    cache.clear();
  }

  /**
   * Sets the models an organisation allows. Invalidates the cache.
   *
   * @param orgId the organisation
   * @param grant the grant
   * @throws NullPointerException if an argument is null
   * @throws PointsmanException with status 503 if the database cannot be written
   */
  public void putOrg(String orgId, Grant grant) {
    Objects.requireNonNull(orgId, "orgId");
    Objects.requireNonNull(grant, "grant");
    Sql.inTransaction(jdbi, "storing org " + orgId, h -> {
      Connection c = h.getConnection();
      try (PreparedStatement ps = c.prepareStatement("INSERT INTO pointsman.orgs"
          + " (org_id, every_model, models) VALUES (?, ?, ?)"
          + " ON CONFLICT (org_id) DO UPDATE SET every_model = excluded.every_model,"
          + " models = excluded.models, updated_at = now()")) {
        ps.setString(1, orgId);
        ps.setBoolean(2, grant.everyModel());
        ps.setArray(3, Sql.text(c, grant.models().toArray(new String[0])));
        return ps.executeUpdate();
      }
    });
    cache.clear();
  }

  /**
   * Records a user and where it belongs, for reporting.
   *
   * @param userId the user
   * @param teamId the team, or {@code null}
   * @param orgId the organisation, or {@code null}
   * @throws NullPointerException if userId is null
   * @throws PointsmanException with status 503 if the database cannot be written
   */
  public void putUser(String userId, String teamId, String orgId) {
    Objects.requireNonNull(userId, "userId");
    Sql.inTransaction(jdbi, "storing user " + userId, h -> {
      try (PreparedStatement ps = h.getConnection().prepareStatement("INSERT INTO"
          + " pointsman.users (user_id, team_id, org_id) VALUES (?, ?, ?)"
          + " ON CONFLICT (user_id) DO UPDATE SET team_id = excluded.team_id,"
          + " org_id = excluded.org_id, updated_at = now()")) {
        ps.setString(1, userId);
        ps.setString(2, teamId);
        ps.setString(3, orgId);
        return ps.executeUpdate();
      }
    });
  }

  /** Forgets every cached key, so the next call of each reads the database. */
  public void invalidateAll() {
    cache.clear();
  }

  /**
   * {@inheritDoc}
   *
   * @throws PointsmanException with status 401 when the key is malformed, unknown, expired or
   *     revoked, and with status 503 when the database cannot be read
   */
  @Override
  public Identity authenticate(String presentedKey) {
    if (!VirtualKeys.wellFormed(presentedKey)) {
      throw deny("malformed virtual key");
    }
    byte[] hash = VirtualKeys.hash(presentedKey);
    ByteBuffer slot = ByteBuffer.wrap(hash);
    long now = clock.nanoTime();
    Cached entry = cache.get(slot);
    if (entry == null || now - entry.loadedNanos() >= ttlNanos) {
      entry = load(hash, now);
      if (entry == null) {
        cache.remove(slot);
        throw deny("unknown virtual key");
      }
      if (ttlNanos > 0) {
        cache.put(slot, entry);
      }
    }
    if (!MessageDigest.isEqual(entry.hash(), hash)) {
      throw deny("unknown virtual key");
    }
    if (entry.revoked()) {
      throw deny("revoked virtual key");
    }
    KeySpec spec = entry.spec();
    if (spec.expiresAt() != null && !clock.now().isBefore(spec.expiresAt())) {
      throw deny("expired virtual key");
    }
    return new Identity(spec.keyId(), spec.userId(), spec.teamId(), spec.orgId(), spec.tags(),
        spec.models(), entry.team(), entry.org());
  }

  @Override
  public String toString() {
    return "PostgresKeyStore{cached=" + cache.size() + "}";
  }

  private Cached load(byte[] hash, long now) {
    return Sql.inTransaction(jdbi, "reading a virtual key", h -> {
      try (PreparedStatement ps = h.getConnection().prepareStatement(LOOKUP_SQL)) {
        ps.setBytes(1, hash);
        try (ResultSet rs = ps.executeQuery()) {
          if (!rs.next()) {
            return null;
          }
          Timestamp expires = rs.getTimestamp(9);
          KeySpec spec = new KeySpec(rs.getString(2), rs.getString(3), rs.getString(4),
              rs.getString(5), strings(rs.getArray(6)),
              grant(rs.getBoolean(7), rs.getArray(8)),
              expires == null ? null : expires.toInstant());
          boolean revoked = rs.getTimestamp(10) != null;
          // A team or org without a row allows every model, as in the in-memory store.
          Grant team = rs.getObject(11) == null ? Grant.all()
              : grant(rs.getBoolean(11), rs.getArray(12));
          Grant org = rs.getObject(13) == null ? Grant.all()
              : grant(rs.getBoolean(13), rs.getArray(14));
          return new Cached(rs.getBytes(1), spec, revoked, team, org, now);
        }
      }
    });
  }

  private void invalidateKey(String keyId) {
    cache.values().removeIf(c -> c.spec().keyId().equals(keyId));
  }

  private static void bindSpec(Connection c, PreparedStatement ps, int from, KeySpec spec)
      throws SQLException {
    ps.setString(from, spec.userId());
    ps.setString(from + 1, spec.teamId());
    ps.setString(from + 2, spec.orgId());
    ps.setArray(from + 3, Sql.text(c, spec.tags().toArray(new String[0])));
    ps.setBoolean(from + 4, spec.models().everyModel());
    ps.setArray(from + 5, Sql.text(c, spec.models().models().toArray(new String[0])));
    Instant expires = spec.expiresAt();
    ps.setTimestamp(from + 6, expires == null ? null : Timestamp.from(expires));
  }

  private static Grant grant(boolean everyModel, Array models) throws SQLException {
    return new Grant(everyModel, strings(models));
  }

  private static Set<String> strings(Array array) throws SQLException {
    if (array == null) {
      return Set.of();
    }
    return Set.copyOf(Arrays.asList((String[]) array.getArray()));
  }

  private static PointsmanException deny(String message) {
    return PointsmanException.denied(Status.UNAUTHORIZED, Stages.IDENTITY_AUTH, null, message);
  }
}
