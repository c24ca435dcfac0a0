package io.pointsman.springai;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.springframework.ai.chat.prompt.ChatOptions;
import org.springframework.ai.model.tool.StructuredOutputChatOptions;
import org.springframework.ai.model.tool.ToolCallingChatOptions;
import org.springframework.ai.tool.ToolCallback;

/**
 * The options of a call through {@link PointsmanChatModel}: Spring AI's portable chat options,
 * its tool-calling options, a JSON schema for the answer, and the call's virtual key.
 *
 * <p>Every field is optional; an unset ({@code null}) field takes the model's default options'
 * value. {@link #getTopK() top-k} has no place in the OpenAI shape the gateway speaks and is not
 * supported (always {@code null}). Mutable, as Spring AI's options are; not thread-safe.
 */
// ChatOptions declares copy() generic; the covariant override is what callers want.
@SuppressWarnings("unchecked")
public class PointsmanChatOptions implements ToolCallingChatOptions, StructuredOutputChatOptions {

  private String model;
  private Double frequencyPenalty;
  private Integer maxTokens;
  private Double presencePenalty;
  private List<String> stopSequences;
  private Double temperature;
  private Double topP;
  private Long seed;
  private String user;
  private String outputSchema;
  private String outputSchemaName;
  private Boolean strictSchema;
  private List<ToolCallback> toolCallbacks = new ArrayList<>();
  private Set<String> toolNames = new LinkedHashSet<>();
  private Boolean internalToolExecutionEnabled;
  private Map<String, Object> toolContext = new HashMap<>();
  private String virtualKey;

  /** Creates options with every field unset. */
  public PointsmanChatOptions() {}

  /**
   * Returns a builder of options.
   *
   * @return a new builder
   */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Returns options holding the values of any Spring AI chat options: the portable fields, the
   * tool-calling fields when {@code options} carries them, the output schema when it is
   * structured-output options, and everything when it is Pointsman options.
   *
   * @param options the options to read, or {@code null}
   * @return new options (all unset when {@code options} is null)
   */
  public static PointsmanChatOptions from(ChatOptions options) {
    PointsmanChatOptions out = new PointsmanChatOptions();
    if (options == null) {
      return out;
    }
    out.model = options.getModel();
    out.frequencyPenalty = options.getFrequencyPenalty();
    out.maxTokens = options.getMaxTokens();
    out.presencePenalty = options.getPresencePenalty();
    out.stopSequences = options.getStopSequences() == null
        ? null : new ArrayList<>(options.getStopSequences());
    out.temperature = options.getTemperature();
    out.topP = options.getTopP();
    if (options instanceof ToolCallingChatOptions tools) {
      out.setToolCallbacks(tools.getToolCallbacks());
      out.setToolNames(tools.getToolNames());
      out.internalToolExecutionEnabled = tools.getInternalToolExecutionEnabled();
      out.setToolContext(tools.getToolContext());
    }
    if (options instanceof StructuredOutputChatOptions structured) {
      out.outputSchema = structured.getOutputSchema();
    }
    if (options instanceof PointsmanChatOptions p) {
      out.seed = p.seed;
      out.user = p.user;
      out.outputSchemaName = p.outputSchemaName;
      out.strictSchema = p.strictSchema;
      out.virtualKey = p.virtualKey;
    }
    return out;
  }

  /**
   * Returns these options with every unset field taken from {@code defaults}: a new object;
   * neither input changes. Tool callbacks and names are the runtime ones when set, else the
   * defaults; tool context maps are merged, the runtime entries winning.
   *
   * @param defaults the defaults, or {@code null}
   * @return the merged options
   */
  public PointsmanChatOptions withDefaults(PointsmanChatOptions defaults) {
    PointsmanChatOptions out = copy();
    if (defaults == null) {
      return out;
    }
    out.model = first(model, defaults.model);
    out.frequencyPenalty = first(frequencyPenalty, defaults.frequencyPenalty);
    out.maxTokens = first(maxTokens, defaults.maxTokens);
    out.presencePenalty = first(presencePenalty, defaults.presencePenalty);
    out.stopSequences = stopSequences != null ? new ArrayList<>(stopSequences)
        : defaults.stopSequences == null ? null : new ArrayList<>(defaults.stopSequences);
    out.temperature = first(temperature, defaults.temperature);
    out.topP = first(topP, defaults.topP);
    out.seed = first(seed, defaults.seed);
    out.user = first(user, defaults.user);
    out.outputSchema = first(outputSchema, defaults.outputSchema);
    out.outputSchemaName = first(outputSchemaName, defaults.outputSchemaName);
    out.strictSchema = first(strictSchema, defaults.strictSchema);
    out.toolCallbacks = new ArrayList<>(
        toolCallbacks.isEmpty() ? defaults.toolCallbacks : toolCallbacks);
    out.toolNames = new LinkedHashSet<>(toolNames.isEmpty() ? defaults.toolNames : toolNames);
    out.internalToolExecutionEnabled =
        first(internalToolExecutionEnabled, defaults.internalToolExecutionEnabled);
    Map<String, Object> context = new HashMap<>(defaults.toolContext);
    context.putAll(toolContext);
    out.toolContext = context;
    out.virtualKey = first(virtualKey, defaults.virtualKey);
    return out;
  }

