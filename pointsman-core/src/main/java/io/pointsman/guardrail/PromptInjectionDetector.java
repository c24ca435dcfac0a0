package io.pointsman.guardrail;

import io.pointsman.model.Role;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A prompt-injection heuristic: weighted signals and a threshold. Each signal is a category of
 * phrases (for example "override": <em>ignore all previous instructions</em> and its variants);
 * a text's score is the sum of the weights of the distinct categories it contains, and a score at
 * or above the threshold reports rule {@code injection.heuristic} once per signal occurrence, so
 * that redaction removes the phrases. Matching ignores case and collapses runs of whitespace.
 *
 * <p>Phrases are written as templates: {@code "ignore {all |}{previous|prior} instructions"}
 * expands to every combination of the alternatives in braces.
 *
 * <p>It is a heuristic over wording, not a classifier: paraphrases it has no phrase for pass, and
 * benign text that quotes an attack is flagged. {@code docs/guardrails.md} gives its measured
 * precision and recall. By default it looks at user and tool messages only: system prompts are
 * the host's own.
 *
 * <p>Immutable and thread-safe; linear in the text's length.
 *
 * <pre>{@code
 * PromptInjectionDetector custom = PromptInjectionDetector.builder()
 *     .signal("override", 1.0, "ignore {all |}{previous|prior} instructions")
 *     .signal("persona", 0.6, "you are now", "pretend {to be|you are}")
 *     .threshold(1.0)
 *     .build();
 * }</pre>
 */
public final class PromptInjectionDetector implements Detector {
  /** The rule this detector reports. */
  public static final String RULE = "injection.heuristic";
  /**
   * The rule a {@linkplain #confirmedBy confirmed} detector reports instead of {@link #RULE}
   * when its phrases pass the threshold but the classifier scores the text below its flag
   * threshold: a text that quotes an attack phrase and reads, as a whole, like no attack.
   */
  public static final String UNCONFIRMED = "injection.heuristic.unconfirmed";

  private static final PromptInjectionDetector DEFAULT = defaultBuilder().build();

  private final LiteralMatcher matcher;
  private final int[] categoryOf;
  private final double[] weights;
  private final String[] categories;
  private final double threshold;
  private final PromptInjectionClassifier confirm;

  private PromptInjectionDetector(PromptInjectionDetector d, PromptInjectionClassifier confirm) {
    this.matcher = d.matcher;
    this.categoryOf = d.categoryOf;
    this.weights = d.weights;
    this.categories = d.categories;
    this.threshold = d.threshold;
    this.confirm = confirm;
  }

  private PromptInjectionDetector(Builder b) {
    this.confirm = null;
    LiteralMatcher.Builder mb = LiteralMatcher.builder().caseInsensitive(true)
        .collapseWhitespace(true).wholeWords(true);
    List<Integer> cats = new ArrayList<>();
    this.categories = b.signals.keySet().toArray(new String[0]);
    this.weights = new double[categories.length];
    for (int c = 0; c < categories.length; c++) {
      Signal s = b.signals.get(categories[c]);
      weights[c] = s.weight;
      for (String template : s.templates) {
        for (String phrase : expand(template)) {
          mb.add(phrase);
          cats.add(c);
        }
      }
    }
    this.matcher = mb.build();
    this.categoryOf = cats.stream().mapToInt(Integer::intValue).toArray();
    this.threshold = b.threshold;
  }

  /**
   * Returns the detector with the default signals and threshold 1.0.
   *
   * @return the shared instance
   */
  public static PromptInjectionDetector ofDefaults() {
    return DEFAULT;
  }

