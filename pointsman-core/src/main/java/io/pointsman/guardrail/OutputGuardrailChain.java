package io.pointsman.guardrail;

import io.pointsman.Stages;
import io.pointsman.model.ChatRequest;
import io.pointsman.model.ChatResponse;
import io.pointsman.model.Choice;
import io.pointsman.model.Content;
import io.pointsman.model.ContentPart;
import io.pointsman.model.FunctionCall;
import io.pointsman.model.Message;
import io.pointsman.model.Role;
import io.pointsman.model.ToolCall;
import io.pointsman.spi.Identity;
import io.pointsman.spi.OutputGuardrail;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * The output guardrail chain (stage 8, {@code guardrail.output}): each detector over every
 * choice's text and tool call arguments of a complete response. A block throws a 400 naming the
 * rule (the gateway still accounts the provider's work as {@code BLOCKED_OUTPUT}); a redaction
 * returns a copy of the response.
 *
 * <p>For streams the gateway runs this chain on the assembled response once the stream ended,
 * when the chunks have already reached the caller: a block then fails the stream's final event,
 * and a redaction only changes what is cached (streams are not cached) — it cannot take back
 * text the caller already has. To check text before it reaches the caller, a host runs a
 * {@link StreamWindowScanner} from {@link #streamScanner(Identity)} over the chunks.
 *
 * <p>The default chain redacts secrets ({@link SecretDetector}). Immutable and thread-safe.
 */
public final class OutputGuardrailChain implements OutputGuardrail {
  private final RuleSet rules;
  private final int window;

  private OutputGuardrailChain(Builder b) {
    this.rules = new RuleSet(b.entries, b.policy, b.listener, Stages.GUARDRAIL_OUTPUT);
    this.window = b.window;
  }

  private OutputGuardrailChain(RuleSet rules, int window) {
    this.rules = rules;
    this.window = window;
  }

  /**
   * Returns this chain telling one more listener of every finding it and its stream scanners
   * act on (after its own). The gateway uses it for {@code Gateway.Builder.guardrailListener}.
   *
   * @param listener the additional listener
   * @return a chain with the same rules
   * @throws NullPointerException if listener is null
   */
  public OutputGuardrailChain withListener(GuardrailListener listener) {
    return new OutputGuardrailChain(rules.withListener(
        Objects.requireNonNull(listener, "listener")), window);
  }

  /**
   * Returns the default chain: secrets redacted.
   *
   * @return the chain
   */
  public static OutputGuardrailChain ofDefaults() {
    return builder().rule(SecretDetector.ofDefaults(), GuardrailAction.REDACT).build();
  }

  /**
   * Returns an empty builder.
   *
   * @return a builder
   */
  public static Builder builder() {
    return new Builder();
  }

  @Override
  public ChatResponse check(Identity identity, ChatRequest request, ChatResponse response) {
    Objects.requireNonNull(identity, "identity");
    if (rules.isEmpty()) {
      return response;
    }
    RuleSet.Scratch scratch = new RuleSet.Scratch();
    List<Choice> choices = response.choices();
    List<Choice> changed = null;
    for (int i = 0; i < choices.size(); i++) {
      Choice choice = choices.get(i);
      Message m = choice.message();
      if (m == null) {
        continue;
      }
      Message checked = checkMessage(identity, m, "choice " + i, scratch);
      if (checked != m) {
        if (changed == null) {
          changed = new ArrayList<>(choices);
        }
        changed.set(i, new Choice(choice.index(), checked, choice.finishReason(),
            choice.logprobs(), choice.extra()));
      }
    }
    return changed == null ? response : response.withChoices(changed);
  }

  /**
   * Returns a scanner for one stream's text, applying this chain's rules over a sliding window
   * of {@code window} characters (see {@link StreamWindowScanner}).
   *
   * @param identity the caller
   * @return a new scanner, for one stream
   * @throws NullPointerException if identity is null
   */
  public StreamWindowScanner streamScanner(Identity identity) {
    return new StreamWindowScanner(rules, Objects.requireNonNull(identity, "identity"), window);
  }

  private Message checkMessage(Identity identity, Message m, String where,
      RuleSet.Scratch scratch) {
    Role role = m.role() == null ? Role.ASSISTANT : m.role();
    Content content = m.content();
    Content newContent = content;
    if (content instanceof Content.Text text) {
      String checked = rules.apply(identity, role, text.text(), where, scratch);
      if (checked != text.text()) {
        newContent = Content.text(checked);
      }
    } else if (content instanceof Content.Parts parts) {
      List<ContentPart> newParts = null;
      for (int p = 0; p < parts.parts().size(); p++) {
        ContentPart part = parts.parts().get(p);
        String checked = rules.apply(identity, role, part.text(), where + " part " + p, scratch);
        if (checked != part.text()) {
          if (newParts == null) {
            newParts = new ArrayList<>(parts.parts());
          }
          newParts.set(p, new ContentPart(part.type(), checked, part.imageUrl(), part.extra()));
        }
      }
      if (newParts != null) {
        newContent = Content.parts(newParts);
      }
    }
    List<ToolCall> calls = m.toolCalls();
    List<ToolCall> newCalls = null;
    if (calls != null) {
      for (int c = 0; c < calls.size(); c++) {
        ToolCall call = calls.get(c);
        FunctionCall f = call.function();
        if (f == null) {
          continue;
        }
        String checked = rules.apply(identity, role, f.arguments(),
            where + " tool call " + c + " arguments", scratch);
        if (checked != f.arguments()) {
          if (newCalls == null) {
            newCalls = new ArrayList<>(calls);
          }
          newCalls.set(c, new ToolCall(call.id(), call.type(),
              new FunctionCall(f.name(), checked, f.extra()), call.extra()));
        }
      }
    }
    if (newContent == content && newCalls == null) {
      return m;
    }
    return new Message(m.role(), newContent, m.name(), newCalls == null ? calls : newCalls,
        m.toolCallId(), m.extra());
  }

  /** Collects the chain's rules and options; not thread-safe. */
  public static final class Builder {
    private final List<RuleSet.Entry> entries = new ArrayList<>();
    private GuardrailPolicy policy = GuardrailPolicy.none();
    private GuardrailListener listener = GuardrailListener.NONE;
    private final Set<String> set = new HashSet<>();
    private int window = 512;

    private Builder() {}

    /**
     * Appends a detector with its default action; detectors run in the order added.
     *
     * @param detector the detector
     * @param action what its findings do unless the policy says otherwise
     * @return this builder
     * @throws NullPointerException if an argument is null
     */
    public Builder rule(Detector detector, GuardrailAction action) {
      entries.add(new RuleSet.Entry(Objects.requireNonNull(detector, "detector"),
          Objects.requireNonNull(action, "action")));
      return this;
    }

    /**
     * Sets the per key, team and org overrides.
     *
     * @param value the policy
     * @return this builder
     * @throws NullPointerException if value is null
     * @throws IllegalStateException if the policy was already set
     */
    public Builder policy(GuardrailPolicy value) {
      Objects.requireNonNull(value, "policy");
      once("policy", policy);
      this.policy = value;
      return this;
    }

    /**
     * Sets the listener told of every finding acted on.
     *
     * @param value the listener
     * @return this builder
     * @throws NullPointerException if value is null
     * @throws IllegalStateException if the listener was already set
     */
    public Builder listener(GuardrailListener value) {
      Objects.requireNonNull(value, "listener");
      once("listener", listener);
      this.listener = value;
      return this;
    }

    /**
     * Sets the stream scanner's window: how many characters it holds back (default 512). A
     * finding no longer than the window is never released in part.
     *
     * @param value the window in characters
     * @return this builder
     * @throws IllegalArgumentException if value is below 16
     */
    public Builder streamWindow(int value) {
      if (value < 16) {
        throw new IllegalArgumentException("the stream window must be at least 16 characters");
      }
      this.window = value;
      return this;
    }

    private void once(String name, Object current) {
      if (!set.add(name)) {
        throw new IllegalStateException(name + " was already set to " + current);
      }
    }

    /**
     * Builds the chain.
     *
     * @return the chain
     */
    public OutputGuardrailChain build() {
      return new OutputGuardrailChain(this);
    }
  }
}