  private static <T> T first(T a, T b) {
    return a != null ? a : b;
  }

  @Override
  public String getModel() {
    return model;
  }

  /**
   * Sets the model name or alias.
   *
   * @param model the model, or {@code null} for the default
   */
  public void setModel(String model) {
    this.model = model;
  }

  @Override
  public Double getFrequencyPenalty() {
    return frequencyPenalty;
  }

  /**
   * Sets the frequency penalty (sent as {@code frequency_penalty}).
   *
   * @param frequencyPenalty the penalty, or {@code null}
   */
  public void setFrequencyPenalty(Double frequencyPenalty) {
    this.frequencyPenalty = frequencyPenalty;
  }

  @Override
  public Integer getMaxTokens() {
    return maxTokens;
  }

  /**
   * Sets the output token cap (sent as {@code max_completion_tokens}).
   *
   * @param maxTokens the cap, or {@code null}
   */
  public void setMaxTokens(Integer maxTokens) {
    this.maxTokens = maxTokens;
  }

  @Override
  public Double getPresencePenalty() {
    return presencePenalty;
  }

  /**
   * Sets the presence penalty (sent as {@code presence_penalty}).
   *
   * @param presencePenalty the penalty, or {@code null}
   */
  public void setPresencePenalty(Double presencePenalty) {
    this.presencePenalty = presencePenalty;
  }

  @Override
  public List<String> getStopSequences() {
    return stopSequences;
  }

  /**
   * Sets the stop sequences.
   *
   * @param stopSequences the sequences, or {@code null}
   */
  public void setStopSequences(List<String> stopSequences) {
    this.stopSequences = stopSequences == null ? null : new ArrayList<>(stopSequences);
  }

  @Override
  public Double getTemperature() {
    return temperature;
  }

  /**
   * Sets the sampling temperature.
   *
   * @param temperature the temperature, or {@code null}
   */
  public void setTemperature(Double temperature) {
    this.temperature = temperature;
  }

  /**
   * Top-k sampling is not supported: the OpenAI request shape has no such field.
   *
   * @return always {@code null}
   */
  @Override
  public Integer getTopK() {
    return null;
  }

  @Override
  public Double getTopP() {
    return topP;
  }

  /**
   * Sets the nucleus sampling mass.
   *
   * @param topP the mass, or {@code null}
   */
  public void setTopP(Double topP) {
    this.topP = topP;
  }

  /**
   * Returns the sampling seed.
   *
   * @return the seed, or {@code null}
   */
  public Long getSeed() {
    return seed;
  }

  /**
   * Sets the sampling seed.
   *
   * @param seed the seed, or {@code null}
   */
  public void setSeed(Long seed) {
    this.seed = seed;
  }

  /**
   * Returns the end-user identifier sent as {@code user}.
   *
   * @return the identifier, or {@code null}
   */
  public String getUser() {
    return user;
  }

  /**
   * Sets the end-user identifier sent as {@code user}.
   *
   * @param user the identifier, or {@code null}
   */
  public void setUser(String user) {
    this.user = user;
  }

  /**
   * Returns the JSON schema the answer must follow; when set, the request carries a
   * {@code json_schema} response format.
   *
   * @return the schema as JSON text, or {@code null}
   */
  @Override
  public String getOutputSchema() {
    return outputSchema;
  }

  /**
   * Sets the JSON schema the answer must follow (Spring AI's {@code ChatClient} sets it when
   * native structured output is asked for).
   *
   * @param outputSchema the schema as JSON text, or {@code null}
   */
  @Override
  public void setOutputSchema(String outputSchema) {
    this.outputSchema = outputSchema;
  }

