package io.pointsman.guardrail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import io.pointsman.PointsmanException;
import io.pointsman.Stages;
import io.pointsman.Status;
import io.pointsman.model.ChatRequest;
import io.pointsman.model.Content;
import io.pointsman.model.ContentPart;
import io.pointsman.model.FunctionCall;
import io.pointsman.model.Message;
import io.pointsman.model.Role;
import io.pointsman.model.ToolCall;
import io.pointsman.spi.Identity;
import io.pointsman.spi.InputGuardrail;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * The input guardrail chain (stage 4, {@code guardrail.input}): message bounds first, then each
 * detector over every text a provider would see, each finding acted on as its rule's action for
 * the caller says (block, redact, flag, off; see {@link GuardrailPolicy}).
 *
 * <p>Texts checked: every message's content (plain or each text part), every tool call's
 * arguments, and the string values inside {@code metadata} and unrecognised JSON fields of the
 * request and its messages. A redaction returns a copy of the request with each finding replaced
 * by {@code [REDACTED:<rule>]}; the gateway passes only that copy onwards, so the cache key, the
 * provider, the journal and the ledger never see the original. A block throws a 400 naming the
 * rule; its message names the field, never the text.
 *
 * <p>Hostile input is bounded: message bounds refuse oversize and badly encoded text before any
 * detector runs; JSON values deeper than {@code maxJsonDepth} are refused as {@code
 * bounds.nesting}, more than {@code maxJsonChars} of JSON text as {@code bounds.json_chars}; a
 * detector that exceeds its step budget is refused as {@code <family>.budget}.
 *
 * <pre>{@code
 * Gateway gateway = Gateway.builder()
 *     // ...
 *     .inputGuardrail(InputGuardrailChain.ofDefaults())
 *     .build();
 * }</pre>
 *
 * <p>Immutable and thread-safe.
 */
public final class InputGuardrailChain implements InputGuardrail {
  private final MessageBoundsGuardrail bounds;
  private final RuleSet rules;
  private final int maxJsonDepth;
  private final long maxJsonChars;

  private InputGuardrailChain(Builder b) {
    this.bounds = b.bounds;
    this.rules = new RuleSet(b.entries, b.policy, b.listener, Stages.GUARDRAIL_INPUT,
        b.ruleActions);
    this.maxJsonDepth = b.maxJsonDepth;
    this.maxJsonChars = b.maxJsonChars;
  }

  private InputGuardrailChain(InputGuardrailChain base, RuleSet rules) {
    this.bounds = base.bounds;
    this.rules = rules;
    this.maxJsonDepth = base.maxJsonDepth;
    this.maxJsonChars = base.maxJsonChars;
  }

  /**
   * Returns this chain telling one more listener of every finding it acts on (after its own).
   * The gateway uses it for {@code Gateway.Builder.guardrailListener}.
   *
   * @param listener the additional listener
   * @return a chain with the same rules
   * @throws NullPointerException if listener is null
   */
  public InputGuardrailChain withListener(GuardrailListener listener) {
    return new InputGuardrailChain(this, rules.withListener(
        Objects.requireNonNull(listener, "listener")));
  }

  /**
   * Returns the default chain, which is also the gateway's default input guardrail: {@link
   * MessageBoundsGuardrail#ofDefaults()}, secrets redacted ({@link SecretDetector}), prompt
   * injection blocked when the phrase heuristic ({@link PromptInjectionDetector}) reports it and
   * the {@link PromptInjectionClassifier} at least flags the text ({@code injection.heuristic}),
   * or when the classifier is confident ({@code injection.classifier}); {@code
   * injection.suspected} and heuristic matches the classifier does not confirm ({@code
   * injection.heuristic.unconfirmed}) are flagged to the listener.
   *
   * @return the chain
   */
  public static InputGuardrailChain ofDefaults() {
    return defaultBuilder().build();
  }

