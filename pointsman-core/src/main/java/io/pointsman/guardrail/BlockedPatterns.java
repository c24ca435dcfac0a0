package io.pointsman.guardrail;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * Finds configured literals and regular expressions. All literals compile into one
 * {@link LiteralMatcher} (Aho–Corasick), all regexes into one alternation, so a text is read
 * once per kind however many patterns there are. Every finding is reported under the one rule
 * name given to the builder.
 *
 * <p>Regexes are checked when configured: nested quantifiers and backreferences are refused
 * (see {@code docs/guardrails.md}); a regex that still backtracks is stopped by a step budget of
 * {@code stepsPerChar × length + 100,000} character reads per text and reported as
 * {@link ScanBudgetExceededException}, which a chain turns into a 400 naming
 * {@code <family>.budget}.
 *
 * <p>Immutable and thread-safe; literal matching is linear in the text's length.
 *
 * <pre>{@code
 * BlockedPatterns competitors = BlockedPatterns.builder("pattern.competitors")
 *     .literals(List.of("acme corp", "globex"))
 *     .regex("project\\s+nightingale")
 *     .build();
 * }</pre>
 */
public final class BlockedPatterns implements Detector {
  private final String rule;
  private final String family;
  private final LiteralMatcher literals;
  private final Pattern regex;
  private final int[] regexGroups;
  private final long stepsPerChar;

  private BlockedPatterns(Builder b) {
    this.rule = b.rule;
    int dot = rule.indexOf('.');
    this.family = dot < 0 ? rule : rule.substring(0, dot);
    this.literals = b.literals.isEmpty() ? null : LiteralMatcher.builder()
        .caseInsensitive(b.caseInsensitive).wholeWords(b.wholeWords).collapseWhitespace(true)
        .addAll(b.literals).build();
    this.stepsPerChar = b.stepsPerChar;
    if (b.regexes.isEmpty()) {
      this.regex = null;
      this.regexGroups = new int[0];
    } else {
      StringBuilder all = new StringBuilder();
      int[] groups = new int[b.regexes.size()];
      int group = 1;
      for (int i = 0; i < b.regexes.size(); i++) {
        if (i > 0) {
          all.append('|');
        }
        all.append('(').append(b.regexes.get(i)).append(')');
        groups[i] = group;
        group += 1 + Pattern.compile(b.regexes.get(i)).matcher("").groupCount();
      }
      int flags = b.caseInsensitive ? Pattern.CASE_INSENSITIVE | Pattern.UNICODE_CASE : 0;
      try {
        this.regex = Pattern.compile(all.toString(), flags);
      } catch (PatternSyntaxException e) {
        throw new IllegalArgumentException("the patterns do not combine: " + e.getDescription(),
            e);
      }
      this.regexGroups = groups;
    }
  }

  /**
   * Returns a builder whose findings are reported under a rule name.
   *
   * @param rule the rule name, {@code <family>.<name>}, for example {@code pattern.blocked}
   * @return a builder
   * @throws NullPointerException if rule is null
   * @throws IllegalArgumentException if rule is blank
   */
  public static Builder builder(String rule) {
    Objects.requireNonNull(rule, "rule");
    if (rule.isBlank()) {
      throw new IllegalArgumentException("rule must not be blank");
    }
    return new Builder(rule);
  }

  /**
   * Returns the rule name findings are reported under.
   *
   * @return the rule
   */
  public String rule() {
    return rule;
  }

  @Override
  public String family() {
    return family;
  }

  @Override
  public void scan(CharSequence text, List<Finding> out) {
    Objects.requireNonNull(out, "out");
    if (literals != null) {
      literals.find(text, (literal, start, end) -> {
        out.add(new Finding(rule, start, end));
        return true;
      });
    }
    if (regex != null) {
      BoundedText bounded = new BoundedText(text, family,
          stepsPerChar * text.length() + 100_000);
      Matcher m = regex.matcher(bounded);
      while (m.find()) {
        if (m.end() > m.start()) {
          out.add(new Finding(rule, m.start(), m.end()));
        }
      }
    }
  }

  /**
   * Returns the number of the combined regex's alternatives.
   *
   * @return the count of regexes
   */
  public int regexCount() {
    return regexGroups.length;
  }

  /** Collects patterns; not thread-safe. */
  public static final class Builder {
    private final String rule;
    private final List<String> literals = new ArrayList<>();
    private final List<String> regexes = new ArrayList<>();
    private boolean caseInsensitive = true;
    private boolean wholeWords = true;
    private long stepsPerChar = 256;

    private Builder(String rule) {
      this.rule = rule;
    }

    /**
     * Adds a literal.
     *
     * @param literal the literal
     * @return this builder
     * @throws NullPointerException if literal is null
     * @throws IllegalArgumentException if literal is blank
     */
    public Builder literal(String literal) {
      Objects.requireNonNull(literal, "literal");
      if (literal.isBlank()) {
        throw new IllegalArgumentException("a literal must not be blank");
      }
      literals.add(literal.strip());
      return this;
    }

    /**
     * Adds literals.
     *
     * @param values the literals
     * @return this builder
     * @throws NullPointerException if values or a literal is null
     * @throws IllegalArgumentException if a literal is blank
     */
    public Builder literals(Iterable<String> values) {
      for (String v : values) {
        literal(v);
      }
      return this;
    }

    /**
     * Adds a regular expression ({@code java.util.regex} syntax).
     *
     * @param pattern the regex
     * @return this builder
     * @throws NullPointerException if pattern is null
     * @throws IllegalArgumentException if it does not compile, can match the empty string,
     *     contains nested quantifiers or a backreference
     */
    public Builder regex(String pattern) {
      Objects.requireNonNull(pattern, "pattern");
      Pattern compiled;
      try {
        compiled = Pattern.compile(pattern);
      } catch (PatternSyntaxException e) {
        throw new IllegalArgumentException("invalid pattern: " + e.getDescription(), e);
      }
      if (compiled.matcher("").matches()) {
        throw new IllegalArgumentException("a pattern must not match the empty string");
      }
      RegexSafety.check(pattern);
      regexes.add(pattern);
      return this;
    }

    /**
     * Sets whether letters match regardless of case (default true), for literals and regexes.
     *
     * @param value true to ignore case
     * @return this builder
     */
    public Builder caseInsensitive(boolean value) {
      this.caseInsensitive = value;
      return this;
    }

    /**
     * Sets whether literals match only as whole words (default true), so that a blocked
     * {@code "ass"} does not match {@code "class"}.
     *
     * @param value true for whole words
     * @return this builder
     */
    public Builder wholeWords(boolean value) {
      this.wholeWords = value;
      return this;
    }

    /**
     * Sets the regex step budget per character of text (default 256).
     *
     * @param value character reads allowed per character of text
     * @return this builder
     * @throws IllegalArgumentException if value is not positive
     */
    public Builder stepsPerChar(long value) {
      if (value < 1) {
        throw new IllegalArgumentException("stepsPerChar must be positive");
      }
      this.stepsPerChar = value;
      return this;
    }

    /**
     * Compiles the patterns.
     *
     * @return the detector
     * @throws IllegalArgumentException if no pattern was added or the patterns do not combine
     */
    public BlockedPatterns build() {
      if (literals.isEmpty() && regexes.isEmpty()) {
        throw new IllegalArgumentException("add at least one literal or regex");
      }
      return new BlockedPatterns(this);
    }
  }
}
