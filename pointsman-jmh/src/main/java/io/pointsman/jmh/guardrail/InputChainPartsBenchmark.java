package io.pointsman.jmh.guardrail;

import io.pointsman.guardrail.GuardrailAction;
import io.pointsman.guardrail.InputGuardrailChain;
import io.pointsman.guardrail.PromptInjectionClassifier;
import io.pointsman.guardrail.PromptInjectionDetector;
import io.pointsman.guardrail.SecretDetector;
import io.pointsman.model.ChatRequest;
import io.pointsman.model.Message;
import io.pointsman.spi.Grant;
import io.pointsman.spi.Identity;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * Where the default input chain's time goes: each of its three detectors alone in a chain of
 * its own (message bounds included, as in every chain), on the clean payload of
 * {@link InputChainBenchmark}. Together with {@code InputChainBenchmark.boundsOnly} the arms
 * attribute {@code InputChainBenchmark.defaultChain}; the sum over-counts the shared pass
 * over the text, which the full chain makes once for all its built-in detectors. Two arms put
 * the phrase detector before the classifier, with the default phrases (7,243 of them, a 7.4 MB
 * automaton) and with two phrases only, so that what the phrase table's size costs the chain
 * shows beside the phrase scan alone with two phrases.
 *
 * <pre>
 * java -jar pointsman-jmh/target/benchmarks.jar InputChainPartsBenchmark -p bytes=4096
 * </pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class InputChainPartsBenchmark {
  @Param({"150", "4096", "32768"})
  public int bytes;

  private final Identity identity = new Identity("key-1", "user", "team", "org", Set.of(),
      Grant.all(), Grant.all(), Grant.all());
  private final InputGuardrailChain secrets = InputGuardrailChain.builder()
      .rule(SecretDetector.ofDefaults(), GuardrailAction.REDACT).build();
  private final InputGuardrailChain phrases = InputGuardrailChain.builder()
      .rule(PromptInjectionDetector.ofDefaults(), GuardrailAction.BLOCK).build();
  private final InputGuardrailChain literals = InputGuardrailChain.builder()
      .rule(SecretDetector.ofDefaults(), GuardrailAction.REDACT)
      .rule(PromptInjectionDetector.ofDefaults(), GuardrailAction.BLOCK).build();
  private final InputGuardrailChain classifier = InputGuardrailChain.builder()
      .rule(PromptInjectionClassifier.ofDefaults(), GuardrailAction.BLOCK).build();
  private final InputGuardrailChain phrasesAndClassifier = InputGuardrailChain.builder()
      .rule(PromptInjectionDetector.ofDefaults(), GuardrailAction.BLOCK)
      .rule(PromptInjectionClassifier.ofDefaults(), GuardrailAction.BLOCK).build();
  private final PromptInjectionDetector twoPhrases = PromptInjectionDetector.builder()
      .signal("override", 1.0, "ignore previous instructions", "you are now").build();
  private final InputGuardrailChain fewPhrases = InputGuardrailChain.builder()
      .rule(twoPhrases, GuardrailAction.BLOCK).build();
  private final InputGuardrailChain fewPhrasesAndClassifier = InputGuardrailChain.builder()
      .rule(twoPhrases, GuardrailAction.BLOCK)
      .rule(PromptInjectionClassifier.ofDefaults(), GuardrailAction.BLOCK).build();
  private ChatRequest request;

  /** Builds the request once per trial. */
  @Setup
  public void setUp() {
    request = ChatRequest.builder().model("gpt-4o-mini")
        .addMessage(Message.system("You are a helpful assistant."))
        .addMessage(Message.user(Payloads.text(bytes, 7))).build();
  }

  /**
   * Runs the secret detector alone.
   *
   * @return the checked request
   */
  @Benchmark
  public ChatRequest secretsOnly() {
    return secrets.check(identity, request);
  }

  /**
   * Runs the prompt-injection phrase detector alone.
   *
   * @return the checked request
   */
  @Benchmark
  public ChatRequest phrasesOnly() {
    return phrases.check(identity, request);
  }

  /**
   * Runs the secret detector and the phrase detector, whose literal matchers read the text in
   * one pass, as in the default chain.
   *
   * @return the checked request
   */
  @Benchmark
  public ChatRequest secretsAndPhrases() {
    return literals.check(identity, request);
  }

  /**
   * Runs a phrase detector of two phrases alone.
   *
   * @return the checked request
   */
  @Benchmark
  public ChatRequest twoPhrasesOnly() {
    return fewPhrases.check(identity, request);
  }

  /**
   * Runs the default phrase detector, then the classifier.
   *
   * @return the checked request
   */
  @Benchmark
  public ChatRequest phrasesThenClassifier() {
    return phrasesAndClassifier.check(identity, request);
  }

  /**
   * Runs a phrase detector of two phrases, then the classifier.
   *
   * @return the checked request
   */
  @Benchmark
  public ChatRequest twoPhrasesThenClassifier() {
    return fewPhrasesAndClassifier.check(identity, request);
  }

  /**
   * Runs the prompt-injection classifier alone.
   *
   * @return the checked request
   */
  @Benchmark
  public ChatRequest classifierOnly() {
    return classifier.check(identity, request);
  }
}