  /**
   * Returns an empty builder.
   *
   * @return a builder
   */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Returns a builder holding the default signals, to add to or re-weigh.
   *
   * @return a builder
   */
  public static Builder defaultBuilder() {
    return new Builder()
        .signal("override", 1.0,
            "{ignore|disregard|forget|override|bypass|skip} {all |any |the |your |my |these |"
                + "all of the |all the |all of your |}{previous|prior|above|earlier|preceding|foregoing|original|initial|system|"
                + "existing} {instructions|instruction|rules|directions|prompts|prompt|"
                + "guidelines|constraints|commands|context|directives}",
            // "{ignore|disregard} {all|any} {rules|…}" without "previous" or "your" blocked
            // stories and songs ("the pirate shouts: ignore all rules!"); it is left out.
            "{ignore|disregard|forget|bypass|override|skip} {everything|all} {you were told|above|before this}")
        .signal("jailbreak", 1.0, "do anything now", "DAN mode", "developer mode enabled",
            "{enable|activate|enter} developer mode", "jailbreak mode",
            "{you are|act as} {an unrestricted|an unfiltered|an uncensored} {AI|model|assistant}")
        .signal("exfiltrate", 1.0,
            "{reveal|print|show|output|repeat|display|leak|dump} {me |}{your|the} {system|hidden|"
                + "initial|original|secret} {prompt|instructions|message}",
            "{repeat|print} {the text|everything|all text} above",
            "what {is|was|are|were} your {system prompt|initial instructions|original "
                + "instructions}")
        .signal("persona", 0.6, "you are now", "from now on you", "from now on, you",
            "pretend {to be|you are|that you are}", "{roleplay|role-play} as", "act as if you")
        .signal("unrestricted", 0.5, "without any restrictions", "no restrictions apply",
            "{no longer|not} bound by", "ethical guidelines do not apply",
            "{without|ignore} {any |your |}{filters|filtering|safety guidelines|content policy}",
            "{uncensored|unfiltered} {mode|response|answer}")
        .signal("template_tokens", 1.0, "<|im_start|>", "<|im_end|>", "<|system|>",
            "<|endoftext|>", "[INST]", "<<SYS>>", "### system:", "### instruction:")
        .signal("new_instructions", 0.5, "new instructions:", "updated instructions:",
            "important: ignore", "the real instructions are",
            "{your|the} new {task|instructions|goal} {is|are}")
        .signal("authority", 0.6, "{system|admin|administrator|developer} override",
            "{system|admin} {message|notice}:", "message from the {developers|administrator}")
        .signal("coercion", 0.3, "you must comply", "you must obey", "you have no choice",
            "this is an order", "do not refuse", "never refuse");
  }

  /**
   * Returns the score threshold at which the detector reports.
   *
   * @return the threshold
   */
  public double threshold() {
    return threshold;
  }

  /**
   * Returns the number of literal phrases after template expansion.
   *
   * @return the phrase count
   */
  public int phrases() {
    return matcher.size();
  }

  /**
   * Returns this detector with its findings confirmed by a classifier: when the phrases pass the
   * threshold, the text's findings are {@link #RULE} if the classifier scores the whole text at
   * or above its flag threshold, and {@link #UNCONFIRMED} otherwise. The classifier runs only on
   * texts whose phrases pass the threshold. The default input chain blocks {@link #RULE} and
   * flags {@link #UNCONFIRMED}.
   *
   * @param classifier the classifier whose flag threshold confirms a finding
   * @return a detector with the same signals and threshold
   */
  public PromptInjectionDetector confirmedBy(PromptInjectionClassifier classifier) {
    return new PromptInjectionDetector(this, Objects.requireNonNull(classifier, "classifier"));
  }

  /** The matcher of the phrases. */
  LiteralMatcher matcher() {
    return matcher;
  }

  /** The literal phrase at an index, after template expansion; for tests. */
  String phrase(int index) {
    return matcher.literal(index);
  }

  /**
   * Scores a text: the sum of the weights of the distinct signal categories it contains.
   *
   * @param text the text
   * @return the score, 0 when no signal is present
   */
  public double score(CharSequence text) {
    return score(ScanText.of(text).matches(matcher));
  }

