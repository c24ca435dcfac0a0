package io.pointsman.catalog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class PriceTest {
  @Test
  void costRoundsUpOnceToTheNextMicroUnit() {
    Price price = new Price(150_000, 600_000, 75_000); // $0.15 / $0.60 / $0.075 per 1M
    assertThat(price.cost(1_000_000, 0, 0)).isEqualTo(150_000);
    assertThat(price.cost(1, 0, 0)).isEqualTo(1);
    assertThat(price.cost(10, 0, 1)).isEqualTo(3); // 1.5 + 0.6 = 2.1 -> 3
    assertThat(price.cost(0, 0, 0)).isZero();
    assertThat(price.cost(100, 40, 10)).isEqualTo(24); // 15 + 3 + 6 = 24 exactly
  }

  @Test
  void overflowAndNegativeCountsAreRefused() {
    Price price = Price.of(Long.MAX_VALUE / 2, 1);
    assertThatThrownBy(() -> price.cost(3, 0, 0)).isInstanceOf(ArithmeticException.class);
    assertThatThrownBy(() -> price.cost(-1, 0, 0)).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void utf8LengthMatchesTheEncoder() {
    for (String s : new String[] {"", "abc", "é", "€", "😀", "日本語", "a\ud800b", "\udc00x",
        "long ascii ".repeat(100), "mixed é € 😀 \ud800 ".repeat(60)}) {
      assertThat(TokenBounds.utf8Length(s)).as(s)
          .isEqualTo(s.getBytes(java.nio.charset.StandardCharsets.UTF_8).length);
    }

  }

  @Test
  void theByteBoundIsNeverBelowTheExactCount() {
    String[] samples = {"hello world", "日本語のテキスト", "😀😀😀 emoji", "code { x = 1; }",
        "a".repeat(5000), "mixed é ü ß 中文 🚀 text " .repeat(50)};
    for (String s : samples) {
      var r = io.pointsman.model.ChatRequest.builder().model("m")
          .addMessage(io.pointsman.model.Message.user(s)).build();
      assertThat(TokenBounds.upperBound(r)).as(s).isGreaterThanOrEqualTo(TokenBounds.exact(r));
    }
  }
}
