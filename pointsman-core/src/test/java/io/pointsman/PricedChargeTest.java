package io.pointsman;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.pointsman.accounting.InMemoryAccounting;
import io.pointsman.auth.InMemoryKeyStore;
import io.pointsman.auth.KeySpec;
import io.pointsman.catalog.ModelCatalog;
import io.pointsman.catalog.ModelSpec;
import io.pointsman.catalog.Price;
import io.pointsman.limits.InMemoryLimiter;
import io.pointsman.limits.Scope;
import io.pointsman.model.ChatRequest;
import io.pointsman.model.ChatResponse;
import io.pointsman.model.Message;
import io.pointsman.model.PromptTokensDetails;
import io.pointsman.model.Usage;
import io.pointsman.spi.Admission;
import io.pointsman.spi.Deployment;
import io.pointsman.spi.Limiter;
import io.pointsman.spi.ProviderReply;
import io.pointsman.spi.UsageRecord;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Cache-write and reasoning tokens charged at their own prices, the hold covering them, and
 * the price version on the usage record.
 */
class PricedChargeTest {
  private static final String KEY = "pm-priced-charge-key-01";
  private static final Price PRICE = Price.builder().input(1_000_000).output(2_000_000)
      .cachedInput(100_000).cacheWrite(1_250_000).reasoning(4_000_000).version("v-test")
      .build();

  private final List<Admission> admitted = new ArrayList<>();
  private final InMemoryAccounting accounting = new InMemoryAccounting();

  private Gateway gateway(Usage usage, Deployment deployment) {
    InMemoryKeyStore keys = new InMemoryKeyStore(Clock.system());
    keys.addKey(KEY, KeySpec.builder("k1").team("t1").build());
    InMemoryLimiter budgets = InMemoryLimiter.builder().budget(Scope.team("t1"), 1_000_000_000L)
        .build();
    Limiter recording = admission -> {
      admitted.add(admission);
      return budgets.reserve(admission);
    };
    return Gateway.builder().authenticator(keys)
        .models(ModelCatalog.builder().model(ModelSpec.builder("m").contextWindow(100_000)
            .maxOutputTokens(1_000).price(PRICE).build()).build())
        .limiter(recording).accounting(accounting)
        .provider("p", call -> new ProviderReply(ChatResponse.ofText("m", "ok"), usage, false))
        .deployment(deployment).build();
  }

  private static Usage usage(long prompt, long cached, long cacheWrite, long completion,
      long reasoning) {
    ObjectNode details = JsonNodeFactory.instance.objectNode().put("reasoning_tokens", reasoning);
    // As Anthropic's usage came before the count was named: the top-level extra field.
    return new Usage(prompt, completion, prompt + completion,
        new PromptTokensDetails(cached, null), details,
        Map.of(Usage.LEGACY_CACHE_CREATION, JsonNodeFactory.instance.numberNode(cacheWrite)));
  }

  private static ChatRequest request() {
    return ChatRequest.builder().model("m").addMessage(Message.user("hello")).maxTokens(500)
        .build();
  }

  @Test
  void everyTokenClassIsChargedAtItsOwnPrice() {
    // 1,000 prompt tokens: 200 cache reads, 300 cache writes, 500 plain; 500 completion
    // tokens: 400 reasoning, 100 plain.
    Gateway g = gateway(usage(1_000, 200, 300, 500, 400), Deployment.of("d", "p", "m"));
    ChatResult r = g.chat(request(), CallOptions.of(KEY));
    long expected = 500 * 1 + 200 / 10 + 300 * 5 / 4 + 100 * 2 + 400 * 4; // 2,695
    assertThat(r.costMicros()).isEqualTo(expected).isEqualTo(2_695);
    assertThat(r.costEstimated()).isFalse();
    // Priced as before cache writes and reasoning had prices of their own, it was 1,820.
    assertThat(r.costMicros()).isNotEqualTo(PRICE.cost(800, 200, 500));
    UsageRecord rec = accounting.records().get(0);
    assertThat(rec.costMicros()).isEqualTo(2_695);
    assertThat(rec.priceVersion()).isEqualTo("v-test");
    assertThat(rec.usage().cacheCreationTokens()).isEqualTo(300);
    assertThat(rec.usage().reasoningTokens()).isEqualTo(400);
  }

  @Test
  void theHoldCoversInputAtTheDearestInputPriceAndOutputAtTheDearestOutputPrice() {
    Gateway g = gateway(usage(10, 0, 0, 5, 0), Deployment.of("d", "p", "m"));
    g.chat(request(), CallOptions.of(KEY));
    Admission a = admitted.get(0);
    long input = a.inputTokens();
    // input at the cache-write price (1.25), output at the reasoning price (4)
    long expected = (input * 1_250_000 + 500L * 4_000_000 + 999_999) / 1_000_000;
    assertThat(a.worstCaseMicros()).isEqualTo(expected);
    assertThat(a.worstCaseMicros()).isGreaterThan(PRICE.cost(input, 0, 500));
  }

  @Test
  void moreReasoningThanCompletionTokensIsImpossibleUsageChargedTheWorstCase() {
    Gateway g = gateway(usage(100, 0, 0, 10, 11), Deployment.of("d", "p", "m"));
    ChatResult r = g.chat(request(), CallOptions.of(KEY));
    assertThat(r.costEstimated()).isTrue();
    assertThat(r.costMicros()).isEqualTo(admitted.get(0).worstCaseMicros());
    assertThat(g.invalidUsageCount()).isEqualTo(1);
    assertThat(accounting.records().get(0).priceVersion()).isEqualTo("v-test");
  }

  @Test
  void moreCacheWritesThanUncachedPromptTokensIsImpossibleUsage() {
    Gateway g = gateway(usage(100, 60, 41, 10, 0), Deployment.of("d", "p", "m"));
    ChatResult r = g.chat(request(), CallOptions.of(KEY));
    assertThat(r.costEstimated()).isTrue();
    assertThat(g.invalidUsageCount()).isEqualTo(1);
  }

  @Test
  void aDeploymentsPriceOverrideIsRecordedUnderItsVersion() {
    Price override = Price.builder().input(3_000_000).output(3_000_000).version("contract-7")
        .build();
    Gateway g = gateway(usage(100, 0, 0, 10, 0),
        new Deployment("d", "p", "m", "m", override));
    ChatResult r = g.chat(request(), CallOptions.of(KEY));
    assertThat(r.costMicros()).isEqualTo(330);
    assertThat(accounting.records().get(0).priceVersion()).isEqualTo("contract-7");
  }

  @Test
  void aPriceWithoutAVersionIsRecordedUnderItsFingerprint() {
    Price plain = new Price(150_000, 600_000, 75_000);
    assertThat(plain.version())
        .isEqualTo("in=150000;out=600000;cached=75000;write=150000;reasoning=600000");
    assertThat(Price.of(150_000, 600_000)).isEqualTo(new Price(150_000, 600_000, 150_000));
    assertThat(plain.withVersion("x").fingerprint()).isEqualTo(plain.version());
  }
}
