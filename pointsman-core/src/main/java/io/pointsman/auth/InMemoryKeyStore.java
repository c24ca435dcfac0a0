package io.pointsman.auth;

import io.pointsman.Clock;
import io.pointsman.PointsmanException;
import io.pointsman.Stages;
import io.pointsman.Status;
import io.pointsman.spi.Authenticator;
import io.pointsman.spi.Grant;
import io.pointsman.spi.Identity;
import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The default {@link Authenticator}: virtual keys held in memory as SHA-256 hashes only, with
 * per-team and per-org model grants. Lookups go by hash and the stored hash is compared in
 * constant time. Thread-safe; keys, teams and orgs may change while calls run.
 *
 * <pre>{@code
 * InMemoryKeyStore keys = new InMemoryKeyStore(Clock.system());
 * String key = VirtualKeys.generate();
 * keys.addKey(key, KeySpec.builder("key-1").team("t1").org("acme").build());
 * keys.putTeam("t1", Grant.only("gpt-4o-mini"));
 * }</pre>
 */
public final class InMemoryKeyStore implements Authenticator {
  private record Entry(byte[] hash, KeySpec spec, boolean revoked) {}

  private final Clock clock;
  private final Map<ByteBuffer, Entry> byHash = new ConcurrentHashMap<>();
  private final Map<String, ByteBuffer> byId = new ConcurrentHashMap<>();
  private final Map<String, Grant> teams = new ConcurrentHashMap<>();
  private final Map<String, Grant> orgs = new ConcurrentHashMap<>();

  /**
   * Creates an empty store.
   *
   * @param clock the clock that decides expiry
   */
  public InMemoryKeyStore(Clock clock) {
    this.clock = Objects.requireNonNull(clock, "clock");
  }

  /**
   * Adds a key. Only its hash is kept.
   *
   * @param key the key as callers will present it
   * @param spec what the key stands for
   * @return this store
   * @throws NullPointerException if key or spec is null
   * @throws IllegalArgumentException if the key is malformed or its id is already used
   */
  public InMemoryKeyStore addKey(String key, KeySpec spec) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(spec, "spec");
    if (!VirtualKeys.wellFormed(key)) {
      throw new IllegalArgumentException(
          "key must be 8 to 256 printable ASCII characters without spaces");
    }
    byte[] hash = VirtualKeys.hash(key);
    ByteBuffer h = ByteBuffer.wrap(hash);
    if (byId.putIfAbsent(spec.keyId(), h) != null) {
      throw new IllegalArgumentException("key id already used: " + spec.keyId());
    }
    byHash.put(h, new Entry(hash, spec, false));
    return this;
  }

  /**
   * Revokes a key: later calls with it get 401.
   *
   * @param keyId the key's id
   * @return true if the key existed
   */
  public boolean revoke(String keyId) {
    ByteBuffer h = byId.get(keyId);
    if (h == null) {
      return false;
    }
    byHash.computeIfPresent(h, (k, e) -> new Entry(e.hash(), e.spec(), true));
    return true;
  }

  /**
   * Sets the models a team allows.
   *
   * @param teamId the team
   * @param grant the grant
   * @return this store
   */
  public InMemoryKeyStore putTeam(String teamId, Grant grant) {
    teams.put(Objects.requireNonNull(teamId, "teamId"), Objects.requireNonNull(grant, "grant"));
    return this;
  }

  /**
   * Sets the models an organisation allows.
   *
   * @param orgId the organisation
   * @param grant the grant
   * @return this store
   */
  public InMemoryKeyStore putOrg(String orgId, Grant grant) {
    orgs.put(Objects.requireNonNull(orgId, "orgId"), Objects.requireNonNull(grant, "grant"));
    return this;
  }

  @Override
  public Identity authenticate(String presentedKey) {
    if (!VirtualKeys.wellFormed(presentedKey)) {
      throw deny("malformed virtual key");
    }
    byte[] hash = VirtualKeys.hash(presentedKey);
    Entry entry = byHash.get(ByteBuffer.wrap(hash));
    if (entry == null || !MessageDigest.isEqual(entry.hash(), hash)) {
      throw deny("unknown virtual key");
    }
    if (entry.revoked()) {
      throw deny("revoked virtual key");
    }
    KeySpec spec = entry.spec();
    if (spec.expiresAt() != null && !clock.now().isBefore(spec.expiresAt())) {
      throw deny("expired virtual key");
    }
    Grant team = spec.teamId() == null ? Grant.all() : teams.getOrDefault(spec.teamId(),
        Grant.all());
    Grant org = spec.orgId() == null ? Grant.all() : orgs.getOrDefault(spec.orgId(),
        Grant.all());
    return new Identity(spec.keyId(), spec.userId(), spec.teamId(), spec.orgId(), spec.tags(),
        spec.models(), team, org);
  }

  private static PointsmanException deny(String message) {
    return PointsmanException.denied(Status.UNAUTHORIZED, Stages.IDENTITY_AUTH, null, message);
  }
}
