package io.pointsman.guardrail;

import static io.pointsman.guardrail.Fixtures.anyone;
import static io.pointsman.guardrail.Fixtures.user;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.pointsman.PointsmanException;
import io.pointsman.Stages;
import io.pointsman.Status;
import io.pointsman.model.ChatRequest;
import io.pointsman.model.FunctionCall;
import io.pointsman.model.Message;
import io.pointsman.model.Role;
import io.pointsman.model.ToolCall;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.IntFunction;
import org.junit.jupiter.api.Test;

/**
 * Hostile input is answered with a typed error or checked in bounded work. Bounds are proven
 * with counters (characters read, regex steps), never with wall-clock assertions.
 */
class HostileInputTest {
  /** A detector that only counts what it is given, to show what reached the detectors. */
  private static final class CountingDetector implements Detector {
    long chars;

    @Override
    public String family() {
      return "count";
    }

    @Override
    public void scan(CharSequence text, List<Finding> out) {
      chars += text.length();
    }
  }

  private static void assertDenied(Runnable call, String rule) {
    assertThatThrownBy(call::run).isInstanceOfSatisfying(PointsmanException.class, e -> {
      assertThat(e.status()).isEqualTo(Status.BAD_REQUEST);
      assertThat(e.stage()).isEqualTo(Stages.GUARDRAIL_INPUT);
      assertThat(e.rule()).isEqualTo(rule);
    });
  }

  @Test
  void hugeInputIsRefusedByTheBoundsBeforeAnyDetectorReadsIt() {
    CountingDetector counter = new CountingDetector();
    InputGuardrailChain chain = InputGuardrailChain.defaultBuilder()
        .rule(counter, GuardrailAction.BLOCK).build();
    assertDenied(() -> chain.check(anyone(), user("x".repeat(5 << 20))),
        "bounds.message_bytes");
    assertThat(counter.chars).isZero();
  }

  @Test
  void deeplyNestedJsonIsRefusedWithoutRecursingIntoIt() {
    ObjectNode root = JsonNodeFactory.instance.objectNode();
    ObjectNode node = root;
    for (int i = 0; i < 100_000; i++) {
      node = node.putObject("n");
    }
    node.put("leaf", "value");
    ChatRequest request = ChatRequest.builder().model("m").addMessage(Message.user("hi"))
        .metadata(root).build();
    assertDenied(() -> InputGuardrailChain.ofDefaults().check(anyone(), request),
        "bounds.nesting");
  }

  @Test
  void tooMuchTextInJsonFieldsIsRefused() {
    ChatRequest request = ChatRequest.builder().model("m").addMessage(Message.user("hi"))
        .extra("x_blob", JsonNodeFactory.instance.textNode("y".repeat(2 << 20))).build();
    assertDenied(() -> InputGuardrailChain.ofDefaults().check(anyone(), request),
        "bounds.json_chars");
  }

  @Test
  void deeplyNestedJsonInToolArgumentsIsScannedAsTextInOnePass() {
    String args = "[".repeat(200_000) + "]".repeat(200_000);
    Message call = new Message(Role.ASSISTANT, null, null, List.of(new ToolCall("c1",
        "function", new FunctionCall("f", args, null), null)), null, null);
    ChatRequest request = ChatRequest.builder().model("m").addMessage(call).build();
    assertThat(InputGuardrailChain.ofDefaults().check(anyone(), request)).isSameAs(request);
  }

  @Test
  void unpairedSurrogatesAndNulAreATypedError() {
    assertDenied(() -> InputGuardrailChain.ofDefaults().check(anyone(), user("ok \uD800 ok")),
        "bounds.encoding");
    assertDenied(() -> InputGuardrailChain.ofDefaults().check(anyone(), user("ok \u0000")),
        "bounds.encoding");
  }

  @Test
  void detectorsAcceptArbitraryUtf16IncludingBrokenSurrogates() {
    Random random = new Random(3);
    char[] garbage = new char[200_000];
    for (int i = 0; i < garbage.length; i++) {
      garbage[i] = (char) random.nextInt(Character.MAX_VALUE + 1);
    }
    String text = new String(garbage);
    for (Detector d : detectors()) {
      CountingText counted = new CountingText(text);
      d.scan(counted, new ArrayList<>());
      assertThat(counted.reads()).as(d.family()).isLessThanOrEqualTo(8L * text.length());
    }
  }

  private static List<Detector> detectors() {
    return List.of(SecretDetector.ofDefaults(), PiiDetector.ofDefaults(),
        PromptInjectionDetector.ofDefaults(), PromptInjectionClassifier.ofDefaults(),
        BlockedPatterns.builder("pattern.blocked").literals(CorpusGenerator.blockedLiterals())
            .build());
  }

