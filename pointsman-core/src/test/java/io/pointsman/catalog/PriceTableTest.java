package io.pointsman.catalog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The LiteLLM price file loader, the exact conversion and the bundled table. */
class PriceTableTest {

  private static PriceTable sample() throws IOException {
    try (InputStream in = PriceTableTest.class.getResourceAsStream("/catalog/litellm-sample.json")) {
      return PriceTable.readLiteLlm(in, "sample-2026-11-30");
    }
  }

  @Test
  void readsEveryModelOfTheSampleButTheSampleSpec() throws IOException {
    PriceTable t = sample();
    assertThat(t.version()).isEqualTo("sample-2026-11-30");
    assertThat(t.models()).extracting(PricedModel::name).containsExactly("sample-chat",
        "sample-nano", "sample-reasoner", "sample-claude", "sample-embedding",
        "sample-per-character", "sample-negative", "sample-no-limits", "sample-fine");
  }

  @Test
  void aChatRowBecomesItsPriceLimitsAndCapabilities() throws IOException {
    PricedModel m = sample().model("sample-chat").orElseThrow();
    assertThat(m.price()).isEqualTo(new Price(2_500_000, 10_000_000, 1_250_000, 2_500_000,
        10_000_000, "sample-2026-11-30"));
    assertThat(m.contextWindow()).isEqualTo(128_000);
    assertThat(m.maxOutputTokens()).isEqualTo(16_384);
    assertThat(m.provider()).isEqualTo("openai");
    assertThat(m.source()).isEqualTo("https://example.test/pricing");
    assertThat(m.capabilities()).containsExactlyInAnyOrder(ModelSpec.STREAMING, ModelSpec.TOOLS,
        ModelSpec.VISION, ModelSpec.JSON_SCHEMA);
    ModelSpec spec = sample().spec("sample-chat").aliases("chat-latest").build();
    assertThat(spec.price()).isEqualTo(m.price());
    assertThat(spec.contextWindow()).isEqualTo(128_000);
    assertThat(spec.aliases()).containsExactly("chat-latest");
  }

  @Test
  void pricesAreConvertedFromTheirDecimalTextNotFromABinaryDouble() throws IOException {
    PricedModel nano = sample().model("sample-nano").orElseThrow();
    // 1e-09 per token is exactly 1,000 micro-units per million tokens; through a double,
    // 1e-09 * 1e12 is 1000.0000000000001 and rounding up would charge 1,001.
    assertThat(nano.price().inputPerMillion()).isEqualTo(1_000);
    assertThat(nano.price().outputPerMillion()).isEqualTo(4_000);
    assertThat(nano.price().cachedInputPerMillion()).isEqualTo(2_000);
    assertThat((long) Math.ceil(1e-09 * 1e12)).isEqualTo(1_001);
    assertThat(PriceTable.microsPerMillion(new BigDecimal("2e-09"))).isEqualTo(2_000);
    assertThat(PriceTable.microsPerMillion(new BigDecimal("1.6e-08"))).isEqualTo(16_000);
  }