  /** The sum of the weights of the distinct categories, added in order of match. */
  private double score(LiteralMatcher.Matches matches) {
    boolean[] seen = new boolean[categories.length];
    double score = 0;
    for (int i = 0; i < matches.size(); i++) {
      int c = categoryOf[matches.literal(i)];
      if (!seen[c]) {
        seen[c] = true;
        score += weights[c];
      }
    }
    return score;
  }

  @Override
  public String family() {
    return "injection";
  }

  @Override
  public boolean appliesTo(Role role) {
    return role != Role.SYSTEM && role != Role.DEVELOPER;
  }

  @Override
  public void scan(CharSequence text, List<Finding> out) {
    Objects.requireNonNull(out, "out");
    scan(ScanText.of(text), out);
  }

  /** {@link #scan(CharSequence, List)} over a text the chain copied once for its detectors. */
  void scan(ScanText text, List<Finding> out) {
    LiteralMatcher.Matches matches = text.matches(matcher);
    if (matches.size() > 0 && score(matches) >= threshold) {
      String rule = confirm == null || confirm.score(text) >= confirm.flagThreshold() ? RULE
          : UNCONFIRMED;
      for (int i = 0; i < matches.size(); i++) {
        out.add(new Finding(rule, matches.start(i), matches.end(i)));
      }
    }
  }

  static List<String> expand(String template) {
    List<String> result = new ArrayList<>();
    result.add("");
    int i = 0;
    while (i < template.length()) {
      char c = template.charAt(i);
      if (c == '{') {
        int close = template.indexOf('}', i);
        if (close < 0) {
          throw new IllegalArgumentException("unclosed '{' in template: " + template);
        }
        String[] options = template.substring(i + 1, close).split("\\|", -1);
        List<String> next = new ArrayList<>(result.size() * options.length);
        for (String prefix : result) {
          for (String option : options) {
            next.add(prefix + option);
          }
        }
        result = next;
        i = close + 1;
      } else {
        int open = template.indexOf('{', i);
        String literal = template.substring(i, open < 0 ? template.length() : open);
        result.replaceAll(prefix -> prefix + literal);
        i = open < 0 ? template.length() : open;
      }
    }
    result.replaceAll(s -> s.strip().replaceAll("\\s+", " "));
    result.removeIf(String::isEmpty);
    return result;
  }

  private record Signal(double weight, List<String> templates) {}

  /** Collects signals and the threshold; not thread-safe. */
  public static final class Builder {
    private final Map<String, Signal> signals = new LinkedHashMap<>();
    private double threshold = 1.0;

    private Builder() {}

    /**
     * Adds or replaces a signal category.
     *
     * @param category the category's name
     * @param weight what one or more occurrences add to the score
     * @param templates phrase templates; {@code {a|b}} expands to each alternative
     * @return this builder
     * @throws NullPointerException if an argument is null
     * @throws IllegalArgumentException if the weight is not positive or a template is malformed
     */
    public Builder signal(String category, double weight, String... templates) {
      Objects.requireNonNull(category, "category");
      if (!(weight > 0)) {
        throw new IllegalArgumentException("weight must be positive: " + weight);
      }
      for (String t : templates) {
        expand(Objects.requireNonNull(t, "template"));
      }
      signals.put(category, new Signal(weight, List.of(templates)));
      return this;
    }

    /**
     * Sets the score at which the detector reports.
     *
     * @param value the threshold
     * @return this builder
     * @throws IllegalArgumentException if the threshold is not positive
     */
    public Builder threshold(double value) {
      if (!(value > 0)) {
        throw new IllegalArgumentException("threshold must be positive: " + value);
      }
      this.threshold = value;
      return this;
    }

    /**
     * Builds the detector.
     *
     * @return the detector
     * @throws IllegalArgumentException if no signal was added
     */
    public PromptInjectionDetector build() {
      if (signals.isEmpty()) {
        throw new IllegalArgumentException("add at least one signal");
      }
      return new PromptInjectionDetector(this);
    }
  }
}
