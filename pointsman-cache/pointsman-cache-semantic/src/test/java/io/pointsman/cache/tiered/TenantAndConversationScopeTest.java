package io.pointsman.cache.tiered;

import static org.assertj.core.api.Assertions.assertThat;

import io.pointsman.CacheOutcome;
import io.pointsman.ChatResult;
import io.pointsman.cache.exact.CaffeineExactCache;
import io.pointsman.cache.redis.RedisConnection;
import io.pointsman.cache.redis.testing.TestRedis;
import io.pointsman.cache.semantic.SemanticCache;
import io.pointsman.cache.testing.GatewayRig;
import io.pointsman.cache.testing.SharedEmbedder;
import io.pointsman.cache.tiered.CacheCounters.Counter;
import io.pointsman.model.ChatRequest;
import io.pointsman.model.Message;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Through the gateway, with the exact and semantic layers (and, for two instances, Redis):
 * keys without a team or an org never share an entry, and the semantic layer compares the last
 * user turn only when everything before it is the same.
 */
class TenantAndConversationScopeTest {
  private final List<AutoCloseable> closing = new ArrayList<>();

  @AfterEach
  void stop() throws Exception {
    for (int i = closing.size() - 1; i >= 0; i--) {
      closing.get(i).close();
    }
  }

  private record Instance(GatewayRig rig, CaffeineExactCache exact, SemanticCache semantic,
      CacheCounters counters) {}

  private Instance instance(RedisConnection shared) {
    CacheCounters counters = new CacheCounters();
    CaffeineExactCache.Builder exact = CaffeineExactCache.builder().counters(counters);
    SemanticCache.Builder semantic = SemanticCache.builder(SharedEmbedder.get())
        .lookupDeadline(SharedEmbedder.PATIENT)
        .counters(counters);
    if (shared != null) {
      exact.shared(shared);
      semantic.shared(shared);
    }
    CaffeineExactCache exactCache = exact.build();
    SemanticCache semanticCache = semantic.build();
    closing.add(semanticCache);
    closing.add(exactCache);
    return new Instance(new GatewayRig(TieredCache.of(exactCache, semanticCache)), exactCache,
        semanticCache, counters);
  }

  @Test
  void twoKeysWithoutTeamOrOrgShareNoEntryInEitherLayer() throws Exception {
    Instance gateway = instance(null);
    String prompt = "What is the capital of France?";
    gateway.rig().call(GatewayRig.LONE_A_KEY, prompt);
    assertThat(gateway.rig().gateway.cache().awaitStores(Duration.ofSeconds(30))).isTrue();
    // The identical prompt: a miss in the exact layer and an empty scope in the semantic one.
    ChatResult same = gateway.rig().call(GatewayRig.LONE_B_KEY, prompt);
    assertThat(same.cacheStatus().outcome()).isEqualTo(CacheOutcome.MISS);
    assertThat(same.cacheStatus().reason()).contains("semantic: empty scope");
    assertThat(gateway.rig().fixture.sends()).isEqualTo(2);
    ChatResult own = gateway.rig().call(GatewayRig.LONE_A_KEY, "What's the capital of France?");
    assertThat(own.cacheStatus().outcome()).isEqualTo(CacheOutcome.HIT);
    assertThat(own.cacheStatus().layer()).isEqualTo(SemanticCache.LAYER);
  }

  @Test
  void twoKeysWithoutTeamOrOrgShareNoEntryAcrossInstancesThroughRedis() throws Exception {
    TestRedis redis = TestRedis.start();
    closing.add(redis);
    RedisConnection first = RedisConnection.builder(redis.uri()).keyPrefix(redis.keyPrefix())
        .build();
    RedisConnection second = RedisConnection.builder(redis.uri()).keyPrefix(redis.keyPrefix())
        .build();
    closing.add(first);
    closing.add(second);
    Instance a = instance(first);
    Instance b = instance(second);
    String prompt = "How do I reverse a list in Python?";
    a.rig().call(GatewayRig.LONE_A_KEY, prompt);
    assertThat(a.rig().gateway.cache().awaitStores(Duration.ofSeconds(30))).isTrue();
    TieredGatewayTest.awaitCounter(b.counters(), Counter.ENTRIES_REPLICATED, 1);
    ChatResult other = b.rig().call(GatewayRig.LONE_B_KEY, prompt);
    assertThat(other.cacheStatus().outcome()).isEqualTo(CacheOutcome.MISS);
    assertThat(other.cacheStatus().reason()).contains("semantic: empty scope");
    // The same key on the other instance is served from Redis and from the stream.
    assertThat(b.rig().call(GatewayRig.LONE_A_KEY, prompt).cacheStatus().layer())
        .isEqualTo(CaffeineExactCache.SHARED_LAYER);
    assertThat(b.rig().call(GatewayRig.LONE_A_KEY, "How can I reverse a list in Python?")
        .cacheStatus().layer()).isEqualTo(SemanticCache.LAYER);
  }

  private static ChatRequest conversation(String system, String... turns) {
    ChatRequest.Builder b = ChatRequest.builder().model("gpt-test").temperature(0.0)
        .maxTokens(100).addMessage(Message.system(system));
    for (int i = 0; i < turns.length; i++) {
      b.addMessage(i % 2 == 0 ? Message.user(turns[i]) : Message.assistant(turns[i]));
    }
    return b.build();
  }

  @Test
  void theLastTurnIsComparedOnlyWhenEverythingBeforeItIsTheSame() throws Exception {
    Instance gateway = instance(null);
    ChatRequest paris = conversation("Be brief.", "Tell me about Paris.", "A capital.",
        "How many people live there?");
    gateway.rig().call(GatewayRig.ACME_KEY, paris);
    assertThat(gateway.rig().gateway.cache().awaitStores(Duration.ofSeconds(30))).isTrue();

    ChatResult rome = gateway.rig().call(GatewayRig.ACME_KEY, conversation("Be brief.",
        "Tell me about Rome.", "A capital.", "How many people live there?"));
    ChatResult otherSystem = gateway.rig().call(GatewayRig.ACME_KEY, conversation(
        "Answer in French.", "Tell me about Paris.", "A capital.",
        "How many people live there?"));
    ChatResult shorter = gateway.rig().call(GatewayRig.ACME_KEY, conversation("Be brief.",
        "How many people live there?"));
    assertThat(List.of(rome, otherSystem, shorter)).allSatisfy(r -> {
      assertThat(r.cacheStatus().outcome()).isEqualTo(CacheOutcome.MISS);
      assertThat(r.cacheStatus().reason()).contains("semantic: empty scope");
    });
    ChatResult paraphrase = gateway.rig().call(GatewayRig.ACME_KEY, conversation("Be brief.",
        "Tell me about Paris.", "A capital.", "How many people live there"));
    assertThat(paraphrase.cacheStatus().outcome()).isEqualTo(CacheOutcome.HIT);
    assertThat(paraphrase.cacheStatus().layer()).isEqualTo(SemanticCache.LAYER);
    assertThat(gateway.rig().fixture.sends()).isEqualTo(4);
  }
}
