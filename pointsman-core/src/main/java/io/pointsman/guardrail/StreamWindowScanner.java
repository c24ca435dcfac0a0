package io.pointsman.guardrail;

import io.pointsman.PointsmanException;
import io.pointsman.model.Role;
import io.pointsman.spi.Identity;
import java.util.ArrayList;
import java.util.List;

/**
 * Applies an {@link OutputGuardrailChain}'s rules to one streamed text, chunk by chunk, before
 * the text reaches the caller. Obtain one per stream from {@link
 * OutputGuardrailChain#streamScanner(Identity)}.
 *
 * <p>The scanner holds back the last {@code window} characters it was given and releases text
 * only once it lies further back than that, so every finding no longer than the window is seen
 * whole before any of it is released. A finding that reaches the end of the text received so far
 * is held back too, until more text shows where it ends (the listener may then hear of it once
 * per scan that saw it). Redacted findings are released as {@code [REDACTED:<rule>]}.
 *
 * <p>Mid-stream policy: a finding whose action is {@link GuardrailAction#BLOCK} makes {@link
 * #accept} (or {@link #finish}) throw a 400 {@link PointsmanException} naming the rule; what was
 * released before had passed the rules, nothing after is released, and every later call throws
 * the same denial. The host then ends the stream (the provider's work is still accounted).
 *
 * <p>Cost: the text is scanned once it holds {@code window + window / 4} characters, so each
 * character is scanned about five times; the caller receives text in steps of about {@code
 * window / 4} characters, delayed by at most {@code window} characters.
 *
 * <p>Not thread-safe: one instance serves one stream, fed from one thread at a time.
 *
 * <pre>{@code
 * StreamWindowScanner scanner = outputChain.streamScanner(identity);
 * for (String delta : deltas) {
 *   forward(scanner.accept(delta));   // throws when a blocking rule matched
 * }
 * forward(scanner.finish());
 * }</pre>
 */
public final class StreamWindowScanner {
  private final RuleSet rules;
  private final Identity identity;
  private final int window;
  private final StringBuilder pending = new StringBuilder();
  private final RuleSet.Scratch scratch = new RuleSet.Scratch();
  private long released;
  private PointsmanException denial;
  private boolean finished;

  StreamWindowScanner(RuleSet rules, Identity identity, int window) {
    this.rules = rules;
    this.identity = identity;
    this.window = window;
  }

  /**
   * Takes the next piece of streamed text and returns the text that may be forwarded now.
   *
   * @param delta the next text; empty is allowed
   * @return checked text to forward, possibly empty
   * @throws PointsmanException with status 400 when a blocking rule matched, now or earlier
   * @throws IllegalStateException if the scanner was finished
   * @throws NullPointerException if delta is null
   */
  public String accept(String delta) {
    if (denial != null) {
      throw denial;
    }
    if (finished) {
      throw new IllegalStateException("the scanner was finished");
    }
    pending.append(delta);
    if (pending.length() < window + window / 4) {
      return "";
    }
    return release(false);
  }

  /**
   * Ends the stream and returns the rest of the checked text.
   *
   * @return checked text to forward, possibly empty
   * @throws PointsmanException with status 400 when a blocking rule matched, now or earlier
   * @throws IllegalStateException if the scanner was already finished
   */
  public String finish() {
    if (denial != null) {
      throw denial;
    }
    if (finished) {
      throw new IllegalStateException("the scanner was already finished");
    }
    finished = true;
    return release(true);
  }

  /**
   * Returns how many characters of checked text were released so far (after redaction).
   *
   * @return the count
   */
  public long released() {
    return released;
  }

  private String release(boolean all) {
    String text = pending.toString();
    int cut = all ? text.length() : text.length() - window;
    List<Finding> spans;
    try {
      spans = new ArrayList<>(rules.decide(identity, Role.ASSISTANT, text,
          "the streamed response", cut, scratch));
    } catch (PointsmanException e) {
      denial = e;
      pending.setLength(0);
      throw e;
    }
    spans.sort((a, b) -> Integer.compare(a.start(), b.start()));
    List<Finding> now = new ArrayList<>();
    for (Finding f : spans) {
      if (f.start() >= cut) {
        break;
      }
      if (!all && f.end() >= text.length()) {
        // It may go on in the next chunk: hold it back whole.
        cut = f.start();
        break;
      }
      now.add(f);
      cut = Math.max(cut, f.end());
    }
    String out = RuleSet.redact(text.substring(0, cut), now);
    pending.delete(0, cut);
    released += out.length();
    return out;
  }
}
