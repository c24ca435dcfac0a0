package io.pointsman;

import io.pointsman.guardrail.GuardrailListener;
import io.pointsman.guardrail.InputGuardrailChain;
import io.pointsman.guardrail.OutputGuardrailChain;
import io.pointsman.spi.InputGuardrail;
import io.pointsman.spi.OutputGuardrail;

/**
 * The gateway's guardrail defaults and how its guardrail listener attaches to the chains;
 * arguments are null when not set.
 */
final class GuardrailDefaults {
  private GuardrailDefaults() {}

  static InputGuardrail input(InputGuardrail set, GuardrailListener listener) {
    InputGuardrail g = set == null ? InputGuardrailChain.ofDefaults() : set;
    return listener != null && g instanceof InputGuardrailChain chain
        ? chain.withListener(listener) : g;
  }

  static OutputGuardrail output(OutputGuardrail set,
      GuardrailListener listener) {
    OutputGuardrail g = set == null ? OutputGuardrail.none() : set;
    return listener != null && g instanceof OutputGuardrailChain chain
        ? chain.withListener(listener) : g;
  }

  static void check(InputGuardrail input, OutputGuardrail output,
      GuardrailListener listener) {
    if (listener != null && input != null && !(input instanceof InputGuardrailChain)
        && !(output instanceof OutputGuardrailChain)) {
      throw new IllegalStateException("the guardrail listener needs an InputGuardrailChain or an"
          + " OutputGuardrailChain: keep the default input guardrail or set a chain");
    }
  }
}
