package io.pointsman.jmh.guardrail;

import io.pointsman.guardrail.GuardrailAction;
import io.pointsman.guardrail.InputGuardrailChain;
import io.pointsman.guardrail.MessageBoundsGuardrail;
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
 * The default input guardrail chain ({@code InputGuardrailChain.ofDefaults()}: message bounds,
 * secret detection with redaction, prompt-injection heuristic and classifier), on one user
 * message of 150 B,
 * 4 KiB and 32 KiB of ASCII prose, code and logs, beside the baseline of message bounds alone
 * (the gateway's default before this chain). The {@code secret} payload carries one fake GitHub
 * token near its end, so the chain also builds the redacted copy. Goals: 30 µs at 4 KiB and
 * 200 µs at 32 KiB for the clean payload.
 *
 * <pre>
 * mvn -B -q -pl pointsman-jmh -am package -DskipTests
 * java -jar pointsman-jmh/target/benchmarks.jar InputChainBenchmark -wi 2 -i 3 -r 1s -f 1 \
 *     -rf json -rff pointsman-jmh/results/guardrail/input-chain.json
 * </pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class InputChainBenchmark {
  @Param({"150", "4096", "32768"})
  public int bytes;

  @Param({"clean", "secret"})
  public String payload;

  private final Identity identity = new Identity("key-1", "user", "team", "org", Set.of(),
      Grant.all(), Grant.all(), Grant.all());
  private final InputGuardrailChain chain = InputGuardrailChain.ofDefaults();
  private final MessageBoundsGuardrail bounds = MessageBoundsGuardrail.ofDefaults();
  private ChatRequest request;

  /** Builds the request once per trial. */
  @Setup
  public void setUp() {
    String text = Payloads.text(bytes, 7);
    if (payload.equals("secret")) {
      // A fake token with a valid checksum (CRC32 of the 30 characters, base62).
      String token = "ghp_Zq8TnV3wKp0LmXr7sYd2HcJb5GfA1e" + "2BhFqL";
      text = text.substring(0, Math.max(0, bytes - token.length() - 1)) + " " + token;
    }
    request = ChatRequest.builder().model("gpt-4o-mini")
        .addMessage(Message.system("You are a helpful assistant."))
        .addMessage(Message.user(text)).build();
  }

  /**
   * Runs the default chain.
   *
   * @return the checked request
   */
  @Benchmark
  public ChatRequest defaultChain() {
    return chain.check(identity, request);
  }


  /**
   * Runs message bounds alone.
   *
   * @return the checked request
   */
  @Benchmark
  public ChatRequest boundsOnly() {
    return bounds.check(identity, request);
  }
}