  /**
   * Returns a builder holding the default chain, to add rules or a policy to.
   *
   * @return a builder
   */
  public static Builder defaultBuilder() {
    return new Builder()
        .rule(SecretDetector.ofDefaults(), GuardrailAction.REDACT)
        .rule(PromptInjectionDetector.ofDefaults()
            .confirmedBy(PromptInjectionClassifier.ofDefaults()), GuardrailAction.BLOCK)
        .rule(PromptInjectionClassifier.ofDefaults(), GuardrailAction.BLOCK)
        .ruleAction(PromptInjectionDetector.UNCONFIRMED, GuardrailAction.FLAG)
        .ruleAction(PromptInjectionClassifier.SUSPECTED, GuardrailAction.FLAG);
  }

  /**
   * Returns a builder with message bounds only.
   *
   * @return a builder
   */
  public static Builder builder() {
    return new Builder();
  }

  @Override
  public ChatRequest check(Identity identity, ChatRequest request) {
    Objects.requireNonNull(identity, "identity");
    bounds.check(identity, request);
    if (rules.isEmpty()) {
      return request;
    }
    RuleSet.Scratch scratch = RuleSet.Scratch.acquire();
    try {
      long[] jsonChars = {0};
      List<Message> messages = request.messages();
      List<Message> changed = null;
      for (int i = 0; i < messages.size(); i++) {
        Message m = messages.get(i);
        Message checked = checkMessage(identity, m, i, scratch, jsonChars);
        if (checked != m) {
          if (changed == null) {
            changed = new ArrayList<>(messages);
          }
          changed.set(i, checked);
        }
      }
      JsonNode metadata = json(identity, request.metadata(), "the request metadata", 0, scratch,
          jsonChars);
      Map<String, JsonNode> extra = extras(identity, request.extra(), "the request", scratch,
          jsonChars);
      if (changed == null && metadata == request.metadata() && extra == request.extra()) {
        return request;
      }
      return new ChatRequest(request.model(), changed == null ? messages : changed,
          request.tools(), request.toolChoice(), request.temperature(), request.topP(),
          request.maxTokens(), request.maxCompletionTokens(), request.stop(), request.seed(),
          request.responseFormat(), request.user(), metadata, request.stream(),
          request.streamOptions(), request.n(), extra);
    } finally {
      scratch.release();
    }
  }

  private Message checkMessage(Identity identity, Message m, int index, RuleSet.Scratch scratch,
      long[] jsonChars) {
    Role role = m.role();
    String where = "message " + index;
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
    Map<String, JsonNode> extra = extras(identity, m.extra(), where, scratch, jsonChars);
    if (newContent == content && newCalls == null && extra == m.extra()) {
      return m;
    }
    return new Message(role, newContent, m.name(), newCalls == null ? calls : newCalls,
        m.toolCallId(), extra);
  }

  private Map<String, JsonNode> extras(Identity identity, Map<String, JsonNode> extra,
      String where, RuleSet.Scratch scratch, long[] jsonChars) {
    if (extra.isEmpty()) {
      return extra;
    }
    Map<String, JsonNode> changed = null;
    for (Map.Entry<String, JsonNode> e : extra.entrySet()) {
      JsonNode checked = json(identity, e.getValue(), "a field of " + where, 0, scratch,
          jsonChars);
      if (checked != e.getValue()) {
        if (changed == null) {
          changed = new LinkedHashMap<>(extra);
        }
        changed.put(e.getKey(), checked);
      }
    }
    return changed == null ? extra : changed;
  }

