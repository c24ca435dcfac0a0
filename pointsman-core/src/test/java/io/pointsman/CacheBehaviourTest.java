package io.pointsman;

import static org.assertj.core.api.Assertions.assertThat;

import io.pointsman.model.ChatRequest;
import io.pointsman.model.ChatResponse;
import io.pointsman.model.Json;
import io.pointsman.spi.CacheLookup;
import io.pointsman.spi.CacheQuery;
import io.pointsman.spi.ResponseCache;
import org.junit.jupiter.api.Test;

class CacheBehaviourTest {
  private final TestRig rig = new TestRig();
  private final Gateway gateway = rig.builder().build();

  private ChatResult call(ChatRequest r, String key, CacheControl control) {
    return gateway.chat(r, CallOptions.builder(key).cacheControl(control).build());
  }

  @Test
  void aRepeatedDeterministicRequestIsAnExactHitThatCostsNothing() {
    ChatResult miss = call(TestRig.request("q"), TestRig.KEY, CacheControl.DEFAULT);
    ChatResult hit = call(TestRig.request("q"), TestRig.KEY, CacheControl.DEFAULT);
    assertThat(miss.cacheStatus()).isEqualTo(CacheStatus.miss("exact"));
    assertThat(hit.cacheStatus()).isEqualTo(CacheStatus.hit("exact"));
    assertThat(hit.response()).isEqualTo(miss.response());
    assertThat(hit.costMicros()).isZero();
    assertThat(hit.usage()).isNull();
    assertThat(rig.fixture.sends()).isEqualTo(1);
  }

  @Test
  void keyOrderAndIrrelevantFieldsDoNotChangeTheKey() {
    call(Json.readRequest("{\"model\":\"gpt-test\",\"temperature\":0,\"messages\":[{\"role\":"
        + "\"user\",\"content\":\"q\"}],\"user\":\"a\"}"), TestRig.KEY, CacheControl.DEFAULT);
    ChatResult hit = call(Json.readRequest("{\"messages\":[{\"content\":\"q\",\"role\":"
        + "\"user\"}],\"user\":\"b\",\"temperature\":0.0,\"model\":\"test\",\"n\":1}"),
        TestRig.KEY, CacheControl.DEFAULT);
    assertThat(hit.cacheStatus().outcome()).isEqualTo(CacheOutcome.HIT);
  }

  @Test
  void entriesNeverCrossTenants() {
    call(TestRig.request("q"), TestRig.KEY, CacheControl.DEFAULT);
    ChatResult otherOrg = call(TestRig.request("q"), TestRig.OTHER_ORG_KEY,
        CacheControl.DEFAULT);
    assertThat(otherOrg.cacheStatus().outcome()).isEqualTo(CacheOutcome.MISS);
  }

  @Test
  void noCacheSkipsTheReadButStoresAndNoStoreDoesNeither() {
    ChatResult bypass = call(TestRig.request("q"), TestRig.KEY, CacheControl.NO_CACHE);
    assertThat(bypass.cacheStatus()).isEqualTo(CacheStatus.bypass());
    ChatResult afterBypass = call(TestRig.request("q"), TestRig.KEY, CacheControl.DEFAULT);
    assertThat(afterBypass.cacheStatus().outcome()).isEqualTo(CacheOutcome.HIT);

    ChatResult noStore = call(TestRig.request("z"), TestRig.KEY, CacheControl.NO_STORE);
    assertThat(noStore.cacheStatus()).isEqualTo(CacheStatus.skipped("no-store"));
    ChatResult afterNoStore = call(TestRig.request("z"), TestRig.KEY, CacheControl.DEFAULT);
    assertThat(afterNoStore.cacheStatus().outcome()).isEqualTo(CacheOutcome.MISS);
  }

  @Test
  void nonDeterministicRequestsAreSkippedWithTheReason() {
    ChatRequest warm = TestRig.request("q").toBuilder().temperature(0.7).build();
    ChatResult first = call(warm, TestRig.KEY, CacheControl.DEFAULT);
    ChatResult second = call(warm, TestRig.KEY, CacheControl.DEFAULT);
    assertThat(first.cacheStatus()).isEqualTo(CacheStatus.skipped("not deterministic"));
    assertThat(second.cacheStatus().outcome()).isEqualTo(CacheOutcome.SKIPPED);
    assertThat(rig.fixture.sends()).isEqualTo(2);
  }

  @Test
  void aFailingCacheDegradesToAMissNeverToAFailure() {
    ResponseCache broken = new ResponseCache() {
      @Override
      public CacheLookup lookup(CacheQuery query) {
        throw new IllegalStateException("redis down");
      }

      @Override
      public void store(CacheQuery query, ChatResponse response) {
        throw new IllegalStateException("redis down");
      }
    };
    ChatResult result = new TestRig().builder().cache(broken).build()
        .chat(TestRig.request("q"), CallOptions.of(TestRig.KEY));
    assertThat(result.cacheStatus()).isEqualTo(CacheStatus.error("cache"));
  }
}
