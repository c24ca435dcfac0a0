package io.pointsman.cache.semantic;

import java.text.Normalizer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The earlier {@link HitVerifier}, kept for hosts that chose it: decides whether two texts that
 * embed close together may share an answer, by the tokens that flip meaning while barely moving
 * an embedding. It compares sets of content words, not their order, and misses word-order
 * swaps, changed function words and symbols; the default is {@link AlignmentVerifier}. Both texts must agree on:
 * <ol>
 *   <li><b>negation</b>: the same number of negating words ({@code not}, {@code n't},
 *       {@code never}, {@code without}, {@code except} …);</li>
 *   <li><b>numbers</b>: the same numbers in the same order, digits and number words alike
 *       ({@code "3"} and {@code "three"} agree; {@code "1,000"} and {@code "1000"} agree);</li>
 *   <li><b>named entities and literals</b>: the same capitalized names, acronyms, mixed
 *       letter-digit tokens, code-like tokens and quoted strings, in the same order (so a swap
 *       of two names is a disagreement). Capitals count only when both texts use both cases;
 *       in an all-lowercase or all-capitals text, names are compared as content words;</li>
 *   <li><b>opposites</b>: for each pair of opposite poles ({@code before/after},
 *       {@code increase/decrease}, {@code import/export}, {@code min/max} …), the same poles;</li>
 *   <li><b>question form</b>: when both texts have an interrogative ({@code what}, {@code who},
 *       {@code when}, {@code where}, {@code why}, {@code how}), a modal ({@code can},
 *       {@code should}, {@code must}, {@code will} …) or a tense marker ({@code is} /
 *       {@code was} / {@code will}, {@code does} / {@code did}), they use the same ones, so
 *       "when was it founded" and "where was it founded", or "can I" and "should I", differ;
 *       a text without any of a kind agrees with any ("how do I" and "how can I");</li>
 *   <li><b>direction</b>: words on either side of a relational word ({@code to}, {@code from},
 *       {@code than}, {@code vs} …) that both texts contain appear in the same order;</li>
 *   <li><b>content</b>: every content word of one text is in the other, up to a plural
 *       {@code s} and a list of words that do not change what is asked ({@code please},
 *       {@code explain}, {@code tell} …). A paraphrase that changes a content word
 *       (synonyms) is therefore a miss: the verifier prefers a lost hit to a wrong answer.</li>
 * </ol>
 * Immutable and thread-safe.
 */
public final class LexicalVerifier implements HitVerifier {
  private static final Pattern TOKEN = Pattern.compile(
      "\"[^\"]{1,80}\"|`[^`]{1,80}`|[\\p{L}\\p{N}]+(?:[.,'’\\-_/:@+#][\\p{L}\\p{N}]+)*[+#]*");
  private static final Pattern NUMBER = Pattern.compile("[+-]?\\d+(?:,\\d{3})*(?:\\.\\d+)?");
  private static final Pattern DIGITS = Pattern.compile("\\d+(?:\\.\\d+)?");

  private static final Set<String> NEGATIONS = Set.of("not", "no", "never", "none", "nobody",
      "nothing", "nowhere", "neither", "nor", "cannot", "without", "except", "excluding",
      "unless", "lacks", "lack", "nope", "non");

  private static final Map<String, String> NUMBER_WORDS = numberWords();

  private static final Set<String> PRONOUN_I = Set.of("i", "i'm", "i'd", "i've", "i'll");

  private static final Set<String> RELATIONS = Set.of("to", "into", "from", "than", "vs",
      "versus", "over", "per", "onto", "toward", "towards", "instead");

  /** Words that do not change what is asked. */
  private static final Set<String> FILLER = words(
      "a", "an", "the", "this", "that", "these", "those", "it", "its", "it's", "is", "are", "was",
      "were", "be", "been", "being", "am", "do", "does", "did", "done", "doing", "have", "has",
      "had", "having", "i", "me", "my", "mine", "we", "us", "our", "you", "your", "yours", "he",
      "she", "him", "her", "they", "them", "their", "what", "what's", "whats", "which", "who",
      "whom", "whose", "how", "how's", "why", "when", "where", "there", "here", "of", "in",
      "on", "at", "by", "for", "with", "about", "as", "into", "to", "from", "and", "or", "but",
      "if", "then", "so", "can", "could", "would", "should", "will", "shall", "may", "might",
      "must", "please", "kindly", "tell", "explain", "describe", "show", "give", "let", "know",
      "want", "need", "help", "like", "just", "really", "actually", "exactly", "simply",
      "briefly", "quickly", "some", "any", "way", "ways", "also", "too", "very", "much",
      "many", "get", "go", "make", "use", "using", "one", "thing", "things", "hey", "hi",
      "hello", "thanks", "thank", "pls", "plz", "ok", "okay", "question", "wondering", "i'm",
      "im", "i'd", "i've", "you're", "can't", "there's", "please,", "someone", "anyone", "me,",
      "whether", "out", "up", "does", "mean", "means", "meaning", "definition", "define",
      "difference", "between", "vs", "versus", "than", "again", "please?");

  /** Sentence openers that are not names even when capitalized. */
  private static final Set<String> OPENERS = words("what", "what's", "how", "why", "when",
      "where", "who", "which", "can", "could", "would", "should", "is", "are", "do", "does",
      "did", "will", "please", "tell", "explain", "describe", "give", "list", "write", "show",
      "i", "i'm", "the", "a", "an", "in", "on", "for", "my", "your", "translate", "summarize",
      "summarise", "compare", "define", "find", "calculate", "convert", "make", "create",
      "help", "hey", "hi", "hello", "was", "were", "has", "have", "any", "name", "whats", "if",
      "it", "there", "this", "that", "how's", "suggest", "recommend", "generate", "draft",
      "is", "am", "may", "let", "let's", "so", "and", "but", "or", "also", "now", "then", "ok",
      "okay", "thanks", "yes", "no", "not", "never", "without", "why's", "where's", "who's",
      "we", "you", "they", "he", "she", "from", "to", "at", "by", "with", "about", "after",
      "before", "during", "since", "until", "quick", "simple", "short", "brief", "best",
      "good", "some", "all", "each", "every", "do", "don't", "does", "doesn't", "isn't",
      "aren't", "can't", "won't", "shouldn't", "wouldn't", "couldn't", "didn't", "wasn't");

  private static final Map<String, String> POLES = poles();

  /** Question words, modals and tense markers: kind, then value. */
  private static final Map<String, List<String>> FORMS = forms();

  private LexicalVerifier() {}

  private static Set<String> words(String... words) {
    return Set.copyOf(new HashSet<>(List.of(words)));
  }

  /**
   * Returns the verifier with the rules above.
   *
   * @return the verifier
   */
  public static LexicalVerifier standard() {
    return new LexicalVerifier();
  }

  /**
   * Compares two texts.
   *
   * @param query the text being looked up
   * @param cached the text of the cached entry
   * @return the verdict
   */
  @Override
  public Verdict verify(String query, String cached) {
    Objects.requireNonNull(query, "query");
    Objects.requireNonNull(cached, "cached");
    if (query.equals(cached)) {
      return Verdict.AGREE;
    }
    return byRules(query, cached);
  }

  /** The rules alone, without the shortcut for equal texts: tests pin that they accept it. */
  Verdict byRules(String query, String cached) {
    Features a = Features.of(query);
    Features b = Features.of(cached);
    if (a.negations != b.negations) {
      return Verdict.disagree("negation differs (" + a.negations + " vs " + b.negations + ")");
    }
    if (!a.numbers.equals(b.numbers)) {
      return Verdict.disagree("numbers differ " + a.numbers + " vs " + b.numbers);
    }
    if (a.cased && b.cased && !a.entities.equals(b.entities)) {
      return Verdict.disagree("entities differ " + a.entities + " vs " + b.entities);
    }
    if (!a.poles.equals(b.poles)) {
      return Verdict.disagree("opposites differ " + a.poles + " vs " + b.poles);
    }
    for (Map.Entry<String, Set<String>> kind : a.forms.entrySet()) {
      Set<String> other = b.forms.get(kind.getKey());
      if (other != null && !other.equals(kind.getValue())) {
        return Verdict.disagree(kind.getKey() + " differs " + kind.getValue() + " vs " + other);
      }
    }
    String order = directionDisagreement(a, b);
    if (order == null) {
      order = directionDisagreement(b, a);
    }
    if (order != null) {
      return Verdict.disagree("direction differs: " + order);
    }
    Set<String> onlyA = new TreeSet<>(a.content);
    onlyA.removeAll(b.content);
    Set<String> onlyB = new TreeSet<>(b.content);
    onlyB.removeAll(a.content);
    if (!onlyA.isEmpty() || !onlyB.isEmpty()) {
      return Verdict.disagree("content words differ " + onlyA + " vs " + onlyB);
    }
    return Verdict.AGREE;
  }

  private static String directionDisagreement(Features a, Features b) {
    for (String[] pair : a.relationPairs) {
      // A word can occur twice ("new staff … a new system"): the order holds when some
      // occurrence of the left word precedes some occurrence of the right one.
      int left = b.contentOrder.indexOf(pair[0]);
      int right = b.contentOrder.lastIndexOf(pair[1]);
      if (left >= 0 && right >= 0 && left > right) {
        return pair[0] + " → " + pair[1];
      }
    }
    return null;
  }

  /** What the rules compare, extracted once per text. */
  private static final class Features {
    int negations;
    boolean cased;
    final List<String> numbers = new ArrayList<>();
    final List<String> entities = new ArrayList<>();
    final Set<String> poles = new TreeSet<>();
    final Map<String, Set<String>> forms = new java.util.TreeMap<>();
    final Set<String> content = new HashSet<>();
    final List<String> contentOrder = new ArrayList<>();
    final List<String[]> relationPairs = new ArrayList<>();

    static Features of(String text) {
      Features f = new Features();
      // Capitals mark names only in a text that uses both cases; in all-lowercase or
      // all-capitals text names fall back to the content-word comparison.
      f.cased = text.chars().anyMatch(Character::isUpperCase)
          && text.chars().anyMatch(Character::isLowerCase)
          && !text.equals(text.toUpperCase(Locale.ROOT));
      String normalized = Normalizer.normalize(text, Normalizer.Form.NFKC)
          .replace('’', '\'').replace('‘', '\'').replace('“', '"').replace('”', '"');
      Matcher m = TOKEN.matcher(normalized);
      boolean sentenceStart = true;
      int last = 0;
      List<String> lowered = new ArrayList<>();
      while (m.find()) {
        String between = normalized.substring(last, m.start());
        if (between.matches(".*[.!?:;\\n]\\s*$")) {
          sentenceStart = true;
        }
        last = m.end();
        String raw = m.group();
        if (raw.startsWith("\"") || raw.startsWith("`")) {
          f.entities.add(raw.substring(1, raw.length() - 1).toLowerCase(Locale.ROOT).strip());
          sentenceStart = false;
          continue;
        }
        String lower = raw.toLowerCase(Locale.ROOT);
        lowered.add(lower);
        f.classify(raw, lower, sentenceStart);
        sentenceStart = false;
      }
      f.relations(lowered);
      return f;
    }

    private void classify(String raw, String lower, boolean sentenceStart) {
      for (String form : FORMS.getOrDefault(lower, List.of())) {
        int colon = form.indexOf(':');
        forms.computeIfAbsent(form.substring(0, colon), k -> new TreeSet<>())
            .add(form.substring(colon + 1));
      }
      if (lower.endsWith("n't") || lower.endsWith("nt") && isContractedNegation(lower)) {
        negations++;
        return;
      }
      if (NEGATIONS.contains(lower)) {
        negations++;
        return;
      }
      if (NUMBER.matcher(lower).matches()) {
        numbers.add(canonicalNumber(lower));
        return;
      }
      String word = NUMBER_WORDS.get(lower);
      if (word != null) {
        numbers.add(word);
        return;
      }
      boolean hasDigit = false;
      boolean hasLetter = false;
      for (int i = 0; i < raw.length(); i++) {
        char c = raw.charAt(i);
        hasDigit |= Character.isDigit(c);
        hasLetter |= Character.isLetter(c);
      }
      if (hasDigit) {
        Matcher d = DIGITS.matcher(raw);
        while (d.find()) {
          numbers.add(canonicalNumber(d.group()));
        }
      }
      boolean capitalized = cased && hasLetter && !raw.equals(lower) && !PRONOUN_I.contains(lower);
      boolean codeLike = raw.chars().anyMatch(c -> "._/:@+#".indexOf(c) >= 0);
      boolean name = capitalized && !(sentenceStart && OPENERS.contains(lower)
          && Character.isUpperCase(raw.charAt(0)) && raw.substring(1).equals(lower.substring(1)));
      if (name || (hasDigit && hasLetter) || codeLike) {
        entities.add(lower);
        // Also a content word, so that a text without case information still compares it.
        content.add(stem(lower));
        contentOrder.add(stem(lower));
        return;
      }
      String pole = POLES.get(lower);
      if (pole != null) {
        poles.add(pole);
      }
      if (!FILLER.contains(lower) && hasLetter) {
        String stem = stem(lower);
        content.add(stem);
        contentOrder.add(stem);
      }
    }

    private void relations(List<String> tokens) {
      for (int i = 0; i < tokens.size(); i++) {
        if (!RELATIONS.contains(tokens.get(i))) {
          continue;
        }
        String left = nearestContent(tokens, i, -1);
        String right = nearestContent(tokens, i, +1);
        if (left != null && right != null && !left.equals(right)) {
          relationPairs.add(new String[] {left, right});
        }
      }
    }

    private static String nearestContent(List<String> tokens, int from, int step) {
      for (int j = from + step; j >= 0 && j < tokens.size(); j += step) {
        String t = tokens.get(j);
        if (RELATIONS.contains(t)) {
          return null;
        }
        if (!FILLER.contains(t) && !NEGATIONS.contains(t)) {
          return stem(t);
        }
      }
      return null;
    }
  }

  private static boolean isContractedNegation(String lower) {
    return lower.equals("dont") || lower.equals("doesnt") || lower.equals("didnt")
        || lower.equals("isnt") || lower.equals("arent") || lower.equals("wasnt")
        || lower.equals("werent") || lower.equals("cant") || lower.equals("wont")
        || lower.equals("shouldnt") || lower.equals("wouldnt") || lower.equals("couldnt")
        || lower.equals("havent") || lower.equals("hasnt") || lower.equals("hadnt")
        || lower.equals("mustnt") || lower.equals("neednt") || lower.equals("aint");
  }

  private static String stem(String word) {
    if (word.length() >= 7 && word.endsWith("ing")) {
      return word.substring(0, word.length() - 3);
    }
    if (word.length() >= 6 && word.endsWith("ed") && !word.endsWith("eed")) {
      return word.substring(0, word.length() - 2);
    }
    if (word.length() > 4 && word.endsWith("ies")) {
      return word.substring(0, word.length() - 3) + "y";
    }
    if (word.length() > 3 && word.endsWith("s") && !word.endsWith("ss")
        && !word.endsWith("us") && !word.endsWith("is")) {
      return word.substring(0, word.length() - 1);
    }
    return word;
  }

  private static String canonicalNumber(String n) {
    String s = n.replace(",", "");
    if (s.startsWith("+")) {
      s = s.substring(1);
    }
    if (s.contains(".")) {
      s = s.replaceAll("0+$", "");
      if (s.endsWith(".")) {
        s = s.substring(0, s.length() - 1);
      }
    }
    s = s.replaceFirst("^(-?)0+(?=\\d)", "$1");
    return s;
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
    m.put("hundred", "100");
    m.put("thousand", "1000");
    m.put("million", "1000000");
    m.put("billion", "1000000000");
    m.put("dozen", "12");
    m.put("half", "0.5");
    m.put("twice", "2x");
    m.put("double", "2x");
    m.put("triple", "3x");
    m.put("first", "1st");
    m.put("second", "2nd");
    m.put("third", "3rd");
    m.put("fourth", "4th");
    m.put("fifth", "5th");
    m.put("1st", "1st");
    m.put("2nd", "2nd");
    m.put("3rd", "3rd");
    return Map.copyOf(m);
  }

  private static Map<String, List<String>> forms() {
    String[][] groups = {
        {"question", "what", "what,what's,whats,which"},
        {"question", "who", "who,whom,whose,who's"},
        {"question", "when", "when,when's"},
        {"question", "where", "where,where's"},
        {"question", "why", "why,why's"},
        {"question", "how", "how,how's"},
        {"modal", "ability", "can,could,can't,cannot,couldn't"},
        {"modal", "advice", "should,ought,shouldn't"},
        {"modal", "obligation", "must,mustn't"},
        {"modal", "possibility", "may,might"},
        {"tense", "present", "is,are,am,isn't,aren't,does,doesn't,what's,who's,where's,"
            + "when's,why's,how's,it's,that's,there's"},
        {"tense", "past", "was,were,wasn't,weren't,did,didn't"},
        {"tense", "future", "will,won't,shall"},
    };
    Map<String, List<String>> m = new HashMap<>();
    for (String[] g : groups) {
      for (String w : g[2].split(",")) {
        // A word can mark two kinds: "what's" is a question word and a present tense.
        m.computeIfAbsent(w, k -> new ArrayList<>()).add(g[0] + ":" + g[1]);
      }
    }
    Map<String, List<String>> out = new HashMap<>();
    m.forEach((k, v) -> out.put(k, List.copyOf(v)));
    return Map.copyOf(out);
  }

  private static Map<String, String> poles() {
    String[][] pairs = {
        {"before,prior,earlier,preceding", "after,later,following,afterwards"},
        {"increase,increases,increasing,increased,raise,raising,grow,growing,rise,rising",
            "decrease,decreases,decreasing,decreased,reduce,reducing,lower,lowering,shrink,"
                + "drop,fall,falling"},
        {"more,greater,larger,bigger,higher,most,largest,biggest,highest,maximum,max,longest",
            "less,fewer,smaller,least,smallest,lowest,minimum,min,fewest,shortest"},
        {"last,latest,final", "earliest,initial,oldest"},
        {"true", "false"},
        {"enable,enabled,enabling,activate,on", "disable,disabled,disabling,deactivate,off"},
        {"add,adding,insert,inserting,append,create,creating",
            "remove,removing,delete,deleting,drop,erase"},
        {"buy,buying,purchase,bought", "sell,selling,sold"},
        {"import,importing", "export,exporting"},
        {"encrypt,encrypting,encryption,encode,encoding", "decrypt,decrypting,decryption,"
            + "decode,decoding"},
        {"upload,uploading", "download,downloading"},
        {"open,opening", "close,closing,closed"},
        {"start,starting,begin,beginning", "stop,stopping,end,ending,finish"},
        {"left", "right"},
        {"above,over", "below,under,beneath"},
        {"up,upward", "down,downward"},
        {"hot,warm,warmer,hotter", "cold,cool,colder,cooler"},
        {"fast,faster,fastest,quick,quicker", "slow,slower,slowest"},
        {"cheap,cheaper,cheapest", "expensive,pricier,costly"},
        {"north,northern", "south,southern"},
        {"east,eastern", "west,western"},
        {"win,winning,won", "lose,losing,lost"},
        {"positive", "negative"},
        {"input,inputs", "output,outputs"},
        {"long", "short"},
        {"old,older,ancient", "new,newer,newest,young,younger,modern"},
        {"male,men,man,boy,boys", "female,women,woman,girl,girls"},
        {"ascending,asc", "descending,desc"},
        {"inner", "outer"},
        {"push,pushing", "pull,pulling"},
        {"accept,accepting", "reject,rejecting"},
        {"allow,allowing,permit", "deny,denying,block,blocking,forbid"},
        {"include,including,included", "exclude,excluded"},
        {"advantage,advantages,pros,benefits,benefit", "disadvantage,disadvantages,cons,"
            + "drawbacks,drawback,downsides,risks"},
        {"best", "worst"},
        {"good,better", "bad,worse"},
        {"synchronous,sync", "asynchronous,async"},
        {"client", "server"},
        {"private", "public"},
        {"local", "remote"},
        {"read,reading", "write,writing"},
        {"lowercase", "uppercase"},
        {"horizontal,horizontally", "vertical,vertically"},
        {"legal", "illegal"},
        {"safe", "unsafe,dangerous"},
        {"possible", "impossible"},
        {"like,likes", "dislike,dislikes,hate"},
        {"always", "sometimes,rarely,occasionally"},
        {"all,every", "some,any"},
        {"yesterday", "tomorrow"},
        {"morning", "evening,night"},
        {"success,succeed", "failure,fail"},
        {"valid", "invalid"},
        {"mutable", "immutable"},
        {"static", "dynamic"},
        {"compile,compiled", "interpret,interpreted"},
    };
    Map<String, String> m = new HashMap<>();
    for (int g = 0; g < pairs.length; g++) {
      for (int pole = 0; pole < 2; pole++) {
        for (String w : pairs[g][pole].split(",")) {
          m.putIfAbsent(w, g + (pole == 0 ? "+" : "-") + ":" + pairs[g][pole].split(",")[0]);
        }
      }
    }
    return Map.copyOf(m);
  }
}