  private JsonNode json(Identity identity, JsonNode node, String where, int depth,
      RuleSet.Scratch scratch, long[] jsonChars) {
    if (node == null || node.isValueNode() && !node.isTextual()) {
      return node;
    }
    if (depth > maxJsonDepth) {
      throw PointsmanException.denied(Status.BAD_REQUEST, Stages.GUARDRAIL_INPUT,
          "bounds.nesting", where + " nests deeper than " + maxJsonDepth + " levels");
    }
    if (node.isTextual()) {
      String text = node.textValue();
      jsonChars[0] += text.length();
      if (jsonChars[0] > maxJsonChars) {
        throw PointsmanException.denied(Status.BAD_REQUEST, Stages.GUARDRAIL_INPUT,
            "bounds.json_chars", "the request's JSON fields hold over " + maxJsonChars
                + " characters of text");
      }
      String checked = rules.apply(identity, Role.USER, text, where, scratch);
      return checked == text ? node : TextNode.valueOf(checked);
    }
    if (node instanceof ObjectNode object) {
      ObjectNode copy = null;
      for (Map.Entry<String, JsonNode> e : object.properties()) {
        JsonNode checked = json(identity, e.getValue(), where, depth + 1, scratch, jsonChars);
        if (checked != e.getValue()) {
          if (copy == null) {
            copy = object.deepCopy();
          }
          copy.set(e.getKey(), checked);
        }
      }
      return copy == null ? node : copy;
    }
    if (node instanceof ArrayNode array) {
      ArrayNode copy = null;
      for (int i = 0; i < array.size(); i++) {
        JsonNode checked = json(identity, array.get(i), where, depth + 1, scratch, jsonChars);
        if (checked != array.get(i)) {
          if (copy == null) {
            copy = array.deepCopy();
          }
          copy.set(i, checked);
        }
      }
      return copy == null ? node : copy;
    }
    return node;
  }

  /** Collects the chain's rules and options; not thread-safe. */
  public static final class Builder {
    private MessageBoundsGuardrail bounds = MessageBoundsGuardrail.ofDefaults();
    private final List<RuleSet.Entry> entries = new ArrayList<>();
    private final Map<String, GuardrailAction> ruleActions = new LinkedHashMap<>();
    private GuardrailPolicy policy = GuardrailPolicy.none();
    private GuardrailListener listener = GuardrailListener.NONE;
    private final Set<String> set = new HashSet<>();
    private int maxJsonDepth = 32;
    private long maxJsonChars = 1 << 20;

    private Builder() {}

    /**
     * Replaces the message bounds (default {@link MessageBoundsGuardrail#ofDefaults()}).
     *
     * @param value the bounds
     * @return this builder
     * @throws NullPointerException if value is null
     * @throws IllegalStateException if the bounds were already set
     */
    public Builder bounds(MessageBoundsGuardrail value) {
      Objects.requireNonNull(value, "bounds");
      once("bounds", bounds);
      this.bounds = value;
      return this;
    }

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
     * Sets the chain's action for one rule, in place of the action its detector was added
     * with (the policy still overrides it per caller). Calling it again for the same rule
     * replaces the action; the default chain uses it to flag {@code injection.suspected}.
     *
     * @param rule the rule's name, for example {@code injection.suspected}
     * @param action its action
     * @return this builder
     * @throws NullPointerException if an argument is null
     */
    public Builder ruleAction(String rule, GuardrailAction action) {
      ruleActions.put(Objects.requireNonNull(rule, "rule"),
          Objects.requireNonNull(action, "action"));
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
     * Sets how deep JSON fields may nest (default 32).
     *
     * @param value the most levels
     * @return this builder
     * @throws IllegalArgumentException if value is negative
     */
    public Builder maxJsonDepth(int value) {
      if (value < 0) {
        throw new IllegalArgumentException("maxJsonDepth must not be negative");
      }
      this.maxJsonDepth = value;
      return this;
    }

    /**
     * Sets the most characters of text all JSON fields of one request may hold (default 1 Mi).
     *
     * @param value the most characters
     * @return this builder
     * @throws IllegalArgumentException if value is not positive
     */
    public Builder maxJsonChars(long value) {
      if (value < 1) {
        throw new IllegalArgumentException("maxJsonChars must be positive");
      }
      this.maxJsonChars = value;
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
    public InputGuardrailChain build() {
      return new InputGuardrailChain(this);
    }
  }
}
