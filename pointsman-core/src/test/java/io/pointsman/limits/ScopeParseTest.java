package io.pointsman.limits;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

/** A scope read back from the text it prints; what is not a scope is refused. */
class ScopeParseTest {
  @Test
  void everyScopeReadsBackFromItsText() {
    for (Scope s : List.of(Scope.global(), Scope.key("k1"), Scope.team("checkout"),
        Scope.org("acme"), Scope.tag("batch"), Scope.model("gpt-4o-mini"))) {
      assertThat(Scope.parse(s.toString())).isEqualTo(s);
    }
    assertThat(Scope.parse("team:a:b")).isEqualTo(Scope.team("a:b"));
  }

  @Test
  void textThatIsNoScopeIsRefused() {
    for (String bad : new String[] {"", "team", "team:", ":x", "user:u1", "Global"}) {
      assertThatThrownBy(() -> Scope.parse(bad)).as(bad)
          .isInstanceOf(IllegalArgumentException.class);
    }
    assertThatThrownBy(() -> Scope.parse(null)).isInstanceOf(IllegalArgumentException.class);
  }
}
