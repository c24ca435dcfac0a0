package io.pointsman.ledger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.pointsman.PointsmanException;
import io.pointsman.Status;
import io.pointsman.auth.KeySpec;
import io.pointsman.auth.VirtualKeys;
import io.pointsman.ledger.testing.TestDatabase;
import io.pointsman.ledger.testing.TestDatabases;
import io.pointsman.spi.Grant;
import io.pointsman.spi.Identity;
import io.pointsman.testing.FakeClock;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Set;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class PostgresKeyStoreTest {
  private TestDatabase db;
  private DataSource ds;
  private FakeClock clock;
  private PostgresKeyStore keys;
  private String key;

  @BeforeEach
  void setUp() {
    db = TestDatabases.create();
    ds = db.dataSource();
    clock = new FakeClock(Fixtures.T0);
    keys = PostgresKeyStore.create(ds, clock, Duration.ofMinutes(10));
    key = VirtualKeys.generate();
    keys.addKey(key, KeySpec.builder("key-1").user("u1").team("t1").org("acme")
        .tags("prod").models(Grant.only("gpt-4o-mini")).build());
  }

  @AfterEach
  void tearDown() {
    db.close();
  }

  @Test
  void authenticatesAStoredKeyWithItsTeamAndOrgGrants() {
    keys.putTeam("t1", "acme", Grant.only("gpt-4o-mini", "gpt-4o"));
    keys.putOrg("acme", Grant.all());

    Identity who = keys.authenticate(key);

    assertThat(who.keyId()).isEqualTo("key-1");
    assertThat(who.teamId()).isEqualTo("t1");
    assertThat(who.tags()).containsExactly("prod");
    assertThat(who.allows("gpt-4o-mini", Set.of())).isTrue();
    assertThat(who.allows("gpt-4o", Set.of())).isFalse();
    assertThat(who.teamGrant()).isEqualTo(Grant.only("gpt-4o-mini", "gpt-4o"));
  }

  @Test
  void storesOnlyTheKeysHash() throws Exception {
    assertThat(Fixtures.string(ds, "SELECT encode(key_hash, 'hex') FROM pointsman.virtual_keys"))
        .isEqualTo(HexFormat.of().formatHex(VirtualKeys.hash(key)));
    assertThat(Fixtures.count(ds, "SELECT count(*) FROM pointsman.virtual_keys k"
        + " WHERE position('" + key.substring(3) + "' IN k::text) > 0")).isZero();
  }

  @Test
  void refusesMalformedUnknownAndExpiredKeysWith401() {
    keys.addKey("pm-expiring-key-123", KeySpec.builder("key-2")
        .expiresAt(Fixtures.T0.plusSeconds(60)).build());
    assertThat(keys.authenticate("pm-expiring-key-123").keyId()).isEqualTo("key-2");
    clock.advance(Duration.ofSeconds(60));

    for (String presented : new String[] {"short", "pm-unknown-key-000", "pm-expiring-key-123",
        "bad key with spaces"}) {
      assertThatThrownBy(() -> keys.authenticate(presented))
          .isInstanceOfSatisfying(PointsmanException.class,
              e -> assertThat(e.status()).isEqualTo(Status.UNAUTHORIZED));
    }
  }

  @Test
  void revokeTakesEffectAtOnceDespiteTheCache() {
    keys.authenticate(key);
    assertThat(keys.revoke("key-1")).isTrue();
    assertThat(keys.revoke("key-1")).isFalse();

    assertThatThrownBy(() -> keys.authenticate(key))
        .isInstanceOf(PointsmanException.class)
        .hasMessageContaining("revoked");
  }

  @Test
  void updateTakesEffectAtOnceDespiteTheCache() {
    assertThat(keys.authenticate(key).teamId()).isEqualTo("t1");

    assertThat(keys.updateKey(KeySpec.builder("key-1").team("t2").build())).isTrue();

    assertThat(keys.authenticate(key).teamId()).isEqualTo("t2");
  }

  @Test
  void changesByAnotherInstanceAreSeenOnceTheCacheEntryAges() {
    PostgresKeyStore other = PostgresKeyStore.create(ds, clock, Duration.ofMinutes(10));
    assertThat(keys.authenticate(key).keyId()).isEqualTo("key-1");

    other.revoke("key-1");
    // Still trusted from this instance's cache until its time to live passes.
    assertThat(keys.authenticate(key).keyId()).isEqualTo("key-1");
    clock.advance(Duration.ofMinutes(10));

    assertThatThrownBy(() -> keys.authenticate(key)).isInstanceOf(PointsmanException.class);
  }

  @Test
  void refusesADuplicateKeyId() {
    assertThatThrownBy(() -> keys.addKey(VirtualKeys.generate(), KeySpec.builder("key-1").build()))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
