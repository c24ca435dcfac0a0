package io.pointsman.guardrail;

import io.pointsman.PointsmanException;
import io.pointsman.Status;
import io.pointsman.model.Role;
import io.pointsman.spi.Identity;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The engine both chains share: runs the detectors over one text, resolves each finding's
 * action for the caller, blocks, tells the listener, and returns the text redacted or as it was.
 */
final class RuleSet {
  private static final Logger LOG = LoggerFactory.getLogger(RuleSet.class);

  record Entry(Detector detector, GuardrailAction action) {}

  private final List<Entry> entries;
  /** The entries as an array, which the per-text loops index without an iterator. */
  private final Entry[] table;
  private final GuardrailPolicy policy;
  private final GuardrailListener listener;
  private final String stage;
  private final Map<String, GuardrailAction> ruleActions;

  RuleSet(List<Entry> entries, GuardrailPolicy policy, GuardrailListener listener, String stage) {
    this(entries, policy, listener, stage, Map.of());
  }

  RuleSet(List<Entry> entries, GuardrailPolicy policy, GuardrailListener listener, String stage,
      Map<String, GuardrailAction> ruleActions) {
    this.entries = List.copyOf(entries);
    this.table = this.entries.toArray(new Entry[0]);
    this.policy = policy;
    this.listener = listener;
    this.stage = stage;
    this.ruleActions = Map.copyOf(ruleActions);
  }

  /** The same rules, telling another listener too. */
  RuleSet withListener(GuardrailListener extra) {
    return new RuleSet(entries, policy, GuardrailListener.composite(listener, extra), stage,
        ruleActions);
  }

  String stage() {
    return stage;
  }

  boolean isEmpty() {
    return entries.isEmpty();
  }

  /**
   * Per-call scratch state; one per check, never shared between threads. A check takes one
   * with {@link #acquire} and gives it back with {@link #release}: each thread keeps one for
   * reuse, so that a check allocates no copy of its texts and no scan arrays; a check that
   * starts while its thread's instance is taken (a listener that checks another request) gets
   * a new one.
   */
  static final class Scratch {
    private static final ThreadLocal<Scratch> LOCAL = ThreadLocal.withInitial(Scratch::new);

    final ArrayList<Finding> found = new ArrayList<>();
    final ArrayList<Finding> redact = new ArrayList<>();
    /** The text the built-in detectors read, copied once per text for all of them. */
    final ScanText text = new ScanText();
    private boolean inUse;

    /** This thread's instance if it is free, else a new one; give it back with release. */
    static Scratch acquire() {
      Scratch s = LOCAL.get();
      if (s.inUse) {
        return new Scratch();
      }
      s.inUse = true;
      return s;
    }

    /** Forgets the check's findings and text, and frees this instance for the next check. */
    void release() {
      // Lists that grew for a text with many findings would keep their arrays: drop those.
      boolean large = found.size() > ScanText.KEEP_MATCHES || redact.size() > ScanText.KEEP_MATCHES;
      found.clear();
      redact.clear();
      if (large) {
        found.trimToSize();
        redact.trimToSize();
      }
      text.release();
      inUse = false;
    }
  }

  /**
   * Checks one text.
   *
   * @param where names the field for messages, never its content
   * @return the same string when nothing is redacted, else the redacted copy
   */
  String apply(Identity identity, Role role, String text, String where, Scratch scratch) {
    if (text == null || text.isEmpty()) {
      return text;
    }
    List<Finding> redact = decide(identity, role, text, where, Integer.MAX_VALUE, scratch);
    return redact.isEmpty() ? text : redact(text, redact);
  }

  /**
   * Runs the detectors over one text and acts on findings that start before {@code limit}:
   * throws for a block, tells the listener, and returns the spans to redact (the scratch list,
   * valid until the next call).
   */
  List<Finding> decide(Identity identity, Role role, CharSequence text, String where, int limit,
      Scratch scratch) {
    List<Finding> redact = scratch.redact;
    redact.clear();
    ScanText shared = null;
    // The first two matchers of built-in detectors that look at this role read the text in
    // one pass.
    LiteralMatcher first = null;
    LiteralMatcher second = null;
    final Entry[] all = table;
    for (Entry entry : all) {
      LiteralMatcher m = ScanText.matcherOf(entry.detector());
      if (m != null && m != first && entry.detector().appliesTo(role)) {
        if (first == null) {
          first = m;
        } else if (second == null) {
          second = m;
        }
      }
    }
    for (Entry entry : all) {
      Detector detector = entry.detector();
      if (!detector.appliesTo(role)) {
        continue;
      }
      List<Finding> found = scratch.found;
      found.clear();
      try {
        if (ScanText.reads(detector)) {
          if (shared == null) {
            shared = scratch.text.fill(text);
            shared.pair(first, second);
          }
          shared.scan(detector, found);
        } else {
          detector.scan(text, found);
        }
      } catch (ScanBudgetExceededException e) {
        notify(identity, e.family() + ".budget", GuardrailAction.BLOCK);
        throw PointsmanException.denied(Status.BAD_REQUEST, stage, e.family() + ".budget",
            "the " + e.family() + " rules could not check " + where + " within their budget");
      }
      for (int i = 0; i < found.size(); i++) {
        Finding f = found.get(i);
        if (f.start() >= limit) {
          continue;
        }
        GuardrailAction action = policy.resolve(identity, f.rule(),
            ruleActions.getOrDefault(f.rule(), entry.action()));
        switch (action) {
          case BLOCK -> {
            notify(identity, f.rule(), action);
            throw PointsmanException.denied(Status.BAD_REQUEST, stage, f.rule(),
                f.rule() + " matched in " + where);
          }
          case REDACT -> {
            notify(identity, f.rule(), action);
            redact.add(f);
          }
          case FLAG -> notify(identity, f.rule(), action);
          case OFF -> { }
          default -> throw new AssertionError(action);
        }
      }
    }
    return redact;
  }

  private void notify(Identity identity, String rule, GuardrailAction action) {
    try {
      listener.onFinding(identity, stage, rule, action);
    } catch (RuntimeException e) {
      LOG.warn("guardrail listener failed on rule {}; ignored", rule, e);
    }
  }

  /** Replaces each span (overlaps merged) with {@code [REDACTED:<rule>]}. */
  static String redact(String text, List<Finding> spans) {
    List<Finding> sorted = new ArrayList<>(spans);
    sorted.sort((a, b) -> a.start() != b.start() ? Integer.compare(a.start(), b.start())
        : Integer.compare(b.end(), a.end()));
    StringBuilder out = new StringBuilder(text.length());
    int pos = 0;
    int i = 0;
    while (i < sorted.size()) {
      Finding f = sorted.get(i);
      int start = Math.max(f.start(), pos);
      int end = f.end();
      i++;
      while (i < sorted.size() && sorted.get(i).start() < end) {
        end = Math.max(end, sorted.get(i).end());
        i++;
      }
      if (end <= pos) {
        continue;
      }
      out.append(text, pos, start).append("[REDACTED:").append(f.rule()).append(']');
      pos = end;
    }
    out.append(text, pos, text.length());
    return out.toString();
  }
}