  /**
   * Returns the name given to the output schema in the response format.
   *
   * @return the name, or {@code null} for {@code "response"}
   */
  public String getOutputSchemaName() {
    return outputSchemaName;
  }

  /**
   * Sets the name given to the output schema in the response format.
   *
   * @param outputSchemaName the name, or {@code null} for {@code "response"}
   */
  public void setOutputSchemaName(String outputSchemaName) {
    this.outputSchemaName = outputSchemaName;
  }

  /**
   * Returns whether the output schema is strict.
   *
   * @return the flag, or {@code null} for strict
   */
  public Boolean getStrictSchema() {
    return strictSchema;
  }

  /**
   * Sets whether the output schema is strict.
   *
   * @param strictSchema the flag, or {@code null} for strict
   */
  public void setStrictSchema(Boolean strictSchema) {
    this.strictSchema = strictSchema;
  }

  @Override
  public List<ToolCallback> getToolCallbacks() {
    return toolCallbacks;
  }

  @Override
  public void setToolCallbacks(List<ToolCallback> toolCallbacks) {
    Objects.requireNonNull(toolCallbacks, "toolCallbacks");
    ToolCallingChatOptions.validateToolCallbacks(toolCallbacks);
    this.toolCallbacks = new ArrayList<>(toolCallbacks);
  }

  @Override
  public Set<String> getToolNames() {
    return toolNames;
  }

  @Override
  public void setToolNames(Set<String> toolNames) {
    Objects.requireNonNull(toolNames, "toolNames");
    this.toolNames = new LinkedHashSet<>(toolNames);
  }

  @Override
  public Boolean getInternalToolExecutionEnabled() {
    return internalToolExecutionEnabled;
  }

  @Override
  public void setInternalToolExecutionEnabled(Boolean internalToolExecutionEnabled) {
    this.internalToolExecutionEnabled = internalToolExecutionEnabled;
  }

  @Override
  public Map<String, Object> getToolContext() {
    return toolContext;
  }

  @Override
  public void setToolContext(Map<String, Object> toolContext) {
    Objects.requireNonNull(toolContext, "toolContext");
    this.toolContext = new HashMap<>(toolContext);
  }

  /**
   * Returns the virtual key this call is made with; it wins over the model's
   * {@link CallerKeys}.
   *
   * @return the key, or {@code null} to ask the model's {@link CallerKeys}
   */
  public String getVirtualKey() {
    return virtualKey;
  }

  /**
   * Sets the virtual key this call is made with.
   *
   * @param virtualKey the key, or {@code null} to ask the model's {@link CallerKeys}
   */
  public void setVirtualKey(String virtualKey) {
    this.virtualKey = virtualKey;
  }

  /**
   * Returns a copy of these options (the lists and maps copied, the tool callbacks shared).
   *
   * @return the copy
   */
  @Override
  public PointsmanChatOptions copy() {
    return from(this);
  }

  @Override
  public boolean equals(Object o) {
    if (this == o) {
      return true;
    }
    if (!(o instanceof PointsmanChatOptions other)) {
      return false;
    }
    return Objects.equals(model, other.model)
        && Objects.equals(frequencyPenalty, other.frequencyPenalty)
        && Objects.equals(maxTokens, other.maxTokens)
        && Objects.equals(presencePenalty, other.presencePenalty)
        && Objects.equals(stopSequences, other.stopSequences)
        && Objects.equals(temperature, other.temperature)
        && Objects.equals(topP, other.topP)
        && Objects.equals(seed, other.seed)
        && Objects.equals(user, other.user)
        && Objects.equals(outputSchema, other.outputSchema)
        && Objects.equals(outputSchemaName, other.outputSchemaName)
        && Objects.equals(strictSchema, other.strictSchema)
        && Objects.equals(toolCallbacks, other.toolCallbacks)
        && Objects.equals(toolNames, other.toolNames)
        && Objects.equals(internalToolExecutionEnabled, other.internalToolExecutionEnabled)
        && Objects.equals(toolContext, other.toolContext)
        && Objects.equals(virtualKey, other.virtualKey);
  }

  @Override
  public int hashCode() {
    return Objects.hash(model, frequencyPenalty, maxTokens, presencePenalty, stopSequences,
        temperature, topP, seed, user, outputSchema, outputSchemaName, strictSchema,
        toolCallbacks, toolNames, internalToolExecutionEnabled, toolContext, virtualKey);
  }

