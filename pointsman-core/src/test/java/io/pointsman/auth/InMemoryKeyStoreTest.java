package io.pointsman.auth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.pointsman.PointsmanException;
import io.pointsman.Status;
import io.pointsman.spi.Grant;
import io.pointsman.spi.Identity;
import io.pointsman.testing.FakeClock;
import java.lang.reflect.Field;
import java.time.Duration;
import java.time.Instant;
import java.util.Set;
import org.junit.jupiter.api.Test;

class InMemoryKeyStoreTest {
  private final FakeClock clock = new FakeClock(Instant.parse("2026-01-01T00:00:00Z"));
  private final InMemoryKeyStore store = new InMemoryKeyStore(clock);

  @Test
  void resolvesIdentityWithComposedGrants() {
    String key = VirtualKeys.generate();
    store.addKey(key, KeySpec.builder("k1").user("u").team("t").org("o").tags("x")
        .models(Grant.only("a", "b")).build());
    store.putTeam("t", Grant.only("b", "c"));
    Identity id = store.authenticate(key);
    assertThat(id.keyId()).isEqualTo("k1");
    assertThat(id.tags()).isEqualTo(Set.of("x"));
    assertThat(id.allows("b", Set.of())).isTrue();
    assertThat(id.allows("a", Set.of())).as("team does not allow a").isFalse();
    assertThat(id.allows("c", Set.of())).as("key does not allow c").isFalse();
  }

  @Test
  void expiredAndRevokedKeysAre401() {
    String key = VirtualKeys.generate();
    store.addKey(key, KeySpec.builder("k1").expiresAt(clock.now().plusSeconds(60)).build());
    assertThat(store.authenticate(key).keyId()).isEqualTo("k1");
    clock.advance(Duration.ofSeconds(60));
    assertThatThrownBy(() -> store.authenticate(key)).isInstanceOfSatisfying(
        PointsmanException.class, e -> {
          assertThat(e.status()).isEqualTo(Status.UNAUTHORIZED);
          assertThat(e.getMessage()).isEqualTo("expired virtual key");
        });
    String other = VirtualKeys.generate();
    store.addKey(other, KeySpec.builder("k2").build());
    assertThat(store.revoke("k2")).isTrue();
    assertThatThrownBy(() -> store.authenticate(other)).hasMessage("revoked virtual key");
  }

  @Test
  void storesOnlyHashesNeverTheKey() throws Exception {
    String key = VirtualKeys.generate();
    store.addKey(key, KeySpec.builder("k1").build());
    for (Field f : InMemoryKeyStore.class.getDeclaredFields()) {
      f.setAccessible(true);
      assertThat(String.valueOf(f.get(store))).doesNotContain(key);
    }
  }

  @Test
  void generatedKeysAreWellFormedAndDistinct() {
    String a = VirtualKeys.generate();
    String b = VirtualKeys.generate();
    assertThat(a).startsWith("pm-").hasSize(46).isNotEqualTo(b);
    assertThat(VirtualKeys.wellFormed(a)).isTrue();
    assertThat(VirtualKeys.wellFormed("x".repeat(257))).isFalse();
  }
}
