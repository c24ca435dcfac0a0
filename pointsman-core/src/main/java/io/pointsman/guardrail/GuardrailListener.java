package io.pointsman.guardrail;

import io.pointsman.spi.Identity;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Observes what guardrail chains found and did: flags, redactions and blocks. It is told the
 * rule, never the text.
 *
 * <p>Called synchronously on the request thread; implementations must be fast, thread-safe and
 * must not throw (a throwing listener is logged and ignored).
 */
@FunctionalInterface
public interface GuardrailListener {
  /** A listener that ignores everything. */
  GuardrailListener NONE = (identity, stage, rule, action) -> { };

  /**
   * Receives one finding the chain acted on.
   *
   * @param identity the caller
   * @param stage {@code guardrail.input} or {@code guardrail.output}
   * @param rule the rule that matched
   * @param action what the chain did: {@link GuardrailAction#FLAG}, {@link
   *     GuardrailAction#REDACT} or {@link GuardrailAction#BLOCK}
   */
  void onFinding(Identity identity, String stage, String rule, GuardrailAction action);

  /**
   * Returns a listener that tells each of the given listeners in turn; one that throws does not
   * keep the others from being told (it is logged and ignored by the chain).
   *
   * @param listeners the listeners
   * @return the composite, or the only listener when one is given
   * @throws NullPointerException if listeners or an element is null
   */
  static GuardrailListener composite(GuardrailListener... listeners) {
    List<GuardrailListener> all = new ArrayList<>();
    for (GuardrailListener l : listeners) {
      Objects.requireNonNull(l, "listener");
      if (l != NONE) {
        all.add(l);
      }
    }
    if (all.isEmpty()) {
      return NONE;
    }
    if (all.size() == 1) {
      return all.get(0);
    }
    List<GuardrailListener> copy = List.copyOf(all);
    return (identity, stage, rule, action) -> {
      RuntimeException first = null;
      for (GuardrailListener l : copy) {
        try {
          l.onFinding(identity, stage, rule, action);
        } catch (RuntimeException e) {
          if (first == null) {
            first = e;
          } else {
            first.addSuppressed(e);
          }
        }
      }
      if (first != null) {
        throw first;
      }
    };
  }
}
