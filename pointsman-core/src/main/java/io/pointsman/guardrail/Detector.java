package io.pointsman.guardrail;

import io.pointsman.model.Role;
import java.util.List;

/**
 * Finds rule violations in one text. A detector is what a guardrail chain runs over every text
 * field of a request or a response; the chain decides what to do with each finding from the
 * finding's rule name and the caller's identity (see {@link GuardrailPolicy}).
 *
 * <p>Rule names are {@code <family>.<name>}; a policy may set an action for a whole family.
 *
 * <p>Implementations must be thread-safe, must not keep the text, and must take time linear in
 * the text's length (or bounded by a budget, failing with {@link ScanBudgetExceededException}).
 */
public interface Detector {
  /**
   * Returns the family of the rules this detector reports, for example {@code secret}.
   *
   * @return the family name
   */
  String family();

  /**
   * Scans a text and appends what it found.
   *
   * @param text the text; may contain any UTF-16 sequence, including unpaired surrogates
   * @param out where to append findings
   * @throws ScanBudgetExceededException if the scan ran over its step budget
   */
  void scan(CharSequence text, List<Finding> out);

  /**
   * Returns whether this detector looks at messages of a role. Output chains ask about
   * {@link Role#ASSISTANT}.
   *
   * @param role the role of the message the text belongs to
   * @return true to scan it
   */
  default boolean appliesTo(Role role) {
    return true;
  }
}