  @Override
  public String toString() {
    // The virtual key is a credential: never printed.
    return "PointsmanChatOptions{model=" + model + ", temperature=" + temperature
        + ", maxTokens=" + maxTokens + ", topP=" + topP + ", stop=" + stopSequences
        + ", tools=" + toolCallbacks.size() + ", toolNames=" + toolNames
        + ", outputSchema=" + (outputSchema != null) + ", virtualKey="
        + (virtualKey == null ? "unset" : "set") + "}";
  }

  /** Builds {@link PointsmanChatOptions}. */
  public static final class Builder {
    private final PointsmanChatOptions options = new PointsmanChatOptions();

    private Builder() {}

    /**
     * Sets the model name or alias.
     *
     * @param value the model
     * @return this builder
     */
    public Builder model(String value) {
      options.setModel(value);
      return this;
    }

    /**
     * Sets the sampling temperature.
     *
     * @param value the temperature
     * @return this builder
     */
    public Builder temperature(Double value) {
      options.setTemperature(value);
      return this;
    }

    /**
     * Sets the output token cap.
     *
     * @param value the cap
     * @return this builder
     */
    public Builder maxTokens(Integer value) {
      options.setMaxTokens(value);
      return this;
    }

    /**
     * Sets the nucleus sampling mass.
     *
     * @param value the mass
     * @return this builder
     */
    public Builder topP(Double value) {
      options.setTopP(value);
      return this;
    }

    /**
     * Sets the frequency penalty.
     *
     * @param value the penalty
     * @return this builder
     */
    public Builder frequencyPenalty(Double value) {
      options.setFrequencyPenalty(value);
      return this;
    }

    /**
     * Sets the presence penalty.
     *
     * @param value the penalty
     * @return this builder
     */
    public Builder presencePenalty(Double value) {
      options.setPresencePenalty(value);
      return this;
    }

    /**
     * Sets the stop sequences.
     *
     * @param value the sequences
     * @return this builder
     */
    public Builder stopSequences(List<String> value) {
      options.setStopSequences(value);
      return this;
    }

    /**
     * Sets the sampling seed.
     *
     * @param value the seed
     * @return this builder
     */
    public Builder seed(Long value) {
      options.setSeed(value);
      return this;
    }

    /**
     * Sets the end-user identifier.
     *
     * @param value the identifier
     * @return this builder
     */
    public Builder user(String value) {
      options.setUser(value);
      return this;
    }

    /**
     * Sets the JSON schema the answer must follow.
     *
     * @param value the schema as JSON text
     * @return this builder
     */
    public Builder outputSchema(String value) {
      options.setOutputSchema(value);
      return this;
    }

    /**
     * Sets the name given to the output schema.
     *
     * @param value the name
     * @return this builder
     */
    public Builder outputSchemaName(String value) {
      options.setOutputSchemaName(value);
      return this;
    }

    /**
     * Sets whether the output schema is strict.
     *
     * @param value the flag
     * @return this builder
     */
    public Builder strictSchema(Boolean value) {
      options.setStrictSchema(value);
      return this;
    }

    /**
     * Sets the tools the model may call.
     *
     * @param value the tool callbacks
     * @return this builder
     */
    public Builder toolCallbacks(List<ToolCallback> value) {
      options.setToolCallbacks(value);
      return this;
    }

    /**
     * Sets the tools the model may call.
     *
     * @param value the tool callbacks
     * @return this builder
     */
    public Builder toolCallbacks(ToolCallback... value) {
      options.setToolCallbacks(List.of(value));
      return this;
    }

    /**
     * Sets the names of tools to resolve through the tool calling manager.
     *
     * @param value the names
     * @return this builder
     */
    public Builder toolNames(Set<String> value) {
      options.setToolNames(value);
      return this;
    }

    /**
     * Sets whether the model runs the tool calls itself (Spring AI's internal tool execution)
     * or hands them back to the caller.
     *
     * @param value the flag
     * @return this builder
     */
    public Builder internalToolExecutionEnabled(Boolean value) {
      options.setInternalToolExecutionEnabled(value);
      return this;
    }

    /**
     * Sets the context handed to the tools.
     *
     * @param value the context
     * @return this builder
     */
    public Builder toolContext(Map<String, Object> value) {
      options.setToolContext(value);
      return this;
    }

    /**
     * Sets the virtual key of the call.
     *
     * @param value the key
     * @return this builder
     */
    public Builder virtualKey(String value) {
      options.setVirtualKey(value);
      return this;
    }

    /**
     * Returns the options.
     *
     * @return the options (a copy: the builder can go on)
     */
    public PointsmanChatOptions build() {
      return options.copy();
    }
  }
}
