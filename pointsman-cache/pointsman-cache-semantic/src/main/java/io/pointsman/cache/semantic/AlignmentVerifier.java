package io.pointsman.cache.semantic;

import java.text.Normalizer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The default {@link HitVerifier}: two texts may share an answer only when, after a
 * normalization that removes what does not change a question, they are the same sequence of
 * tokens in the same order. Every other difference refuses, so a swapped subject and object
 * ({@code cats chase mice} / {@code mice chase cats}), a changed function word ({@code books
 * by} / {@code books about}, {@code for her} / {@code for me}), a changed symbol ({@code >} /
 * {@code <}, {@code [-1]} / {@code [1]}, {@code $} / {@code €}), number, date, unit, name,
 * identifier or negation, or one changed sentence in a long prompt, is a miss.
 *
 * <p>The normalization, applied to both texts alike (so a text always agrees with itself):
 * <ol>
 *   <li>Unicode NFKC; curly quotes and apostrophes as straight ones; the minus sign and en
 *       dash as {@code -};</li>
 *   <li>tokens: code spans in backticks (compared verbatim), numbers ({@code 1,000} =
 *       {@code 1000}; number words up to twenty and the tens as digits, {@code first} …
 *       {@code tenth} as {@code 1st} … {@code 10th}), words, operators ({@code ==},
 *       {@code !=}, {@code <=}, {@code ->} …) and single symbols;</li>
 *   <li>sentence punctuation ({@code . , ? ! ; :}, quotes, ellipsis, em dash) dropped;</li>
 *   <li>contractions expanded ({@code what's} = {@code what is}, {@code don't} = {@code do
 *       not}, {@code can't} = {@code cannot} = {@code can not}, {@code I'm} = {@code I am});</li>
 *   <li>dropped: the articles {@code a}, {@code an}, {@code the}; {@code please} and
 *       {@code kindly}; greetings and thanks at the start or end; request wrappers at the
 *       start of a clause ({@code can you}, {@code could you}, {@code tell me}, {@code I would
 *       like to know}, {@code do you know} …);</li>
 *   <li>{@code how do I} / {@code how can I} / {@code how could I} (and {@code we},
 *       {@code you}, {@code one}) read as {@code how to};</li>
 *   <li>outside code, the words of a small curated synonym table read as one
 *       ({@code fix} / {@code repair}, {@code car} / {@code automobile} …,
 *       {@link #SYNONYMS});</li>
 *   <li>case: a word agrees with its all-lowercase form, its capitalized form and its
 *       all-capitals form; any other difference refuses ({@code Mbps} / {@code MBps},
 *       {@code MB} / {@code Mb}, {@code getUser} / {@code getuser}); one-letter words are
 *       compared with their case, except {@code I}. A text typed without lowercase letters
 *       carries no case: then only mixed spellings ({@code MBps}, {@code iPhone}) must
 *       match.</li>
 * </ol>
 * Two reorderings are allowed. A leading phrase closed by punctuation may move to the end
 * when it opens with a preposition ({@code in}, {@code for}, {@code on}, {@code with},
 * {@code using}, {@code at}, {@code within}, {@code via}; at most four tokens) or a
 * subordinating word ({@code when}, {@code if}, {@code while}, {@code once}, {@code before},
 * {@code after}; at most eight): {@code In Python, how do I …?} / {@code How do I … in
 * Python?}. And two single words joined by {@code and} or {@code or} may trade places when
 * nothing else differs: {@code Canada or Brazil} / {@code Brazil or Canada}. A {@code not}
 * after an auxiliary may stand later in the same clause ({@code Why isn't my cake fluffy?} /
 * {@code Why is my cake not fluffy?}).
 *
 * <p>Everything else that differs — a synonym outside the table, a reordered clause, a typo —
 * is a miss: a lost hit costs one provider call, a wrong hit serves the wrong answer.
 * Immutable and thread-safe.
 */
public final class AlignmentVerifier implements HitVerifier {
  /** The synonym sets read as one word, outside code; each row is one set. */
  public static final List<List<String>> SYNONYMS = List.of(
      List.of("fix", "repair"),
      List.of("buy", "purchase"),
      List.of("car", "automobile"),
      List.of("big", "large"),
      List.of("biggest", "largest"),
      List.of("begin", "start"),
      List.of("movie", "film"),
      List.of("movies", "films"),
      List.of("couch", "sofa"),
      List.of("kid", "child"),
      List.of("kids", "children"),
      List.of("doctor", "physician"),
      List.of("ill", "sick"),
      List.of("difficult", "hard"),
      List.of("easy", "simple"),
      List.of("mistake", "error"),
      List.of("mistakes", "errors"),
      List.of("choose", "select"),
      List.of("vacation", "holiday"),
      List.of("mom", "mother"),
      List.of("dad", "father"),
      List.of("quickest", "fastest"),
      List.of("smart", "intelligent"),
      List.of("happy", "glad"),
      List.of("answer", "reply"),
      List.of("use", "utilize", "utilise"),
      List.of("help", "assist"),
      List.of("photo", "photograph", "picture"),
      List.of("photos", "photographs", "pictures"),
      List.of("job", "occupation"),
      List.of("benefit", "advantage"),
      List.of("benefits", "advantages"),
      List.of("example", "sample"),
      List.of("examples", "samples"),
      List.of("rapidly", "quickly"),
      List.of("commonly", "usually"),
      List.of("colour", "color"),
      List.of("favourite", "favorite"),
      List.of("organise", "organize"),
      List.of("optimise", "optimize"),
      List.of("analyse", "analyze"),
      List.of("centre", "center"),
      List.of("behaviour", "behavior"));

  private static final Map<String, String> CANONICAL = canonical();

  private static final Pattern GROUPED = Pattern.compile("\\d{1,3}(?:,\\d{3})+(?:\\.\\d+)?");

  /** Punctuation that closes a phrase; dropped, but remembered as a boundary. */
  private static final Set<String> BOUNDARY = Set.of(".", ",", "?", "!", ";", ":", "…");
  /** Punctuation dropped without a trace. */
  private static final Set<String> QUIET = Set.of("\"", "'", "—", "¿", "¡", "`");

  private static final Set<String> DROPPED = Set.of("a", "an", "the", "please", "kindly", "pls",
      "plz");
  private static final Set<String> ARTICLES = Set.of("a", "an", "the");
  private static final Set<String> GREETINGS = Set.of("hi", "hello", "hey", "greetings", "yo");
  private static final Set<String> PREPOSITIONS = Set.of("in", "for", "on", "with", "using",
      "at", "within", "via");
  private static final Set<String> AUXILIARIES = Set.of("do", "does", "did", "is", "are", "was",
      "were", "will", "can", "could", "should", "would", "has", "have", "had", "must");
  private static final Set<String> SUBORDINATORS = Set.of("when", "if", "while", "once",
      "before", "after");

  /** Request wrappers dropped at the start of a clause, longest first. */
  private static final List<List<String>> WRAPPERS = phrases(
      "i would like to know", "i would love to know", "i want to know", "i need to know",
      "i am wondering", "i was wondering", "i wonder", "do you know", "would you tell me",
      "could you tell me", "can you tell me", "will you tell me", "tell me", "let me know",
      "can you", "could you", "would you", "will you", "can u", "could u",
      "quick question", "question");
  /** Thanks dropped at the end, longest first. */
  private static final List<List<String>> THANKS = phrases(
      "thank you so much", "thank you in advance", "thanks in advance", "thanks a lot",
      "thank you", "thanks", "thx", "cheers", "ty");

  private static final Map<String, List<String>> CONTRACTIONS = contractions();
  private static final Set<String> IS_AFTER = Set.of("it", "what", "that", "there", "here", "who",
      "where", "how", "when", "why", "he", "she");
  private static final Map<String, String> NUMBER_WORDS = numberWords();

  private static final AlignmentVerifier STANDARD = new AlignmentVerifier();

  private AlignmentVerifier() {}

  /**
   * Returns the verifier with the rules above.
   *
   * @return the verifier
   */
  public static AlignmentVerifier standard() {
    return STANDARD;
  }

  /** One token after normalization: what it is compared by, and its original spelling. */
  record Token(String norm, String raw, boolean boundaryBefore, boolean literal) {
    Token(String norm, String raw, boolean boundaryBefore) {
      this(norm, raw, boundaryBefore, false);
    }
  }

  @Override
  public Verdict verify(String query, String cached) {
    return bind(query).verify(cached);
  }

  /**
   * Returns this verifier bound to a query: the query is normalized once, when the first
   * candidate that is not the same text is compared, and reused for the others.
   */
  @Override
  public Query bind(String query) {
    Objects.requireNonNull(query, "query");
    return new Query() {
      private List<Token> normalized;

      @Override
      public Verdict verify(String cached) {
        Objects.requireNonNull(cached, "cached");
        if (query.equals(cached)) {
          return Verdict.AGREE;
        }
        if (normalized == null) {
          normalized = normalize(query);
        }
        return byRules(query, normalized, cached);
      }
    };
  }

  /** The rules alone, without the shortcut for equal texts: tests pin that they accept it. */
  Verdict byRules(String query, String cached) {
    return byRules(query, normalize(query), cached);
  }

  private static Verdict byRules(String query, List<Token> a, String cached) {
    List<Token> b = normalize(cached);
    if (a.isEmpty() || b.isEmpty()) {
      // "Hello" and "Thanks" both normalize to nothing, and do not share an answer: texts
      // made only of dropped words must be the same text up to case and spacing.
      return a.isEmpty() && b.isEmpty() && bare(query).equals(bare(cached)) ? Verdict.AGREE
          : Verdict.disagree("nothing left to compare after normalization");
    }
    // A text without lowercase letters (typed in capitals) carries no case information.
    boolean caseless = !hasLowercase(query) || !hasLowercase(cached);
    if (sameNorms(a, b)) {
      return caseAgreement(a, b, caseless);
    }
    if (movedLeadingPhrase(a, b, caseless) || movedLeadingPhrase(b, a, caseless)
        || swappedConjuncts(a, b, caseless) || movedNot(a, b, caseless)
        || movedNot(b, a, caseless)) {
      return Verdict.AGREE;
    }
    return Verdict.disagree(difference(a, b));
  }

  private static boolean sameNorms(List<Token> a, List<Token> b) {
    if (a.size() != b.size()) {
      return false;
    }
    for (int i = 0; i < a.size(); i++) {
      if (!a.get(i).norm().equals(b.get(i).norm())) {
        return false;
      }
    }
    return true;
  }

  private static String bare(String text) {
    return Normalizer.normalize(text, Normalizer.Form.NFKC).strip().replaceAll("\\s+", " ")
        .toLowerCase(Locale.ROOT);
  }

  private static boolean hasLowercase(String s) {
    return s.codePoints().anyMatch(Character::isLowerCase);
  }

  private static Verdict caseAgreement(List<Token> a, List<Token> b, boolean caseless) {
    for (int i = 0; i < a.size(); i++) {
      String x = a.get(i).raw();
      String y = b.get(i).raw();
      if (!x.equals(y) && !casingVariants(x, y, caseless)) {
        return Verdict.disagree("case differs: " + x + " vs " + y);
      }
    }
    return Verdict.AGREE;
  }

  /** Whether two spellings of one word differ only as lowercase, Capitalized and CAPITALS do. */
  static boolean casingVariants(String x, String y, boolean caseless) {
    if (x.equalsIgnoreCase("i") && y.equalsIgnoreCase("i")) {
      return true;
    }
    Shape sx = Shape.of(x);
    Shape sy = Shape.of(y);
    if (caseless) {
      return sx != Shape.OTHER && sy != Shape.OTHER;
    }
    if (x.codePointCount(0, x.length()) < 2 || sx == Shape.OTHER || sy == Shape.OTHER) {
      return false;
    }
    // MB / Mb: capitals against a capitalized short word is a unit or an acronym changing.
    boolean upperVsCapital = sx == Shape.UPPER && sy == Shape.CAPITAL
        || sx == Shape.CAPITAL && sy == Shape.UPPER;
    return !(upperVsCapital && x.length() <= 4);
  }

  private enum Shape {
    LOWER, CAPITAL, UPPER, OTHER;

    static Shape of(String s) {
      if (s.equals(s.toLowerCase(Locale.ROOT))) {
        return LOWER;
      }
      if (s.equals(s.toUpperCase(Locale.ROOT))) {
        return UPPER;
      }
      int first = s.codePointAt(0);
      String rest = s.substring(Character.charCount(first));
      return Character.isUpperCase(first) && rest.equals(rest.toLowerCase(Locale.ROOT))
          ? CAPITAL : OTHER;
    }
  }

  /** {@code P, Q} against {@code Q P}, where P is a short phrase opening with a preposition. */
  private static boolean movedLeadingPhrase(List<Token> a, List<Token> b, boolean caseless) {
    if (a.size() != b.size()) {
      return false;
    }
    String opener = a.get(0).norm();
    int longest = PREPOSITIONS.contains(opener) ? 4 : SUBORDINATORS.contains(opener) ? 8 : 0;
    for (int p = 1; p <= longest && p < a.size(); p++) {
      if (!a.get(p).boundaryBefore()) {
        continue;
      }
      int q = a.size() - p;
      boolean same = true;
      for (int i = 0; i < q && same; i++) {
        same = a.get(p + i).norm().equals(b.get(i).norm());
      }
      for (int i = 0; i < p && same; i++) {
        same = a.get(i).norm().equals(b.get(q + i).norm());
      }
      if (same) {
        List<Token> rotated = new ArrayList<>(a.subList(p, a.size()));
        rotated.addAll(a.subList(0, p));
        return caseAgreement(rotated, b, caseless).agrees();
      }
      return false;
    }
    return false;
  }

  /** {@code x and y} against {@code y and x} (or {@code or}), single words, all else equal. */
  private static boolean swappedConjuncts(List<Token> a, List<Token> b, boolean caseless) {
    if (a.size() != b.size()) {
      return false;
    }
    int first = -1;
    int differing = 0;
    for (int i = 0; i < a.size(); i++) {
      if (!a.get(i).norm().equals(b.get(i).norm())) {
        differing++;
        if (first < 0) {
          first = i;
        }
      }
    }
    if (differing != 2 || first + 2 >= a.size()) {
      return false;
    }
    String conjunction = a.get(first + 1).norm();
    Token x = a.get(first);
    Token y = a.get(first + 2);
    if (!(conjunction.equals("and") || conjunction.equals("or"))
        || !x.norm().equals(b.get(first + 2).norm()) || !y.norm().equals(b.get(first).norm())
        || !isWord(x.norm()) || !isWord(y.norm())) {
      return false;
    }
    List<Token> swapped = new ArrayList<>(a);
    swapped.set(first, y);
    swapped.set(first + 2, x);
    return caseAgreement(swapped, b, caseless).agrees();
  }

  /**
   * {@code why is not my cake fluffy} (from {@code isn't}) against {@code why is my cake not
   * fluffy}: one {@code not} right after an auxiliary in {@code a}, later in the same clause in
   * {@code b}, and nothing else different.
   */
  private static boolean movedNot(List<Token> a, List<Token> b, boolean caseless) {
    if (a.size() != b.size()) {
      return false;
    }
    int k = -1;
    for (int i = 1; i < a.size(); i++) {
      if (a.get(i).norm().equals("not") && !b.get(i).norm().equals("not")) {
        k = i;
        break;
      }
    }
    if (k < 0 || !AUXILIARIES.contains(a.get(k - 1).norm())
        || !a.get(k - 1).norm().equals(b.get(k - 1).norm())) {
      return false;
    }
    int m = -1;
    for (int j = k + 1; j < b.size(); j++) {
      if (b.get(j).boundaryBefore()) {
        return false;
      }
      if (b.get(j).norm().equals("not")) {
        m = j;
        break;
      }
    }
    if (m < 0) {
      return false;
    }
    List<Token> moved = new ArrayList<>(a);
    Token not = moved.remove(k);
    moved.add(m, not);
    return sameNorms(moved, b) && caseAgreement(moved, b, caseless).agrees();
  }

  private static boolean isWord(String norm) {
    return norm.codePoints().allMatch(Character::isLetter);
  }

  private static String difference(List<Token> a, List<Token> b) {
    Map<String, Integer> count = new HashMap<>();
    for (Token t : a) {
      count.merge(t.norm(), 1, Integer::sum);
    }
    for (Token t : b) {
      count.merge(t.norm(), -1, Integer::sum);
    }
    List<String> onlyA = new ArrayList<>();
    List<String> onlyB = new ArrayList<>();
    for (Token t : a) {
      if (count.getOrDefault(t.norm(), 0) > 0 && !onlyA.contains(t.norm())) {
        onlyA.add(t.norm());
      }
    }
    for (Token t : b) {
      if (count.getOrDefault(t.norm(), 0) < 0 && !onlyB.contains(t.norm())) {
        onlyB.add(t.norm());
      }
    }
    if (onlyA.isEmpty() && onlyB.isEmpty()) {
      int i = 0;
      while (a.get(i).norm().equals(b.get(i).norm())) {
        i++;
      }
      return "word order differs at '" + a.get(i).norm() + "' vs '" + b.get(i).norm() + "'";
    }
    List<String> all = new ArrayList<>(onlyA);
    all.addAll(onlyB);
    String kind;
    if (all.stream().anyMatch(t -> t.equals("not") || t.equals("no") || t.equals("never")
        || t.equals("without"))) {
      kind = "negation differs";
    } else if (all.stream().anyMatch(t -> Character.isDigit(t.charAt(0)))) {
      kind = "numbers differ";
    } else if (all.stream().anyMatch(t -> !Character.isLetterOrDigit(t.codePointAt(0))
        && t.charAt(0) != '_')) {
      kind = "symbols differ";
    } else {
      kind = "words differ";
    }
    return kind + " " + onlyA + " vs " + onlyB;
  }

  /**
   * Returns the normalized token sequence of a text, as the rules compare it.
   *
   * @param text the text
   * @return the tokens
   */
  static List<Token> normalize(String text) {
    String s = Normalizer.normalize(text, Normalizer.Form.NFKC)
        .replace('’', '\'').replace('‘', '\'').replace('ʼ', '\'')
        .replace('“', '"').replace('”', '"').replace('„', '"')
        .replace('−', '-').replace('–', '-');
    boolean code = s.indexOf('`') >= 0 || hasCodeCharacter(s);
    List<Token> tokens = new ArrayList<>();
    boolean boundary = true;
    boolean quoted = false;
    for (int at = skipSpace(s, 0); at < s.length(); at = skipSpace(s, at)) {
      int end = tokenEnd(s, at);
      String raw = s.substring(at, end);
      at = end;
      boolean literal = quoted;
      quoted = false;
      if (BOUNDARY.contains(raw)) {
        boundary = true;
        continue;
      }
      if (QUIET.contains(raw)) {
        quoted = raw.equals("\"") || raw.equals("'");
        continue;
      }
      if (raw.startsWith("`") && raw.length() > 1) {
        String body = raw.substring(1, raw.length() - 1).strip().replaceAll("\\s+", " ");
        tokens.add(new Token("`" + body + "`", "`" + body + "`", boundary));
        boundary = false;
        continue;
      }
      String lower = raw.toLowerCase(Locale.ROOT);
      if (Character.isDigit(raw.charAt(0))) {
        String n = GROUPED.matcher(raw).matches() ? raw.replace(",", "") : raw;
        tokens.add(new Token(n.toLowerCase(Locale.ROOT), n, boundary));
        boundary = false;
        continue;
      }
      List<String> parts = expand(lower);
      for (int i = 0; i < parts.size(); i++) {
        String part = parts.get(i);
        String number = NUMBER_WORDS.get(part);
        String norm = number != null ? number
            : code ? part : CANONICAL.getOrDefault(part, part);
        // The original spelling decides the case rule; expanded parts carry none.
        String spelled = parts.size() == 1 ? (number != null ? norm : raw) : part;
        // A quoted word ("the \"a\" tag") is never dropped as filler.
        tokens.add(new Token(norm, spelled, boundary && i == 0, literal && i == 0));
      }
      boundary = false;
    }
    return dropFiller(tokens, code, !hasLowercase(s));
  }

  /** Whether a text has one of the characters that mark code: {@code { } ; = ( ) [ ] < >}. */
  private static boolean hasCodeCharacter(String s) {
    for (int i = 0; i < s.length(); i++) {
      switch (s.charAt(i)) {
        case '{', '}', ';', '=', '(', ')', '[', ']', '<', '>' -> {
          return true;
        }
        default -> { }
      }
    }
    return false;
  }

  /**
   * The first index at or after {@code i} that is not whitespace in the regular-expression
   * sense ({@code [ \t\n\x0B\f\r]}: other spaces, such as U+00A0, are tokens).
   */
  private static int skipSpace(String s, int i) {
    while (i < s.length()) {
      char c = s.charAt(i);
      if (c != ' ' && (c < '\t' || c > '\r')) {
        break;
      }
      i++;
    }
    return i;
  }

  /**
   * Where the token that starts at {@code at} (not whitespace) ends. The tokens, tried in this
   * order: a backtick, at most 500 characters other than a backtick and a closing backtick;
   * ASCII digits, groups of one of {@code . , : /} and more digits, then a word that starts
   * with a letter or {@code _}; a word (a letter, mark or {@code _}, then letters, marks,
   * numbers and {@code _}, then any number of an apostrophe and letters); one of the operators
   * {@code == != <= >= && || -> => :: ++ -- ** << >>}; else the one code point. Letters, marks
   * and numbers are Unicode's (categories L, M and N), read by code point.
   */
  static int tokenEnd(String s, int at) {
    int n = s.length();
    char c = s.charAt(at);
    if (c == '`') {
      int i = at + 1;
      for (int count = 0; i < n && count <= 500; count++) {
        if (s.charAt(i) == '`') {
          return i + 1;
        }
        i += Character.charCount(s.codePointAt(i));
      }
      return at + 1;
    }
    if (isAsciiDigit(c)) {
      int i = digits(s, at);
      while (i + 1 < n && isSeparator(s.charAt(i)) && isAsciiDigit(s.charAt(i + 1))) {
        i = digits(s, i + 1);
      }
      if (i < n) {
        int cp = s.codePointAt(i);
        if (Character.isLetter(cp) || cp == '_') {
          i += Character.charCount(cp);
          while (i < n) {
            cp = s.codePointAt(i);
            if (!(Character.isLetter(cp) || isNumber(cp) || cp == '_')) {
              break;
            }
            i += Character.charCount(cp);
          }
        }
      }
      return i;
    }
    int cp = s.codePointAt(at);
    if (Character.isLetter(cp) || isMark(cp) || cp == '_') {
      int i = at + Character.charCount(cp);
      while (i < n) {
        cp = s.codePointAt(i);
        if (!(Character.isLetter(cp) || isMark(cp) || isNumber(cp) || cp == '_')) {
          break;
        }
        i += Character.charCount(cp);
      }
      // Then apostrophe and letters, as often as they come.
      while (i + 1 < n && s.charAt(i) == '\'' && Character.isLetter(s.codePointAt(i + 1))) {
        i++;
        while (i < n && Character.isLetter(cp = s.codePointAt(i))) {
          i += Character.charCount(cp);
        }
      }
      return i;
    }
    if (at + 1 < n && isOperator(c, s.charAt(at + 1))) {
      return at + 2;
    }
    return at + Character.charCount(cp);
  }

  private static int digits(String s, int i) {
    while (i < s.length() && isAsciiDigit(s.charAt(i))) {
      i++;
    }
    return i;
  }

  private static boolean isAsciiDigit(char c) {
    return c >= '0' && c <= '9';
  }

  private static boolean isSeparator(char c) {
    return c == '.' || c == ',' || c == ':' || c == '/';
  }

  private static boolean isMark(int cp) {
    int type = Character.getType(cp);
    return type == Character.NON_SPACING_MARK || type == Character.ENCLOSING_MARK
        || type == Character.COMBINING_SPACING_MARK;
  }

  private static boolean isNumber(int cp) {
    int type = Character.getType(cp);
    return type == Character.DECIMAL_DIGIT_NUMBER || type == Character.LETTER_NUMBER
        || type == Character.OTHER_NUMBER;
  }

  private static boolean isOperator(char a, char b) {
    return switch (a) {
      case '=' -> b == '=' || b == '>';
      case '!' -> b == '=';
      case '<' -> b == '=' || b == '<';
      case '>' -> b == '=' || b == '>';
      case '&' -> b == '&';
      case '|' -> b == '|';
      case '-' -> b == '>' || b == '-';
      case ':' -> b == ':';
      case '+' -> b == '+';
      case '*' -> b == '*';
      default -> false;
    };
  }

  private static List<String> expand(String lower) {
    List<String> whole = CONTRACTIONS.get(lower);
    if (whole != null) {
      return whole;
    }
    int apostrophe = lower.indexOf('\'');
    if (apostrophe <= 0) {
      return List.of(lower);
    }
    String stem = lower.substring(0, apostrophe);
    String tail = lower.substring(apostrophe);
    if (lower.endsWith("n't")) {
      return List.of(lower.substring(0, lower.length() - 3), "not");
    }
    switch (tail) {
      case "'re":
        return List.of(stem, "are");
      case "'ve":
        return List.of(stem, "have");
      case "'ll":
        return List.of(stem, "will");
      case "'d":
        return List.of(stem, "would");
      case "'m":
        return List.of(stem, "am");
      case "'s":
        return IS_AFTER.contains(stem) ? List.of(stem, "is") : List.of(stem, "'s");
      default:
        return List.of(lower);
    }
  }

  private static List<Token> dropFiller(List<Token> in, boolean code, boolean caseless) {
    List<Token> out = new ArrayList<>();
    boolean clauseStart = true;
    boolean pendingBoundary = false;
    int i = 0;
    // Greetings first: "hi", "hello there".
    while (i < in.size() && GREETINGS.contains(in.get(i).norm())) {
      i++;
      if (i < in.size() && in.get(i).norm().equals("there")) {
        i++;
      }
    }
    int end = in.size();
    for (boolean again = true; again; ) {
      again = false;
      for (List<String> thanks : THANKS) {
        int from = end - thanks.size();
        if (from > i && matches(in, from, thanks) && in.get(from).boundaryBefore()) {
          end -= thanks.size();
          again = true;
          break;
        }
      }
    }
    while (i < end) {
      Token t = in.get(i);
      if (t.boundaryBefore()) {
        clauseStart = true;
        pendingBoundary = true;
      }
      if (clauseStart) {
        List<String> wrapper = wrapperAt(in, i, end);
        if (wrapper != null) {
          i += wrapper.size();
          continue;
        }
      }
      if (!t.literal() && DROPPED.contains(t.norm()) && !(code && ARTICLES.contains(t.norm()))
          && !(t.raw().equals("A") && !t.boundaryBefore() && !caseless)) {
        // In code an article may be a variable; a capital A inside a sentence is a name
        // (vitamin A, plan A).
        i++;
        continue;
      }
      if (t.norm().equals("how") && i + 2 < end && isAuxiliary(in.get(i + 1).norm())
          && isSubject(in.get(i + 2).norm())) {
        out.add(new Token("how", t.raw(), pendingBoundary || t.boundaryBefore()));
        out.add(new Token("to", "to", false));
        i += 3;
        clauseStart = false;
        pendingBoundary = false;
        continue;
      }
      out.add(new Token(t.norm(), t.raw(), pendingBoundary || t.boundaryBefore(), t.literal()));
      clauseStart = false;
      pendingBoundary = false;
      i++;
    }
    return out;
  }

  private static boolean isAuxiliary(String w) {
    return w.equals("do") || w.equals("can") || w.equals("could");
  }

  private static boolean isSubject(String w) {
    return w.equals("i") || w.equals("we") || w.equals("you") || w.equals("one");
  }

  private static List<String> wrapperAt(List<Token> in, int at, int end) {
    for (List<String> w : WRAPPERS) {
      if (at + w.size() < end && matches(in, at, w)) {
        return w;
      }
    }
    return null;
  }

  private static boolean matches(List<Token> in, int at, List<String> phrase) {
    for (int j = 0; j < phrase.size(); j++) {
      if (in.get(at + j).literal() || !in.get(at + j).norm().equals(phrase.get(j))) {
        return false;
      }
    }
    return true;
  }

  private static List<List<String>> phrases(String... phrases) {
    List<List<String>> out = new ArrayList<>();
    for (String p : phrases) {
      out.add(List.of(p.split(" ")));
    }
    return List.copyOf(out);
  }

  private static Map<String, String> canonical() {
    Map<String, String> m = new HashMap<>();
    for (List<String> set : SYNONYMS) {
      for (String w : set) {
        if (m.putIfAbsent(w, set.get(0)) != null) {
          throw new IllegalStateException("synonym listed twice: " + w);
        }
      }
    }
    return Map.copyOf(m);
  }

  private static Map<String, List<String>> contractions() {
    Map<String, List<String>> m = new HashMap<>();
    m.put("can't", List.of("can", "not"));
    m.put("cannot", List.of("can", "not"));
    m.put("won't", List.of("will", "not"));
    m.put("shan't", List.of("shall", "not"));
    m.put("ain't", List.of("is", "not"));
    m.put("let's", List.of("let", "us"));
    m.put("i'm", List.of("i", "am"));
    m.put("im", List.of("i", "am"));
    m.put("whats", List.of("what", "is"));
    m.put("thats", List.of("that", "is"));
    for (String base : new String[] {"do", "does", "did", "is", "are", "was", "were", "should",
        "would", "could", "have", "has", "had", "must", "need"}) {
      m.put(base + "nt", List.of(base, "not"));
    }
    m.put("cant", List.of("can", "not"));
    m.put("wont", List.of("will", "not"));
    return Map.copyOf(m);
  }

  private static Map<String, String> numberWords() {
    String[] units = {"zero", "one", "two", "three", "four", "five", "six", "seven", "eight",
        "nine", "ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen",
        "seventeen", "eighteen", "nineteen", "twenty"};
    Map<String, String> m = new HashMap<>();
    for (int i = 0; i < units.length; i++) {
      m.put(units[i], Integer.toString(i));
    }
    String[] tens = {"thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"};
    for (int i = 0; i < tens.length; i++) {
      m.put(tens[i], Integer.toString(30 + 10 * i));
    }
    String[] ordinals = {"first", "second", "third", "fourth", "fifth", "sixth", "seventh",
        "eighth", "ninth", "tenth"};
    String[] suffix = {"st", "nd", "rd", "th", "th", "th", "th", "th", "th", "th"};
    for (int i = 0; i < ordinals.length; i++) {
      m.put(ordinals[i], (i + 1) + suffix[i]);
    }
    return Map.copyOf(m);
  }
}
