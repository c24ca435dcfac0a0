package io.pointsman.testing;

import io.pointsman.catalog.TokenBounds;
import io.pointsman.model.ChatChunk;
import io.pointsman.model.ChatRequest;
import io.pointsman.model.ChatResponse;
import io.pointsman.model.Choice;
import io.pointsman.model.ChunkChoice;
import io.pointsman.model.ChunkDelta;
import io.pointsman.model.Embedding;
import io.pointsman.model.EmbeddingInput;
import io.pointsman.model.EmbeddingRequest;
import io.pointsman.model.EmbeddingResponse;
import io.pointsman.model.EmbeddingUsage;
import io.pointsman.model.EmbeddingVector;
import io.pointsman.model.Message;
import io.pointsman.model.Role;
import io.pointsman.model.Usage;
import io.pointsman.spi.ChunkSink;
import io.pointsman.spi.EmbeddingCall;
import io.pointsman.spi.EmbeddingReply;
import io.pointsman.spi.Provider;
import io.pointsman.spi.ProviderCall;
import io.pointsman.spi.ProviderException;
import io.pointsman.spi.ProviderReply;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * A deterministic, in-process provider for tests, examples and benchmarks. Its reply text is a
 * function of the request; its usage is derived from byte lengths (prompt tokens = a quarter
 * of the prompt's byte bound, rounded up; completion tokens = a quarter of the reply's bytes,
 * rounded up, capped by the request's output cap). Latency, failures, usage reporting and
 * streaming are configurable; failures can be scripted per attempt. Thread-safe.
 *
 * <pre>{@code
 * FixtureProvider fixture = FixtureProvider.builder().latency(Duration.ofMillis(5)).build();
 * fixture.failNext(ProviderException.answered(503, "overloaded", null));
 * }</pre>
 */
public final class FixtureProvider implements Provider {
  private final Duration latency;
  private final Duration chunkInterval;
  private final int streamChunks;
  private final boolean reportUsage;
  private final boolean recordCalls;
  private final Function<ChatRequest, String> reply;
  private final Consumer<ProviderCall> onSend;
  private final ConcurrentLinkedQueue<RuntimeException> scriptedFailures =
      new ConcurrentLinkedQueue<>();
  private final ConcurrentLinkedQueue<ProviderCall> calls = new ConcurrentLinkedQueue<>();
  private final ConcurrentLinkedQueue<EmbeddingCall> embedCalls = new ConcurrentLinkedQueue<>();
  private final int embeddingDimensions;
  private final AtomicLong sends = new AtomicLong();

  private FixtureProvider(Builder b) {
    this.latency = b.latency;
    this.chunkInterval = b.chunkInterval;
    this.streamChunks = b.streamChunks;
    this.reportUsage = b.reportUsage;
    this.recordCalls = b.recordCalls;
    this.reply = b.reply;
    this.onSend = b.onSend;
    this.embeddingDimensions = b.embeddingDimensions;
  }

  /**
   * Returns a builder: no latency, usage reported, four stream chunks, calls not recorded.
   *
   * @return the builder
   */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Makes the next attempt fail with the given exception (queued: several calls queue several
   * failures, consumed one per attempt).
   *
   * @param failure the exception the next attempt throws
   * @return this provider
   */
  public FixtureProvider failNext(RuntimeException failure) {
    scriptedFailures.add(Objects.requireNonNull(failure, "failure"));
    return this;
  }

  /**
   * Returns how many attempts reached this provider.
   *
   * @return the count
   */
  public long sends() {
    return sends.get();
  }

  /**
   * Returns the attempts received, when the builder enabled recording.
   *
   * @return a snapshot copy, in arrival order
   */
  public List<ProviderCall> calls() {
    return new ArrayList<>(calls);
  }

  /**
   * Returns the embeddings attempts received, when the builder enabled recording.
   *
   * @return a snapshot copy, in arrival order
   */
  public List<EmbeddingCall> embedCalls() {
    return new ArrayList<>(embedCalls);
  }

  /**
   * Returns the input tokens this fixture reports for an embeddings request: a quarter of each
   * text's UTF-8 bytes, rounded up, and each token array's length.
   *
   * @param request the request
   * @return the input tokens
   */
  public static long embeddingTokensFor(EmbeddingRequest request) {
    long total = 0;
    for (EmbeddingInput in : request.inputs()) {
      total += in.tokenized() ? in.tokens().size() : (TokenBounds.utf8Length(in.text()) + 3) / 4;
    }
    return total;
  }

  /**
   * Returns the vector this fixture answers for one input: a deterministic function of the
   * input and the dimensions, of unit length.
   *
   * @param input the input
   * @param dimensions the number of dimensions
   * @return the vector
   */
  public static float[] vectorFor(EmbeddingInput input, int dimensions) {
    long seed = input.tokenized() ? input.tokens().hashCode() : input.text().hashCode();
    java.util.SplittableRandom random = new java.util.SplittableRandom(seed);
    float[] v = new float[dimensions];
    double norm = 0;
    for (int i = 0; i < dimensions; i++) {
      v[i] = (float) (random.nextDouble() * 2 - 1);
      norm += v[i] * v[i];
    }
    float scale = (float) (1 / Math.sqrt(norm));
    for (int i = 0; i < dimensions; i++) {
      v[i] *= scale;
    }
    return v;
  }

  /**
   * Answers an embeddings attempt: one {@link #vectorFor} vector per input, of the request's
   * dimensions (else the builder's), as floats or base64 as asked, with usage from
   * {@link #embeddingTokensFor} when usage is reported. Scripted failures, latency and the
   * deadline apply as for chat.
   *
   * @param call the attempt
   * @return the reply
   */
  @Override
  public EmbeddingReply embed(EmbeddingCall call) {
    sends.incrementAndGet();
    if (recordCalls) {
      embedCalls.add(call);
    }
    pause(latency, call.deadline());
    RuntimeException failure = scriptedFailures.poll();
    if (failure != null) {
      throw failure;
    }
    EmbeddingRequest request = call.request();
    int dims = request.dimensions() != null ? request.dimensions() : embeddingDimensions;
    boolean base64 = EmbeddingRequest.BASE64.equals(request.encodingFormat());
    List<EmbeddingInput> inputs = request.inputs();
    List<Embedding> data = new ArrayList<>(inputs.size());
    for (int i = 0; i < inputs.size(); i++) {
      EmbeddingVector v = EmbeddingVector.ofFloats(vectorFor(inputs.get(i), dims));
      data.add(Embedding.of(i, base64 ? v.toBase64() : v));
    }
    EmbeddingUsage usage = reportUsage ? EmbeddingUsage.of(embeddingTokensFor(request)) : null;
    return EmbeddingReply.of(EmbeddingResponse.of(request.model(), data, usage));
  }

  /**
   * Returns the usage this fixture reports for a request and its reply text.
   *
   * @param request the request
   * @param text the reply text
   * @return the usage
   */
  public static Usage usageFor(ChatRequest request, String text) {
    long prompt = (TokenBounds.upperBound(request) + 3) / 4;
    long completion = (TokenBounds.utf8Length(text) + 3) / 4;
    Integer cap = request.outputTokenCap();
    if (cap != null) {
      completion = Math.min(completion, cap);
    }
    return Usage.of(prompt, completion);
  }

  @Override
  public ProviderReply send(ProviderCall call) {
    begin(call);
    String text = reply.apply(call.request());
    Usage usage = usageFor(call.request(), text);
    ChatResponse response = response(call, text, reportUsage ? usage : null);
    return new ProviderReply(response, reportUsage ? usage : null, false);
  }

  @Override
  public ProviderReply stream(ProviderCall call, ChunkSink sink) {
    begin(call);
    String text = reply.apply(call.request());
    String id = "fixture-" + call.eventId();
    long created = Instant.EPOCH.getEpochSecond();
    String model = call.request().model();
    int n = Math.max(1, streamChunks);
    int step = Math.max(1, (text.length() + n - 1) / n);
    StringBuilder sent = new StringBuilder();
    boolean cancelled = false;
    int pos = 0;
    do {
      if (pos > 0) {
        pause(chunkInterval, call.deadline());
      }
      int end = Math.min(text.length(), pos + step);
      if (end < text.length() && Character.isHighSurrogate(text.charAt(end - 1))) {
        end++;
      }
      String piece = text.substring(pos, end);
      boolean last = end >= text.length();
      ChatChunk chunk = new ChatChunk(id, "chat.completion.chunk", created, model,
          List.of(new ChunkChoice(0, new ChunkDelta(pos == 0 ? Role.ASSISTANT : null, piece,
              null, null), last ? "stop" : null, null)), null, null);
      sent.append(piece);
      pos = end;
      if (!sink.accept(chunk)) {
        cancelled = true;
        break;
      }
    } while (pos < text.length());
    boolean includeUsage = call.request().streamOptions() != null
        && Boolean.TRUE.equals(call.request().streamOptions().includeUsage());
    Usage usage = null;
    if (!cancelled && reportUsage && includeUsage) {
      usage = usageFor(call.request(), text);
      sink.accept(new ChatChunk(id, "chat.completion.chunk", created, model, List.of(), usage,
          null));
    }
    ChatResponse response = response(call, sent.toString(), usage);
    return new ProviderReply(response, usage, false);
  }

  private void begin(ProviderCall call) {
    sends.incrementAndGet();
    if (recordCalls) {
      calls.add(call);
    }
    onSend.accept(call);
    pause(latency, call.deadline());
    RuntimeException failure = scriptedFailures.poll();
    if (failure != null) {
      throw failure;
    }
  }

  private static void pause(Duration amount, Instant deadline) {
    if (amount.isZero()) {
      return;
    }
    long sleepNanos = amount.toNanos();
    boolean pastDeadline = false;
    if (deadline != null) {
      long remaining = Duration.between(Instant.now(), deadline).toNanos();
      if (remaining < sleepNanos) {
        sleepNanos = Math.max(0, remaining);
        pastDeadline = true;
      }
    }
    try {
      Thread.sleep(sleepNanos / 1_000_000, (int) (sleepNanos % 1_000_000));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw ProviderException.unknownOutcome("fixture interrupted while answering", e);
    }
    if (pastDeadline) {
      throw ProviderException.unknownOutcome("fixture did not answer before the deadline", null);
    }
  }

  private static ChatResponse response(ProviderCall call, String text, Usage usage) {
    return new ChatResponse("fixture-" + call.eventId(), "chat.completion",
        Instant.EPOCH.getEpochSecond(), call.request().model(),
        List.of(new Choice(0, Message.assistant(text), "stop", null, null)), usage, null, null);
  }

  /**
   * The default reply: a short text that depends on the last message, so that different
   * prompts get different answers.
   *
   * @param request the request
   * @return the reply text
   */
  public static String defaultReply(ChatRequest request) {
    List<Message> messages = request.messages();
    String last = messages.isEmpty() ? "" : messages.get(messages.size() - 1).text();
    return "Fixture reply " + Integer.toHexString(last.hashCode()) + " to " + messages.size()
        + " message(s).";
  }

  /** A builder of {@link FixtureProvider}; not thread-safe. */
  public static final class Builder {
    private Duration latency = Duration.ZERO;
    private Duration chunkInterval = Duration.ZERO;
    private int streamChunks = 4;
    private boolean reportUsage = true;
    private boolean recordCalls;
    private Function<ChatRequest, String> reply = FixtureProvider::defaultReply;
    private Consumer<ProviderCall> onSend = call -> {};
    private int embeddingDimensions = 8;

    private Builder() {}

    /**
     * Sets the time before the first byte of every attempt.
     *
     * @param value a non-negative duration
     * @return this builder
     */
    public Builder latency(Duration value) {
      this.latency = nonNegative(value, "latency");
      return this;
    }

    /**
     * Sets the time between stream chunks.
     *
     * @param value a non-negative duration
     * @return this builder
     */
    public Builder chunkInterval(Duration value) {
      this.chunkInterval = nonNegative(value, "chunkInterval");
      return this;
    }

    /**
     * Sets how many chunks a stream is cut into.
     *
     * @param value at least 1
     * @return this builder
     */
    public Builder streamChunks(int value) {
      if (value < 1) {
        throw new IllegalArgumentException("streamChunks must be at least 1: " + value);
      }
      this.streamChunks = value;
      return this;
    }

    /**
     * Sets whether responses carry usage (a provider that does not forces the gateway to
     * estimate).
     *
     * @param value true to report usage
     * @return this builder
     */
    public Builder reportUsage(boolean value) {
      this.reportUsage = value;
      return this;
    }

    /**
     * Sets whether every attempt is kept for {@link FixtureProvider#calls()}. Leave off in
     * benchmarks.
     *
     * @param value true to record
     * @return this builder
     */
    public Builder recordCalls(boolean value) {
      this.recordCalls = value;
      return this;
    }

    /**
     * Sets the reply text function.
     *
     * @param value request to reply text
     * @return this builder
     */
    public Builder reply(Function<ChatRequest, String> value) {
      this.reply = Objects.requireNonNull(value, "reply");
      return this;
    }

    /**
     * Sets a hook run at the start of every attempt, before latency and failures; tests use it
     * to check what was journaled before the send.
     *
     * @param value the hook
     * @return this builder
     */
    public Builder onSend(Consumer<ProviderCall> value) {
      this.onSend = Objects.requireNonNull(value, "onSend");
      return this;
    }

    /**
     * Sets the dimensions of the vectors answered when the request names none. Default 8.
     *
     * @param value at least 1
     * @return this builder
     */
    public Builder embeddingDimensions(int value) {
      if (value < 1) {
        throw new IllegalArgumentException("embeddingDimensions must be at least 1: " + value);
      }
      this.embeddingDimensions = value;
      return this;
    }

    /**
     * Builds the provider.
     *
     * @return the provider
     */
    public FixtureProvider build() {
      return new FixtureProvider(this);
    }

    private static Duration nonNegative(Duration value, String name) {
      Objects.requireNonNull(value, name);
      if (value.isNegative()) {
        throw new IllegalArgumentException(name + " must not be negative: " + value);
      }
      return value;
    }
  }
}