  @Test
  void aPriceFinerThanOneMicroUnitPerMillionIsRoundedUp() throws IOException {
    Price fine = sample().model("sample-fine").orElseThrow().price();
    assertThat(fine.inputPerMillion()).isEqualTo(1_000_001);
    assertThat(PriceTable.microsPerMillion(new BigDecimal("1e-13"))).isEqualTo(1);
    assertThat(PriceTable.microsPerMillion(BigDecimal.ZERO)).isZero();
    assertThatThrownBy(() -> PriceTable.microsPerMillion(new BigDecimal("-1e-06")))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> PriceTable.microsPerMillion(new BigDecimal("1e+10")))
        .isInstanceOf(IllegalArgumentException.class);
    // "completion" is read as chat
    assertThat(sample().model("sample-fine").orElseThrow().mode()).isEqualTo(PricedModel.CHAT);
  }

  @Test
  void reasoningAndCacheWritesHaveTheirOwnPrices() throws IOException {
    Price reasoner = sample().model("sample-reasoner").orElseThrow().price();
    assertThat(reasoner.reasoningPerMillion()).isEqualTo(8_800_000);
    assertThat(reasoner.outputPerMillion()).isEqualTo(4_400_000);
    assertThat(reasoner.cacheWritePerMillion()).isEqualTo(1_100_000);
    assertThat(reasoner.cachedInputPerMillion()).isEqualTo(1_100_000);
    PricedModel claude = sample().model("sample-claude").orElseThrow();
    // The one-hour cache's write price, the dearer: usage does not say which cache was written.
    assertThat(claude.price().cacheWritePerMillion()).isEqualTo(6_000_000);
    assertThat(claude.price().cachedInputPerMillion()).isEqualTo(300_000);
    assertThat(claude.notes()).contains("one-hour");
  }

  @Test
  void aTieredModelIsCappedBelowItsFirstTier() throws IOException {
    PricedModel claude = sample().model("sample-claude").orElseThrow();
    assertThat(claude.contextWindow()).isEqualTo(200_000);
    assertThat(claude.notes()).contains("capped at 200000");
  }

  @Test
  void modelsWithoutATokenPriceHaveNoPriceNeverAZeroOne() throws IOException {
    PriceTable t = sample();
    assertThat(t.model("sample-per-character").orElseThrow().price()).isNull();
    assertThat(t.model("sample-per-character").orElseThrow().notes()).contains("cost unknown");
    assertThat(t.model("sample-negative").orElseThrow().price()).isNull();
    // a spec from an unpriced row has no price: the gateway charges its full reservation
    assertThat(t.spec("sample-per-character").build().price()).isNull();
  }

  @Test
  void embeddingRowsArePricedAndBecomeEmbeddingSpecs() throws IOException {
    PricedModel e = sample().model("sample-embedding").orElseThrow();
    assertThat(e.mode()).isEqualTo(PricedModel.EMBEDDING);
    assertThat(e.price().inputPerMillion()).isEqualTo(20_000);
    assertThat(e.price().outputPerMillion()).isZero();
    ModelSpec spec = sample().spec("sample-embedding").build();
    assertThat(spec.capabilities()).containsExactly(ModelSpec.EMBEDDINGS);
    assertThat(spec.supports(ModelSpec.TOOLS)).isFalse();
    assertThat(spec.price()).isEqualTo(e.price());
    assertThat(spec.contextWindow()).isEqualTo(e.contextWindow());
    assertThatThrownBy(() -> sample().spec("sample-no-limits"))
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("context window");
    assertThatThrownBy(() -> sample().spec("missing"))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void anOverrideReplacesOnePriceUnderItsOwnVersion() throws IOException {
    Price negotiated = Price.builder().input(2_000_000).output(8_000_000)
        .version("contract-2026-12").build();
    PriceTable t = sample().withOverride("sample-chat", negotiated);
    assertThat(t.model("sample-chat").orElseThrow().price()).isEqualTo(negotiated);
    assertThat(t.model("sample-nano").orElseThrow().price().version())
        .isEqualTo("sample-2026-11-30");
    assertThat(sample().model("sample-chat").orElseThrow().price().version())
        .isEqualTo("sample-2026-11-30");
    assertThatThrownBy(() -> sample().withOverride("missing", negotiated))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void malformedFilesAreRefusedWithATypedError() {
    assertThatThrownBy(() -> read("[1, 2]")).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("JSON object");
    assertThatThrownBy(() -> read("{\"m\": 3}")).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("m");
    assertThatThrownBy(() -> read("{\"m\": {")).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> PriceTable.readLiteLlm(
        new ByteArrayInputStream("{}".getBytes(StandardCharsets.UTF_8)), " "))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void aStringPriceLeavesTheModelUnpriced() throws IOException {
    PriceTable t = read("{\"m\": {\"input_cost_per_token\": \"1e-06\","
        + " \"output_cost_per_token\": 2e-06, \"max_input_tokens\": 10, \"max_output_tokens\": 5}}");
    assertThat(t.model("m").orElseThrow().price()).isNull();
  }

  /**
   * A million calls of one price: each charge is computed in integers from the converted
   * price, so the total is exactly a million times one call's charge, and it exceeds the exact
   * decimal cost by less than one micro-unit per call. Summing per-token double prices instead
   * drifts from the exact cost.
   */
  @Test
  void aMillionCallsOfOnePriceDoNotDrift() throws IOException {
    Price p = sample().model("sample-chat").orElseThrow().price();
    long input = 1_234;
    long cached = 200;
    long output = 567;
    long one = p.cost(input - cached, cached, output);
    long total = 0;
    double doubleTotalDollars = 0;
    for (int i = 0; i < 1_000_000; i++) {
      total = Math.addExact(total, p.cost(input - cached, cached, output));
      doubleTotalDollars += (input - cached) * 2.5e-06 + cached * 1.25e-06 + output * 1e-05;
    }
    assertThat(total).isEqualTo(one * 1_000_000);
    BigDecimal exactMicrosOneCall = new BigDecimal("2.5e-06").multiply(BigDecimal.valueOf(input - cached))
        .add(new BigDecimal("1.25e-06").multiply(BigDecimal.valueOf(cached)))
        .add(new BigDecimal("1e-05").multiply(BigDecimal.valueOf(output)))
        .multiply(BigDecimal.valueOf(1_000_000));
    BigDecimal exactTotal = exactMicrosOneCall.multiply(BigDecimal.valueOf(1_000_000));
    assertThat(BigDecimal.valueOf(total)).isGreaterThanOrEqualTo(exactTotal);
    assertThat(BigDecimal.valueOf(total).subtract(exactTotal))
        .isLessThan(BigDecimal.valueOf(1_000_000));
    assertThat(one).isEqualTo(exactMicrosOneCall.setScale(0, RoundingMode.CEILING).longValueExact());
    BigDecimal doubleMicros = new BigDecimal(doubleTotalDollars).multiply(BigDecimal.valueOf(1_000_000));
    assertThat(doubleMicros.compareTo(exactTotal)).isNotZero();
  }

  @Test
  void theBundledTableCoversCurrentOpenAiAndAnthropicModelsWithSourceAndDate() {
    PriceTable t = PriceTable.bundled();
    assertThat(t.version()).startsWith("pointsman-bundled-");
    Pattern date = Pattern.compile("\\d{4}-\\d{2}-\\d{2}");
    assertThat(t.models()).hasSizeGreaterThanOrEqualTo(15);
    for (PricedModel m : t.models()) {
      assertThat(m.price()).as(m.name()).isNotNull();
      assertThat(m.price().version()).isEqualTo(t.version());
      assertThat(m.source()).as(m.name()).startsWith("https://");
      assertThat(m.asOf()).as(m.name()).matches(date);
      assertThat(m.provider()).as(m.name()).isIn("openai", "anthropic");
      assertThat(m.contextWindow()).as(m.name()).isPositive();
      if (PricedModel.CHAT.equals(m.mode())) {
        assertThat(m.toSpec().build().price()).isEqualTo(m.price());
      }
    }
    assertThat(t.models()).filteredOn(m -> PricedModel.EMBEDDING.equals(m.mode())).isNotEmpty();
    assertThat(t.models()).filteredOn(m -> "anthropic".equals(m.provider())).allSatisfy(m ->
        assertThat(m.price().cacheWritePerMillion()).isGreaterThan(m.price().inputPerMillion()));
    Price sonnet = t.model("claude-sonnet-4-5").orElseThrow().price();
    assertThat(sonnet.inputPerMillion()).isEqualTo(3_000_000);
    assertThat(sonnet.outputPerMillion()).isEqualTo(15_000_000);
    assertThat(sonnet.cachedInputPerMillion()).isEqualTo(300_000);
    assertThat(t.model("gpt-4o-mini").orElseThrow().price().inputPerMillion()).isEqualTo(150_000);
  }

  private static PriceTable read(String json) throws IOException {
    return PriceTable.readLiteLlm(new ByteArrayInputStream(json.getBytes(StandardCharsets.UTF_8)),
        "t");
  }
}