  /** Texts built to make a careless scanner re-read: repeated prefixes, separators, keywords. */
  private static Map<String, IntFunction<String>> adversarial() {
    Map<String, IntFunction<String>> m = new LinkedHashMap<>();
    m.put("private key headers", n -> repeat("-----BEGIN PRIVATE KEY-----\nQUJD", n));
    m.put("jwt segments", n -> repeat("eyJhbGciOiJIUzI1NiJ9.eyJ", n));
    m.put("credential names", n -> repeat("pwd=pwd_", n));
    m.put("token prefixes", n -> repeat("sk-ant-api03-sk-ghp_AKIAglpat-xoxb-1-", n));
    m.put("long base64 run", n -> repeat("AIzaSyAKIAQ7MZ3V8Q~TXK2PLR5WNeyJ", n));
    m.put("at signs", n -> repeat("a.b@c.d@", n));
    m.put("digit groups", n -> repeat("1-2 3-4.5 (6) +7 ", n));
    m.put("iban-like", n -> repeat("DE89 3704 0044 ", n));
    m.put("injection words", n -> repeat("ignore ignore all previous previous ", n));
    m.put("whitespace", n -> repeat(" \t\n ", n));
    return m;
  }

  private static String repeat(String unit, int n) {
    return unit.repeat(n / unit.length() + 1).substring(0, n);
  }

  @Test
  void everyDetectorReadsAdversarialTextInWorkLinearInItsLength() {
    for (Map.Entry<String, IntFunction<String>> e : adversarial().entrySet()) {
      for (Detector d : detectors()) {
        double small = readsPerChar(d, e.getValue().apply(32 * 1024));
        double large = readsPerChar(d, e.getValue().apply(512 * 1024));
        String what = d.family() + " on " + e.getKey();
        assertThat(large).as(what + ": reads per character").isLessThanOrEqualTo(128);
        assertThat(large).as(what + ": reads per character must not grow with the length")
            .isLessThanOrEqualTo(small * 1.1 + 1);
      }
    }
  }

  private static double readsPerChar(Detector d, String text) {
    CountingText counted = new CountingText(text);
    d.scan(counted, new ArrayList<>());
    return (double) counted.reads() / text.length();
  }

  @Test
  void regexesThatBacktrackCatastrophicallyAreRefusedAtConfiguration() {
    for (String bad : List.of("(a+)+$", "(\\w*\\s?)*x", "(x{2,})+y", "(?:a|b+)*c",
        "((ab)*c)+d", "(a)\\1", "(?<w>a)\\k<w>", "([a-z]+\\.)+corp")) {
      assertThatThrownBy(() -> BlockedPatterns.builder("pattern.x").regex(bad))
          .as(bad).isInstanceOf(IllegalArgumentException.class);
    }
    for (String good : List.of("\\bINC-\\d{6}\\b", "(?i)foo(bar)?", "(ab){2}x",
        "[a-z]+@corp\\.example", "(?:alpha|beta)-\\d+", "[(+*]x", "\\Q(a+)+\\E")) {
      assertThat(BlockedPatterns.builder("pattern.x").regex(good).build().regexCount())
          .as(good).isEqualTo(1);
    }
    assertThatThrownBy(() -> BlockedPatterns.builder("pattern.x").regex("x*"))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void aRegexThatStillBacktracksIsStoppedByItsStepBudgetWithATypedError() {
    // Adjacent overlapping quantifiers pass the static check (no nested quantifier) but cost
    // polynomial time per start position: about n^4 reads for find() over n digits.
    BlockedPatterns patterns = BlockedPatterns.builder("pattern.blocked")
        .regex("\\w*\\d*\\w*!").build();
    String hostile = "1".repeat(4_000) + "b";
    assertThatThrownBy(() -> patterns.scan(hostile, new ArrayList<>()))
        .isInstanceOfSatisfying(ScanBudgetExceededException.class,
            e -> assertThat(e.family()).isEqualTo("pattern"));
    InputGuardrailChain chain = InputGuardrailChain.builder()
        .rule(patterns, GuardrailAction.BLOCK).build();
    assertDenied(() -> chain.check(anyone(), user(hostile)), "pattern.budget");
    // The same regex on ordinary text stays inside its budget and still matches.
    List<Finding> found = new ArrayList<>();
    patterns.scan("xx 12ab! yy", found);
    assertThat(found).containsExactly(new Finding("pattern.blocked", 3, 8));
  }

  @Test
  void theStepBudgetCountsEveryRead() {
    BoundedText bounded = new BoundedText("abcdef", "pattern", 4);
    bounded.charAt(0);
    bounded.charAt(1);
    bounded.subSequence(2, 4);
    assertThat(bounded.steps()).isEqualTo(4);
    assertThatThrownBy(() -> bounded.charAt(5)).isInstanceOf(ScanBudgetExceededException.class);
  }
}
