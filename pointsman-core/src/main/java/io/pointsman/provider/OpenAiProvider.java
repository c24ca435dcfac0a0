package io.pointsman.provider;

import io.pointsman.Clock;
import io.pointsman.PointsmanException;
import io.pointsman.model.ChatChunk;
import io.pointsman.model.ChatRequest;
import io.pointsman.model.ChatResponse;
import io.pointsman.model.EmbeddingRequest;
import io.pointsman.model.EmbeddingResponse;
import io.pointsman.model.Json;
import io.pointsman.model.StreamOptions;
import io.pointsman.provider.http.HttpTransport;
import io.pointsman.provider.http.JdkHttpTransport;
import io.pointsman.spi.ChunkSink;
import io.pointsman.spi.EmbeddingCall;
import io.pointsman.spi.EmbeddingReply;
import io.pointsman.spi.Provider;
import io.pointsman.spi.ProviderCall;
import io.pointsman.spi.ProviderException;
import io.pointsman.spi.ProviderReply;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A {@link Provider} for the OpenAI Chat Completions and Embeddings APIs and the servers that
 * speak them: OpenAI,
 * Azure OpenAI (deployment paths, {@code api-version}, {@code api-key} header) and self-hosted
 * servers (vLLM, llama.cpp, Ollama and others). Requests and responses are already in the
 * OpenAI shape, so translation is limited to the stream flag and asking for usage in streams
 * ({@code stream_options.include_usage}); the usage-only chunk is passed to the caller only
 * when the caller asked for it. The output cap goes out on the field the request used
 * ({@code max_completion_tokens} or {@code max_tokens}; a gateway always sets one, the cap its
 * hold assumed), or on {@code max_tokens} alone for servers that know only the legacy field
 * ({@link Builder#legacyMaxTokens}). Each adapter holds one {@link HttpClient}, so connections to its
 * endpoint are reused. Never logs a key or a prompt.
 *
 * <pre>{@code
 * Provider openai = OpenAiProvider.builder()
 *     .baseUri(URI.create("https://api.openai.com/v1"))
 *     .credential(Credential.fromEnvironment("OPENAI_API_KEY"))
 *     .build();
 * Provider azure = OpenAiProvider.builder()
 *     .azure(URI.create("https://my-resource.openai.azure.com"), "2024-10-21")
 *     .credential(Credential.fromEnvironment("AZURE_OPENAI_API_KEY"))
 *     .build();   // the deployment's providerModel is the Azure deployment name
 * }</pre>
 *
 * <p>Thread-safe; failures are reported as {@link ProviderException} per the table in
 * {@code docs/providers.md}.
 */
public final class OpenAiProvider implements Provider {
  private final URI baseUri;
  private final String azureApiVersion;
  private final Credential credential;
  private final Map<String, String> headers;
  private final ProviderTransport transport;
  private final boolean legacyMaxTokens;
  /** The endpoint of every attempt unless on Azure, parsed once. */
  private final URI chatCompletions;
  /** The endpoint of every embeddings attempt unless on Azure, parsed once. */
  private final URI embeddings;
  /** The most content a stream's assembled response may hold, in characters. */
  private final int maxStreamContent;

  private OpenAiProvider(Builder b) {
    this.baseUri = b.baseUri;
    String base = b.baseUri.toString();
    String trimmed = base.endsWith("/") ? base.substring(0, base.length() - 1) : base;
    this.chatCompletions = URI.create(trimmed + "/chat/completions");
    this.embeddings = URI.create(trimmed + "/embeddings");
    this.azureApiVersion = b.azureApiVersion;
    this.credential = b.credential;
    this.headers = Map.copyOf(b.headers);
    this.legacyMaxTokens = b.legacyMaxTokens;
    this.transport = ProviderTransport.forAdapter(b.name, b.httpTransport, b.httpClient,
        b.timeouts, b.clock);
    this.maxStreamContent = b.maxStreamContent;
  }

  /**
   * Returns a new builder.
   *
   * @return a builder
   */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Returns the URI an attempt for this provider model is posted to.
   *
   * @param providerModel the deployment's provider model (on Azure, the deployment name)
   * @return the endpoint
   */
  public URI endpoint(String providerModel) {
    return azureApiVersion == null ? chatCompletions : azureEndpoint(providerModel,
        "chat/completions");
  }

  /**
   * Returns the URI an embeddings attempt for this provider model is posted to:
   * {@code {base}/embeddings}, or on Azure the deployment's {@code embeddings} path.
   *
   * @param providerModel the deployment's provider model (on Azure, the deployment name)
   * @return the endpoint
   */
  public URI embeddingsEndpoint(String providerModel) {
    return azureApiVersion == null ? embeddings : azureEndpoint(providerModel, "embeddings");
  }

  private URI azureEndpoint(String providerModel, String operation) {
    String base = baseUri.toString();
    if (base.endsWith("/")) {
      base = base.substring(0, base.length() - 1);
    }
    return URI.create(base + "/openai/deployments/"
        + URLEncoder.encode(providerModel, StandardCharsets.UTF_8).replace("+", "%20")
        + "/" + operation + "?api-version="
        + URLEncoder.encode(azureApiVersion, StandardCharsets.UTF_8));
  }

  @Override
  public ProviderReply send(ProviderCall call) {
    ChatRequest request = wireRequest(call.request(), false);
    ProviderTransport.Response response = transport.exchange(httpRequest(call, request),
        call, false);
    if (response.status >= 300) {
      throw ProviderErrors.fromStatus(response.status, response.headers,
          response.body, transport.clock().now(), scrubber(call));
    }
    byte[] body = response.body;
    ChatResponse decoded;
    try {
      decoded = Json.readResponse(body);
    } catch (PointsmanException e) {
      throw ProviderErrors.undecodable(transport.name(), "the response is not a chat"
          + " completion: " + e.getMessage(), e);
    }
    return ProviderReply.of(decoded);
  }

  /**
   * Posts an embeddings request to {@code {base}/embeddings} (on Azure, the deployment's
   * embeddings path) over the same transport as chat: the same timeouts, the same mapping of
   * error statuses and send failures to {@link ProviderException}, and the same billing
   * classification. A 2xx body that is not an embeddings list is an unknown outcome.
   *
   * @param call the attempt
   * @return the response and the usage it reports
   * @throws ProviderException when the attempt failed
   */
  @Override
  public EmbeddingReply embed(EmbeddingCall call) {
    EmbeddingRequest request = call.request();
    byte[] body;
    String key;
    try {
      body = Json.mapper().writeValueAsBytes(request);
      key = credential == null ? null : credential.secret();
    } catch (com.fasterxml.jackson.core.JsonProcessingException | RuntimeException e) {
      throw ProviderException.notSent("[" + ProviderException.Kind.NOT_SENT.code() + "] "
          + transport.name() + ": the request could not be prepared ("
          + e.getClass().getSimpleName() + ")", e);
    }
    HttpRequest.Builder http = HttpRequest.newBuilder(
        embeddingsEndpoint(call.deployment().providerModel()))
        .header("content-type", "application/json")
        .header("accept", "application/json")
        .POST(ProviderTransport.body(body));
    authorize(http, key);
    ProviderTransport.Response response = transport.exchange(http, call.deadline(), false);
    if (response.status >= 300) {
      List<String> texts = new java.util.ArrayList<>();
      try {
        for (io.pointsman.model.EmbeddingInput in : request.inputs()) {
          if (in.text() != null) {
            texts.add(in.text());
          }
        }
      } catch (RuntimeException e) {
        // The gateway validated the inputs; a request built elsewhere is scrubbed of keys only.
      }
      throw ProviderErrors.fromStatus(response.status, response.headers, response.body,
          transport.clock().now(), ErrorScrubber.ofTexts(key, texts));
    }
    EmbeddingResponse decoded;
    try {
      decoded = Json.read(response.body, EmbeddingResponse.class);
    } catch (PointsmanException e) {
      throw ProviderErrors.undecodable(transport.name(), "the response is not an embeddings"
          + " list: " + e.getMessage(), e);
    }
    int expected = countInputs(request);
    if (expected >= 0 && decoded.data().size() != expected) {
      // A list that does not answer every input is no answer; the work may have been billed.
      throw ProviderErrors.undecodable(transport.name(), "the response holds "
          + decoded.data().size() + " embeddings for " + expected + " inputs", null);
    }
    return EmbeddingReply.of(decoded);
  }

  /** The number of inputs, or -1 for a request the gateway did not validate. */
  private static int countInputs(EmbeddingRequest request) {
    try {
      return request.inputs().size();
    } catch (RuntimeException e) {
      return -1;
    }
  }

  @Override
  public ProviderReply stream(ProviderCall call, ChunkSink sink) {
    ChatRequest original = call.request();
    boolean callerWantsUsage = original.streamOptions() != null
        && Boolean.TRUE.equals(original.streamOptions().includeUsage());
    ChatRequest request = wireRequest(original, true);
    ProviderTransport.Response response = transport.exchange(httpRequest(call, request),
        call, true);
    if (response.status >= 300) {
      throw ProviderErrors.fromStatus(response.status, response.headers,
          response.body, transport.clock().now(), scrubber(call));
    }
    StreamAssembler assembler = new StreamAssembler(maxStreamContent);
    boolean[] done = new boolean[1];
    boolean[] cancelled = new boolean[1];
    RuntimeException[] failure = new RuntimeException[1];
    SseParser parser = new SseParser(event -> {
      if (done[0] || cancelled[0] || failure[0] != null) {
        return;
      }
      String data = event.data();
      if (data.equals("[DONE]")) {
        done[0] = true;
        return;
      }
      ChatChunk chunk;
      try {
        chunk = Json.readChunk(data.getBytes(StandardCharsets.UTF_8));
      } catch (PointsmanException e) {
        failure[0] = streamFailure(assembler, "a stream event is not a chunk: "
            + e.getMessage(), e);
        return;
      }
      if (chunk.extra().containsKey("error")) {
        failure[0] = streamFailure(assembler, "the stream reported an error: "
            + scrubber(call).scrub(ProviderErrors.sanitize(chunk.extra().get("error")
                .toString())), null);
        return;
      }
      if (!assembler.add(chunk)) {
        // Cut before this chunk: the caller has exactly what was assembled, and the transport
        // cancels the body (closing the connection) as soon as it sees the failure.
        failure[0] = ProviderErrors.streamTooLarge(transport.name(), maxStreamContent);
        return;
      }
      boolean usageOnly = chunk.choices().isEmpty();
      if (usageOnly && (chunk.usage() == null || !callerWantsUsage)) {
        // Azure's prompt-filter preamble, or usage the caller did not ask for.
        return;
      }
      if (!sink.accept(chunk)) {
        cancelled[0] = true;
      }
    });
    try {
      transport.stream(response, parser::feed,
          () -> done[0] || cancelled[0] || failure[0] != null,
          () -> done[0] && !cancelled[0] && failure[0] == null);
    } catch (SseException e) {
      throw streamFailure(assembler, e.getMessage(), e);
    }
    if (failure[0] != null) {
      response.cancel();
      throw failure[0];
    }
    if (!done[0] && !cancelled[0]) {
      throw ProviderErrors.interrupted(transport.name(),
          "the stream ended without its [DONE] terminator", null);
    }
    ChatResponse assembled = assembler.response(call.request().model(),
        transport.clock().now().getEpochSecond());
    // A cancelled stream's usage is unknown to the provider's report: the gateway estimates it.
    return new ProviderReply(assembled, cancelled[0] ? null : assembler.usage(), false);
  }

  private ProviderException streamFailure(StreamAssembler assembler, String what,
      Throwable cause) {
    ProviderException.Kind kind = assembler.hasOutput() ? ProviderException.Kind.STREAM_ERROR
        : ProviderException.Kind.UNDECODABLE_RESPONSE;
    return ProviderException.unknownOutcome(kind, "[" + kind.code() + "] " + transport.name() + ": " + what,
        cause);
  }

  private ChatRequest wireRequest(ChatRequest r, boolean stream) {
    StreamOptions options = null;
    if (stream) {
      Map<String, com.fasterxml.jackson.databind.JsonNode> extra = r.streamOptions() == null
          ? null : r.streamOptions().extra();
      options = new StreamOptions(true, extra);
    }
    // The cap is sent as the request carries it: the gateway put the hold's cap there.
    Integer maxTokens = legacyMaxTokens ? r.outputTokenCap() : r.maxTokens();
    Integer maxCompletionTokens = legacyMaxTokens ? null : r.maxCompletionTokens();
    return new ChatRequest(r.model(), r.messages(), r.tools(), r.toolChoice(), r.temperature(),
        r.topP(), maxTokens, maxCompletionTokens, r.stop(), r.seed(),
        r.responseFormat(), r.user(), r.metadata(), stream ? Boolean.TRUE : null, options,
        r.n(), r.extra());
  }

  /** What to remove from this call's error texts: the credential sent and the prompt. */
  private ErrorScrubber scrubber(ProviderCall call) {
    String key;
    try {
      key = credential == null ? null : credential.secret();
    } catch (RuntimeException e) {
      key = null;
    }
    return ErrorScrubber.of(key, call.request());
  }

  private HttpRequest.Builder httpRequest(ProviderCall call, ChatRequest request) {
    byte[] body;
    String key;
    try {
      body = Json.mapper().writeValueAsBytes(request);
      key = credential == null ? null : credential.secret();
    } catch (com.fasterxml.jackson.core.JsonProcessingException | RuntimeException e) {
      throw ProviderException.notSent("[" + ProviderException.Kind.NOT_SENT.code() + "] "
          + transport.name() + ": the request could not be prepared ("
          + e.getClass().getSimpleName() + ")", e);
    }
    HttpRequest.Builder b = HttpRequest.newBuilder(endpoint(call.deployment().providerModel()))
        .header("content-type", "application/json")
        .header("accept", request.isStream() ? "text/event-stream" : "application/json")
        .POST(ProviderTransport.body(body));
    authorize(b, key);
    return b;
  }

  /** Adds the credential (Azure's {@code api-key}, else a bearer token) and the headers. */
  private void authorize(HttpRequest.Builder b, String key) {
    if (key != null) {
      if (azureApiVersion != null) {
        b.header("api-key", key);
      } else {
        b.header("authorization", "Bearer " + key);
      }
    }
    headers.forEach(b::header);
  }

  @Override
  public String toString() {
    return "OpenAiProvider(" + transport.name() + ", " + baseUri
        + (azureApiVersion == null ? "" : ", azure " + azureApiVersion) + ")";
  }

  /**
   * Builds an {@link OpenAiProvider}. Setters fail fast on null and bad values. Not
   * thread-safe.
   */
  public static final class Builder {
    private String name = "openai";
    private URI baseUri;
    private String azureApiVersion;
    private Credential credential;
    private final Map<String, String> headers = new LinkedHashMap<>();
    private HttpTimeouts timeouts = HttpTimeouts.ofDefaults();
    private HttpClient httpClient;
    private HttpTransport httpTransport;
    private Clock clock = Clock.system();
    private int maxStreamContent = StreamAssembler.DEFAULT_MAX_CONTENT;
    private boolean legacyMaxTokens;

    private Builder() {}

    /**
     * Sets the name used in error messages. Default {@code "openai"}.
     *
     * @param value the name
     * @return this builder
     * @throws NullPointerException if value is null
     */
    public Builder name(String value) {
      this.name = Objects.requireNonNull(value, "name");
      return this;
    }

    /**
     * Sets the API base, up to and including the version segment, for example
     * {@code https://api.openai.com/v1} or {@code http://127.0.0.1:8000/v1}.
     *
     * @param value the base URI
     * @return this builder
     * @throws NullPointerException if value is null
     * @throws IllegalArgumentException if the scheme is not http or https
     */
    public Builder baseUri(URI value) {
      Objects.requireNonNull(value, "baseUri");
      if (!"http".equals(value.getScheme()) && !"https".equals(value.getScheme())) {
        throw new IllegalArgumentException("baseUri must be http or https: " + value);
      }
      this.baseUri = value;
      return this;
    }

    /**
     * Targets Azure OpenAI: attempts go to
     * {@code {resource}/openai/deployments/{providerModel}/chat/completions?api-version=...}
     * with the key in the {@code api-key} header.
     *
     * @param resource the resource endpoint, for example
     *     {@code https://my-resource.openai.azure.com}
     * @param apiVersion the API version, for example {@code 2024-10-21}
     * @return this builder
     * @throws NullPointerException if an argument is null
     * @throws IllegalArgumentException if apiVersion is blank or the scheme is not http(s)
     */
    public Builder azure(URI resource, String apiVersion) {
      baseUri(resource);
      Objects.requireNonNull(apiVersion, "apiVersion");
      if (apiVersion.isBlank()) {
        throw new IllegalArgumentException("apiVersion must not be blank");
      }
      this.azureApiVersion = apiVersion;
      return this;
    }

    /**
     * Sets the credential. Without one no key is sent (local servers).
     *
     * @param value the credential
     * @return this builder
     * @throws NullPointerException if value is null
     */
    public Builder credential(Credential value) {
      this.credential = Objects.requireNonNull(value, "credential");
      return this;
    }

    /**
     * Adds a header sent with every attempt (for example {@code OpenAI-Organization}).
     *
     * @param name the header name
     * @param value the value
     * @return this builder
     * @throws NullPointerException if an argument is null
     */
    public Builder header(String name, String value) {
      headers.put(Objects.requireNonNull(name, "name"), Objects.requireNonNull(value, "value"));
      return this;
    }

    /**
     * Sets the timeouts. Default {@link HttpTimeouts#ofDefaults()}. The connect timeout applies
     * only to the client this builder creates.
     *
     * @param value the timeouts
     * @return this builder
     * @throws NullPointerException if value is null
     */
    public Builder timeouts(HttpTimeouts value) {
      this.timeouts = Objects.requireNonNull(value, "timeouts");
      return this;
    }

    /**
     * Sets the most content a stream's assembled response may hold, in characters (text and
     * tool calls: ids, names and arguments, plus a small allowance per choice and per tool
     * call). The chunks go to the caller as they arrive; the assembled response, which the
     * gateway needs for its output guardrail and usage estimate, is what this bounds. A stream
     * that would go beyond it is cut before the chunk that would cross it: its connection is
     * closed and the attempt fails with a {@link ProviderException} of rule
     * {@code stream.too_large} (kind {@link ProviderErrorKind#STREAM_TOO_LARGE}), billing
     * unknown, not retryable, so that the gateway charges the attempt's worst case. Default
     * 16 Mi characters; the heap it takes is one byte per character of Latin-1 text, two of
     * other text, plus the builders' spare capacity, and a copy when the response is built.
     *
     * @param value the limit, at least 1
     * @return this builder
     * @throws IllegalArgumentException if value is below 1
     */
    public Builder maxStreamContent(int value) {
      if (value < 1) {
        throw new IllegalArgumentException("maxStreamContent must be positive: " + value);
      }
      this.maxStreamContent = value;
      return this;
    }

    /**
     * Shares an existing client (its connection pool, executor and connect timeout).
     *
     * @param value the client
     * @return this builder
     * @throws NullPointerException if value is null
     */
    public Builder httpClient(HttpClient value) {
      this.httpClient = Objects.requireNonNull(value, "httpClient");
      this.httpTransport = null;
      return this;
    }

    /**
     * Sends every attempt through another HTTP transport than the JDK's client (for example
     * {@code pointsman-httpclient5}'s). The adapter's timeouts, body caps, stream
     * back-pressure and error mapping stay the same, except the connect timeout, which is the
     * transport's own. Replaces {@link #httpClient}; a {@link JdkHttpTransport} is the same
     * as {@code httpClient(transport.client())}.
     *
     * @param value the transport
     * @return this builder
     * @throws NullPointerException if value is null
     */
    public Builder transport(HttpTransport value) {
      this.httpTransport = Objects.requireNonNull(value, "transport");
      this.httpClient = null;
      return this;
    }

    /**
     * Sets the clock used for deadlines, HTTP-date retry hints and stream timestamps.
     *
     * @param value the clock
     * @return this builder
     * @throws NullPointerException if value is null
     */
    public Builder clock(Clock value) {
      this.clock = Objects.requireNonNull(value, "clock");
      return this;
    }

    /**
     * Sends the output cap on {@code max_tokens} only, never on {@code max_completion_tokens},
     * for servers that know only the legacy field. Default false: the cap goes out on the field
     * the request used.
     *
     * @param value true to send {@code max_tokens} only
     * @return this builder
     */
    public Builder legacyMaxTokens(boolean value) {
      this.legacyMaxTokens = value;
      return this;
    }

    /**
     * Builds the provider.
     *
     * @return the provider
     * @throws IllegalStateException if no base URI was set
     */
    public OpenAiProvider build() {
      if (baseUri == null) {
        throw new IllegalStateException("no endpoint: set baseUri(...) or azure(...)");
      }
      return new OpenAiProvider(this);
    }
  }
}
