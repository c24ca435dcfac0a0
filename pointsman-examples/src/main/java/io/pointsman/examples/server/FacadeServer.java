package io.pointsman.examples.server;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.pointsman.CacheControl;
import io.pointsman.CallOptions;
import io.pointsman.ChatResult;
import io.pointsman.EmbeddingResult;
import io.pointsman.PointsmanException;
import io.pointsman.Status;
import io.pointsman.StreamControl;
import io.pointsman.StreamObserver;
import io.pointsman.catalog.ModelSpec;
import io.pointsman.ledger.Hold;
import io.pointsman.ledger.HoldDecision;
import io.pointsman.ledger.QuarantinedItem;
import io.pointsman.ledger.RedriveReport;
import io.pointsman.limits.BudgetState;
import io.pointsman.model.ChatChunk;
import io.pointsman.model.ChatRequest;
import io.pointsman.model.EmbeddingRequest;
import io.pointsman.model.Json;
import io.pointsman.model.Usage;
import io.pointsman.catalog.TokenBounds;
import io.pointsman.model.anthropic.AnthropicException;
import io.pointsman.model.anthropic.AnthropicMessages;
import io.pointsman.model.anthropic.AnthropicStream;
import io.pointsman.model.anthropic.StreamEvent;
import java.util.List;
import io.pointsman.spi.Identity;
import io.pointsman.spi.LimitRemaining;
import io.pointsman.spi.UsageOutcome;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.regex.Pattern;
import org.eclipse.jetty.http.HttpField;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpVersion;
import org.eclipse.jetty.io.Connection;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.io.EndPoint;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.NetworkConnectionLimit;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.Blocker;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.Promise;
import org.eclipse.jetty.util.thread.Invocable;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An OpenAI-compatible HTTP server around a {@link Facade}'s gateway, on Jetty 12 (HTTP/1.1
 * with keep-alive; HTTP/2 cleartext is off, see docs/operations.md). Existing OpenAI clients work through it unchanged:
 * point their base URL at {@code http://host:port/v1} and give a Pointsman virtual key as the
 * API key.
 *
 * <ul>
 *   <li>{@code POST /v1/chat/completions}: plain and streamed ({@code "stream": true}, Server-Sent
 *       Events ending in {@code data: [DONE]}); {@code Authorization: Bearer <virtual key>};
 *       {@code X-Cache-Control: no-cache | no-store}; {@code X-Request-Id} is passed through when
 *       well-formed (1 to 128 characters of {@code [A-Za-z0-9._:-]}), else one is made.
 *       Responses carry {@code x-request-id}, {@code x-pointsman-event-id},
 *       {@code x-pointsman-cache}, {@code x-pointsman-cost-micros},
 *       {@code x-pointsman-cost-estimated}, {@code x-pointsman-attempts} and, per matched
 *       limit, {@code x-ratelimit-limit-<rule>}, {@code x-ratelimit-remaining-<rule>} and
 *       {@code x-ratelimit-reset-<rule>}. A stream's cost is known only at its end, so it is
 *       sent as an SSE comment ({@code : pointsman cost_micros=...}) before {@code [DONE]}; the
 *       final event is written only after the call's usage record is durable.</li>
 *   <li>{@code POST /v1/messages}: Anthropic's Messages API, plain and streamed (Anthropic's
 *       {@code event:} names and order), translated to and from a chat completion by {@link
 *       AnthropicMessages} and {@link AnthropicStream} and run on the chat completions code
 *       path (the same key check, body limits, bulkheads, client watch and shutdown); the key in
 *       {@code x-api-key} or {@code Authorization: Bearer}; errors in Anthropic's shape with a
 *       {@code request-id} header. {@code POST /v1/messages/count_tokens}: the request's input
 *       tokens as the gateway counts them.</li>
 *   <li>{@code POST /v1/embeddings}: OpenAI's embeddings request, for models declared with the
 *       {@code embeddings} capability; the same key check, body limits, bulkheads, error
 *       contract, headers ({@code x-pointsman-cost-micros} and the rest) and disconnect
 *       handling as chat; a chat model is refused 400 with rule
 *       {@code capability:embeddings}.</li>
 *   <li>{@code GET /v1/models}: the models a valid key may see; {@code GET /v1/models/<id>}: one
 *       of them (by name or alias), else 404 {@code model_not_found}.</li>
 *   <li>{@code GET /metrics}: Prometheus text: stage timings, requests by route and status,
 *       journal backlog, unresolved holds, cache counters, component health; the values that
 *       need a component are sampled in the background, each with the time of its sample.</li>
 *   <li>{@code GET /healthz}: JSON with an overall {@code status} and each component's
 *       (journal, settler, counters, database, budgets), from the background checks; 200 only
 *       when every required component is up, else 503 naming the failed ones.</li>
 *   <li>{@code /admin/...} (with {@code Authorization: Bearer <admin token>}):
 *       {@code GET /admin/holds/<event id>}, {@code POST /admin/holds/<event id>/attest}
 *       (JSON {@code costMicros}, {@code epoch}, {@code evidence}, optional
 *       {@code promptTokens}, {@code completionTokens}), {@code POST /admin/holds/reconcile}
 *       (expire ended holds and settle resolved ones now, rather than at the next minute),
 *       {@code GET /admin/budgets}, {@code GET /admin/quarantine} (the ledger's quarantined
 *       items), {@code POST /admin/quarantine/redrive} (re-drives them).</li>
 * </ul>
 *
 * <p>Routes are exact: any other path is 404, a known path with another method is 405 with
 * {@code Allow}.
 *
 * <p><b>Hostile clients.</b> Sockets are no-delay. A connection that has not delivered its
 * first request's headers within {@link ServerLimits#headerTimeout()} is closed, one idle for
 * {@link ServerLimits#idleTimeout()} too, and at most {@link ServerLimits#maxConnections()} are
 * open. A chat call's key is checked from the headers, before any of its body is read: a
 * refused key is answered 401 and the body is never read (the connection is closed rather than
 * drained). An accepted caller's body is read without holding a thread, into a buffer bounded
 * by {@link #MAX_BODY_BYTES} (a larger one is 413), within {@link ServerLimits#bodyTimeout()}
 * (else 408).
 *
 * <p><b>Bulkheads.</b> Chat calls run on their own threads, never on the server's: each
 * deployment (in the facade, one per model) admits at most
 * {@link ServerLimits#deploymentConcurrency()} calls at once, and refuses one more at once with
 * 503 {@code deployment_busy} and {@code Retry-After: 1}. A hanging upstream fills only its
 * own bulkhead: health, metrics, models and other deployments keep answering. Admin requests
 * run on a small pool of their own.
 *
 * <p><b>Clients that go away.</b> While a call runs, its connection is watched: when the client
 * closes it (HTTP/1.1: the socket reads end-of-stream; HTTP/2: the stream is reset), a stream
 * is cancelled through its {@link StreamControl} (recorded as {@code CANCELLED}, charged for
 * what was streamed) and a plain call's thread is interrupted, which the gateway treats as the
 * caller cancelling (not retried; recorded as the gateway decides: a call never sent is not
 * charged, one already sent keeps its outcome, {@code UNKNOWN} if its answer never came).
 * Either is counted with status 499 in the metrics, never as a server error. An HTTP/1.1
 * client that pipelines another request behind a running call cannot be watched without
 * reading it: the watch stops and the connection is closed after the response.
 *
 * <p>Errors are OpenAI-shaped ({@code {"error": {"message", "type", "code"}}}) with the
 * gateway's HTTP status. {@link #close()} refuses new requests, lets open exchanges finish
 * for the configured drain time, cancels the streams still open (accounted as cancelled, each
 * client told with an SSE error event), then closes the facade, which drains the journal into
 * PostgreSQL.
 */
public final class FacadeServer implements AutoCloseable {
  /** The largest request body accepted. */
  public static final int MAX_BODY_BYTES = 32 << 20;
  private static final Logger LOG = LoggerFactory.getLogger(FacadeServer.class);
  private static final String REQUEST_ID_ATTRIBUTE = "io.pointsman.requestId";
  private static final Pattern HEADER_NAME = Pattern.compile("[^a-z0-9]+");
  private static final byte[] DATA = "data: ".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] DONE = "data: [DONE]\n\n".getBytes(StandardCharsets.US_ASCII);
  private static final String SHUTTING_DOWN = "shutting_down";
  /** The status counted for a client that went away before its answer. */
  static final int CLIENT_CLOSED = 499;
  /** How long cancelled streams get to end and be accounted after the drain window. */
  private static final Duration CANCEL_GRACE = Duration.ofSeconds(5);
  /** How often the connections of running calls are looked at for a client that left. */
  private static final long WATCH_MILLIS = 100;
  /** How long a cancelled stream may wait for its next chunk before its wait is interrupted. */
  private static final long SILENT_MILLIS = 1_000;
  /** The bulkhead of calls whose model the catalog does not know (the gateway refuses them). */
  private static final String UNROUTED = "";
  private static final String GET = "GET";
  private static final String POST = "POST";

  private final Facade facade;
  private final ServerLimits limits;
  private final Server jetty;
  private final ServerConnector connector;
  private final ExecutorService calls;
  private final ThreadPoolExecutor admin;
  private final ScheduledExecutorService timers;
  private final Map<String, Semaphore> bulkheads = new ConcurrentHashMap<>();
  private final Map<String, LongAdder> requests = new ConcurrentHashMap<>();
  private final AtomicInteger inFlight = new AtomicInteger();
  private final Set<LiveStream> streams = ConcurrentHashMap.newKeySet();
  private final Set<Watch> watched = ConcurrentHashMap.newKeySet();
  private volatile boolean closed;
  /** Set once the server stops: closed connections are no longer a client leaving. */
  private volatile boolean stopping;

  private FacadeServer(Facade facade, ServerLimits limits) {
    this.facade = facade;
    this.limits = limits;
    QueuedThreadPool pool = new QueuedThreadPool(limits.serverThreads(),
        Math.min(8, limits.serverThreads()));
    pool.setName("pointsman-http");
    pool.setDaemon(true);
    jetty = new Server(pool);
    jetty.setStopTimeout(1_000);
    HttpConfiguration http = new HttpConfiguration();
    http.setSendServerVersion(false);
    http.setSendDateHeader(false);
    http.setIdleTimeout(limits.idleTimeout().toMillis());
    connector = new ServerConnector(jetty, 1, 1, new HttpConnectionFactory(http));
    connector.setHost("127.0.0.1");
    connector.setPort(facade.config().port());
    connector.setIdleTimeout(limits.idleTimeout().toMillis());
    // Nagle's algorithm would hold every small response back for the client's delayed ACK.
    connector.setAcceptedTcpNoDelay(true);
    connector.setAcceptQueueSize(1_024);
    jetty.addConnector(connector);
    jetty.addBean(new NetworkConnectionLimit(limits.maxConnections(), connector));
    timers = Executors.newScheduledThreadPool(1, daemon("pointsman-http-timer"));
    connector.addBean(new HeaderTimeout());
    calls = Executors.newCachedThreadPool(daemon("pointsman-call"));
    admin = new ThreadPoolExecutor(limits.adminThreads(), limits.adminThreads(), 30,
        TimeUnit.SECONDS, new ArrayBlockingQueue<>(64), daemon("pointsman-admin"));
    admin.allowCoreThreadTimeOut(true);
    jetty.setHandler(new Routes());
  }

  private static ThreadFactory daemon(String prefix) {
    AtomicInteger n = new AtomicInteger();
    return r -> {
      Thread t = new Thread(r, prefix + "-" + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    };
  }

  /**
   * Starts serving the facade with the {@linkplain ServerLimits#defaults() default limits}.
   *
   * @param facade the facade
   * @return the running server
   * @throws UncheckedIOException if the port cannot be bound
   * @see #start(Facade, ServerLimits)
   */
  public static FacadeServer start(Facade facade) {
    return start(facade, ServerLimits.defaults());
  }

  /**
   * Starts serving the facade on 127.0.0.1 at the configured port (0 picks a free one). If the
   * configuration names a port file, the bound port is written to it (atomically) once the
   * server accepts connections. The server owns the facade from here on.
   *
   * @param facade the facade
   * @param limits the server's limits
   * @return the running server
   * @throws UncheckedIOException if the port cannot be bound
   */
  public static FacadeServer start(Facade facade, ServerLimits limits) {
    FacadeServer s = new FacadeServer(facade, limits);
    FacadeConfig c = facade.config();
    try {
      s.timers.scheduleWithFixedDelay(s::watchClients, WATCH_MILLIS, WATCH_MILLIS,
          TimeUnit.MILLISECONDS);
      s.jetty.start();
    } catch (Exception e) {
      s.stopQuietly();
      throw new UncheckedIOException("cannot listen on port " + c.port(),
          e instanceof IOException io ? io : new IOException(e));
    }
    if (c.portFile() != null) {
      writePortFile(Path.of(c.portFile()), s.port());
    }
    return s;
  }

  private static void writePortFile(Path file, int port) {
    try {
      Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
      Files.writeString(tmp, Integer.toString(port));
      Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write the port file " + file, e);
    }
  }

  /**
   * Returns the port the server listens on.
   *
   * @return the port
   */
  public int port() {
    return connector.getLocalPort();
  }

  /**
   * Returns the base URI of the OpenAI-compatible API, {@code http://127.0.0.1:<port>/v1}.
   *
   * @return the URI
   */
  public URI baseUri() {
    return URI.create("http://127.0.0.1:" + port() + "/v1");
  }

  /**
   * Returns the facade served.
   *
   * @return the facade
   */
  public Facade facade() {
    return facade;
  }

  /**
   * Returns the limits the server enforces.
   *
   * @return the limits
   */
  public ServerLimits limits() {
    return limits;
  }

  // ---------------------------------------------------------------- routes

  /** Exact routes: 404 for an unknown path, 405 with Allow for a known one's other methods. */
  private final class Routes extends Handler.Abstract {
    @Override
    public boolean handle(Request request, Response response, Callback callback) {
      String path = request.getHttpURI().getPath();
      String method = request.getMethod();
      if (path == null) {
        path = "/";
      }
      Exchange ex = new Exchange(request, response, callback, Api.of(path));
      switch (path) {
        case "/v1/chat/completions" -> {
          if (allowed(ex, "chat", method, POST)) {
            chat(ex);
          }
        }
        case "/v1/messages", "/v1/messages/count_tokens" -> {
          if (allowed(ex, ex.route, method, POST)) {
            chat(ex);
          }
        }
        case "/v1/embeddings" -> {
          if (allowed(ex, "embeddings", method, POST)) {
            embeddings(ex);
          }
        }
        case "/v1/models" -> {
          if (allowed(ex, "models", method, GET)) {
            guard(ex, "models", () -> models(ex, null));
          }
        }
        case "/healthz" -> {
          if (allowed(ex, "health", method, GET)) {
            health(ex);
          }
        }
        case "/metrics" -> {
          if (allowed(ex, "metrics", method, GET)) {
            guard(ex, "metrics", () -> metrics(ex));
          }
        }
        default -> {
          if (path.startsWith("/v1/models/") && path.length() > "/v1/models/".length()) {
            String id = path.substring("/v1/models/".length());
            if (allowed(ex, "models", method, GET)) {
              guard(ex, "models", () -> models(ex, id));
            }
          } else if (path.startsWith("/admin/")) {
            adminAsync(ex, path, method);
          } else {
            guard(ex, "other", () -> error(ex, "other", Status.NOT_FOUND, "not_found",
                "no such route: " + ex.request.getHttpURI().getPath()));
          }
        }
      }
      return true;
    }
  }

  /** Answers 405 with Allow unless the method is the route's. */
  private boolean allowed(Exchange ex, String route, String method, String allow) {
    if (allow.equals(method)) {
      return true;
    }
    guard(ex, route, () -> {
      ex.response.getHeaders().put(HttpHeader.ALLOW, allow);
      json(ex, route, 405, errorBytes(ex, 405, "method_not_allowed", "method_not_allowed",
          "use " + allow + " on " + ex.request.getHttpURI().getPath()));
    });
    return false;
  }

  // ---------------------------------------------------------------- chat completions

  /**
   * Checks the key from the headers, then reads the body without holding a thread, then runs
   * the call on its deployment's bulkhead.
   */
  private void chat(Exchange ex) {
    receive(ex, ex.route, this::dispatch);
  }

  /** What a route does with a body read in full: parse it and hand the call over. */
  @FunctionalInterface
  private interface Received {
    void dispatch(Exchange ex, byte[] body, CallOptions options);
  }

  /**
   * Checks the key from the headers, then reads the body without holding a thread, then hands
   * it to the route: the same for every call type.
   */
  private void receive(Exchange ex, String route, Received next) {
    inFlight.incrementAndGet();
    boolean async = false;
    try {
      if (closed) {
        error(ex, route, Status.UNAVAILABLE, SHUTTING_DOWN, "the server is shutting down");
        return;
      }
      String key = ex.api == Api.OPENAI ? bearer(ex) : anthropicKey(ex);
      if (key == null) {
        error(ex, route, Status.UNAUTHORIZED, "invalid_api_key",
            ex.api == Api.OPENAI ? "missing Authorization: Bearer <virtual key>"
                : "missing x-api-key: <virtual key> (or Authorization: Bearer <virtual key>)");
        return;
      }
      // Before any byte of the body: a refused key costs the server a header's worth.
      facade.authenticate(key);
      long length = ex.request.getLength();
      if (length > MAX_BODY_BYTES) {
        tooLarge(ex, route);
        return;
      }
      CallOptions options = options(ex, key);
      AtomicBoolean decided = new AtomicBoolean();
      ScheduledFuture<?> deadline = timers.schedule(() -> {
        if (decided.compareAndSet(false, true)) {
          ex.response.getHeaders().put(HttpHeader.CONNECTION, "close");
          finishQuietly(ex, route, Status.UNAVAILABLE, 408, "request_timeout",
              "the request body did not arrive within " + limits.bodyTimeout().toSeconds()
                  + " s");
          exchangeEnded();
        }
      }, limits.bodyTimeout().toMillis(), TimeUnit.MILLISECONDS);
      async = true;
      Content.Source.asByteArrayAsync(ex.request, MAX_BODY_BYTES, Promise.Invocable.from(
          Invocable.InvocationType.BLOCKING, (byte[] body, Throwable err) -> {
        deadline.cancel(false);
        if (!decided.compareAndSet(false, true)) {
          return;
        }
        if (err != null) {
          Throwable cause = err instanceof CompletionException && err.getCause() != null
              ? err.getCause() : err;
          if (cause instanceof IllegalArgumentException) {
            tooLargeQuietly(ex, route);
          } else {
            // The client went away while sending its body: nothing was called.
            count(route, CLIENT_CLOSED);
            ex.fail(cause);
          }
          exchangeEnded();
          return;
        }
        next.dispatch(ex, body, options);
      }));
    } catch (PointsmanException e) {
      refused(ex, route, e);
    } catch (IOException | RuntimeException e) {
      unexpected(ex, route, e);
    } finally {
      if (!async) {
        ex.complete();
        exchangeEnded();
      }
    }
  }

  private void tooLarge(Exchange ex, String route) throws IOException {
    ex.response.getHeaders().put(HttpHeader.CONNECTION, "close");
    json(ex, route, 413, errorBytes(ex, 413, "invalid_request_error",
        "request_too_large", "the request body exceeds " + MAX_BODY_BYTES + " bytes"));
  }

  private void tooLargeQuietly(Exchange ex, String route) {
    try {
      tooLarge(ex, route);
    } catch (IOException | RuntimeException e) {
      count(route, CLIENT_CLOSED);
    } finally {
      ex.complete();
    }
  }

  /** Parses the body and hands the call to its deployment's bulkhead (on a server thread). */
  private void dispatch(Exchange ex, byte[] body, CallOptions options) {
    onBulkhead(ex, ex.route, () -> {
      if (ex.api == Api.COUNT_TOKENS) {
        // Counted here, on the server thread: no provider call, no bulkhead.
        countTokens(ex, body, options.virtualKey());
        return null;
      }
      ChatRequest request = ex.api == Api.OPENAI ? Json.readRequest(body)
          : AnthropicMessages.toChatRequest(AnthropicMessages.readRequest(body));
      facade.checkCapabilities(request);
      return new Admitted(request.model(), () -> call(ex, request, options));
    });
  }

  /** A parsed call: the model whose bulkhead it runs on, and the call. */
  private record Admitted(String model, Runnable call) {}

  /** Parses a body into a call (or answers it and returns null), or refuses it. */
  @FunctionalInterface
  private interface Parse {
    Admitted parse() throws IOException;
  }

  /**
   * Runs a parsed call on its deployment's bulkhead (on a call thread), or refuses it at once
   * when the bulkhead is full: the same for every call type.
   */
  private void onBulkhead(Exchange ex, String route, Parse parse) {
    Semaphore bulkhead = null;
    boolean handedOver = false;
    try {
      Admitted admitted = parse.parse();
      if (admitted == null) {
        // The route answered by itself.
        return;
      }
      String deployment = deploymentOf(admitted.model());
      bulkhead = bulkheads.computeIfAbsent(deployment,
          d -> new Semaphore(limits.deploymentConcurrency()));
      if (!bulkhead.tryAcquire()) {
        bulkhead = null;
        ex.response.getHeaders().put(HttpHeader.RETRY_AFTER, "1");
        error(ex, route, Status.UNAVAILABLE, "deployment_busy", "the deployment of "
            + Json.quoteForMessage(admitted.model()) + " already has "
            + limits.deploymentConcurrency() + " calls in flight; retry shortly");
        return;
      }
      Semaphore held = bulkhead;
      calls.execute(() -> {
        try {
          admitted.call().run();
        } finally {
          held.release();
        }
      });
      handedOver = true;
    } catch (RejectedExecutionException e) {
      errorQuietly(ex, route, Status.UNAVAILABLE, SHUTTING_DOWN, "the server is shutting down");
    } catch (PointsmanException e) {
      refused(ex, route, e);
    } catch (IOException | RuntimeException e) {
      unexpected(ex, route, e);
    } finally {
      if (!handedOver) {
        if (bulkhead != null) {
          bulkhead.release();
        }
        ex.complete();
        exchangeEnded();
      }
    }
  }

  /** The bulkhead of a model: its deployment (one per model in the facade). */
  private String deploymentOf(String model) {
    ModelSpec spec = facade.models().find(model);
    return spec == null ? UNROUTED : spec.name();
  }

  /** Runs one call on a call thread, with the client's connection watched. */
  private void call(Exchange ex, ChatRequest request, CallOptions options) {
    watched(ex, ex.route, watch -> {
      if (Boolean.TRUE.equals(request.stream())) {
        stream(ex, request, options, watch);
      } else {
        ChatResult result = facade.gateway().chat(request, options);
        answerWatched(ex, ex.route, watch, h -> resultHeaders(h, result),
            ex.api == Api.OPENAI ? Json.writeBytes(result.response())
                : Json.writeBytes(AnthropicMessages.fromChatResponse(result.response())));
      }
    });
  }

  /** A call that runs with its client's connection watched. */
  @FunctionalInterface
  private interface WatchedCall {
    void run(Watch watch) throws IOException;
  }

  /**
   * Runs a call with the client's connection watched, and answers its failure: a refusal in
   * the OpenAI error shape, a client that left as closed (its call was still accounted), the
   * same for every call type.
   */
  private void watched(Exchange ex, String route, WatchedCall body) {
    Watch watch = watch(ex);
    try {
      body.run(watch);
    } catch (PointsmanException e) {
      watch.stop();
      if (watch.gone) {
        count(route, CLIENT_CLOSED);
        ex.fail(e);
      } else {
        if (watch.pipelined) {
          ex.response.getHeaders().put(HttpHeader.CONNECTION, "close");
        }
        refused(ex, route, e);
      }
    } catch (UncheckedIOException | IOException e) {
      watch.stop();
      count(route, CLIENT_CLOSED);
      ex.fail(e);
    } catch (RuntimeException e) {
      watch.stop();
      if (watch.gone) {
        count(route, CLIENT_CLOSED);
        ex.fail(e);
      } else {
        unexpected(ex, route, e);
      }
    } finally {
      watch.end();
      ex.complete();
      exchangeEnded();
    }
  }

  /**
   * Writes a whole answer once the call is done, unless the client left while it ran.
   * The watch stops before the answer goes out: once it has, the client may send its next
   * request, whose first byte the watch must not read.
   */
  private void answerWatched(Exchange ex, String route, Watch watch,
      java.util.function.Consumer<HttpFields.Mutable> headers, byte[] body)
      throws IOException {
    watch.stop();
    if (watch.gone) {
      count(route, CLIENT_CLOSED);
      ex.fail(new IOException("the client closed the connection"));
      return;
    }
    HttpFields.Mutable h = ex.response.getHeaders();
    headers.accept(h);
    if (watch.pipelined) {
      h.put(HttpHeader.CONNECTION, "close");
    }
    json(ex, route, 200, body);
  }

  private CallOptions options(Exchange ex, String key) {
    HttpFields in = ex.request.getHeaders();
    CallOptions.Builder b = CallOptions.builder(key).requestId(requestId(ex));
    CacheControl cache = FacadeRequests.cacheControl(in.get("X-Cache-Control"),
        in.get("Cache-Control"));
    if (cache != null) {
      b.cacheControl(cache);
    }
    return b.build();
  }

  /** The exchange's request id: the client's {@code X-Request-Id} when well-formed. */
  private static String requestId(Exchange ex) {
    Object id = ex.request.getAttribute(REQUEST_ID_ATTRIBUTE);
    if (id == null) {
      id = FacadeRequests.requestId(ex.request.getHeaders().get("X-Request-Id"));
      ex.request.setAttribute(REQUEST_ID_ATTRIBUTE, id);
    }
    return (String) id;
  }

  /**
   * An open stream, as the graceful shutdown sees it: its control (to cancel it through the
   * gateway) and who ends it. The handler and the shutdown each write their final bytes only
   * if the other did not end the stream first.
   */
  private static final class LiveStream {
    final Exchange ex;
    volatile StreamControl control;
    /** Whether the response headers were sent (an SSE event can then still be written). */
    volatile boolean started;
    /** Set by the shutdown or the watch: the stream is being cancelled. */
    volatile boolean cut;
    private boolean ended;

    LiveStream(Exchange ex) {
      this.ex = ex;
    }

    synchronized boolean end() {
      if (ended) {
        return false;
      }
      ended = true;
      return true;
    }

    synchronized boolean ended() {
      return ended;
    }
  }

  private void stream(Exchange ex, ChatRequest request, CallOptions options, Watch watch)
      throws IOException {
    HttpFields.Mutable h = ex.response.getHeaders();
    LiveStream live = new LiveStream(ex);
    watch.live = live;
    streams.add(live);
    ChatChunk[] usageChunk = {null};
    // The Messages API's events, for a stream on /v1/messages; a chunk they cannot say ends it.
    AnthropicStream events = ex.api == Api.OPENAI ? null : new AnthropicStream(request.model());
    PointsmanException[] untranslatable = {null};
    ChatResult result;
    try {
      result = facade.gateway().stream(request, options, new StreamObserver() {
        @Override
        public void onStart(StreamControl control) {
          live.control = control;
          if (live.cut || watch.gone) {
            control.cancel();
          }
        }

        @Override
        public void onChunk(ChatChunk chunk) {
          synchronized (live) {
            if (live.ended() || watch.gone) {
              // The shutdown ended this stream, or the client left: stop here, accounted.
              live.control.cancel();
              return;
            }
            if (StreamCost.isUsageChunk(chunk)) {
              // Sent with the call's cost once the record is durable.
              usageChunk[0] = chunk;
              return;
            }
            try {
              byte[] bytes;
              if (events == null) {
                bytes = frame(chunk);
              } else {
                try {
                  bytes = sse(events.onChunk(chunk));
                } catch (AnthropicException e) {
                  untranslatable[0] = e;
                  live.control.cancel();
                  return;
                }
                if (bytes.length == 0) {
                  return;
                }
              }
              if (!live.started) {
                h.put(HttpHeader.CONTENT_TYPE, "text/event-stream");
                h.put(HttpHeader.CACHE_CONTROL, "no-cache");
                h.put("x-request-id", options.requestId());
                if (ex.api != Api.OPENAI) {
                  h.put("request-id", options.requestId());
                }
                ex.response.setStatus(200);
                live.started = true;
              }
              // Blocks until the client took the bytes: a slow reader slows its own upstream.
              ex.write(false, bytes);
            } catch (IOException e) {
              // The client went away: the stream is cancelled (accounted as cancelled), not
              // failed by its observer.
              watch.clientGone();
              live.control.cancel();
            }
          }
        }
      });
    } catch (PointsmanException e) {
      streams.remove(live);
      if (!live.started) {
        throw e;
      }
      watch.stop();
      // Output already reached the client: end the stream with an error event, then abort the
      // response (no terminating chunk, no [DONE]), so that every client reports an error.
      count(ex.route, watch.gone ? CLIENT_CLOSED : e.status().httpStatus());
      if (live.end()) {
        writeQuietly(ex, false, streamEvent(ex, ErrorAnswer.of(e, options.requestId())));
        ex.fail(new IOException("the stream failed after its first chunk: " + e.rule()));
      }
      return;
    } catch (UncheckedIOException e) {
      streams.remove(live);
      count(ex.route, CLIENT_CLOSED);
      ex.fail(e);
      return;
    }
    streams.remove(live);
    watch.stop();
    if (watch.pipelined) {
      h.put(HttpHeader.CONNECTION, "close");
    }
    if (!live.end()) {
      // The shutdown already wrote this stream's error event and closed it.
      count(ex.route, Status.UNAVAILABLE.httpStatus());
      return;
    }
    if (watch.gone) {
      // Cancelled because the client left: accounted as cancelled, nobody to tell.
      count(ex.route, CLIENT_CLOSED);
      ex.fail(new IOException("the client closed the stream"));
      return;
    }
    if (live.cut && result.outcome() == UsageOutcome.CANCELLED) {
      cutByShutdown(ex, h, live.started, result);
      return;
    }
    if (untranslatable[0] != null) {
      // Accounted (cancelled, charged for what was streamed); the client is told why.
      if (!live.started) {
        resultHeaders(h, result);
        throw untranslatable[0];
      }
      count(ex.route, untranslatable[0].status().httpStatus());
      writeQuietly(ex, false, streamEvent(ex, ErrorAnswer.of(untranslatable[0],
          options.requestId())));
      ex.fail(new IOException("the stream has no Messages form: " + untranslatable[0].rule()));
      return;
    }
    if (!live.started) {
      // No chunk at all (an empty answer): the headers can still carry everything.
      resultHeaders(h, result);
      h.put(HttpHeader.CONTENT_TYPE, "text/event-stream");
      ex.response.setStatus(200);
    }
    try {
      if (events != null) {
        List<StreamEvent> end = events.finish(usageChunk[0] != null ? usageChunk[0].usage()
            : result.response() == null ? null : result.response().usage());
        // message_delta (stop reason, usage), the cost comment, then message_stop.
        ex.write(false, sse(end.subList(0, end.size() - 1)));
        ex.write(false, costComment(result));
        ex.write(true, end.get(end.size() - 1).sse());
        count(ex.route, 200);
        return;
      }
      if (usageChunk[0] != null) {
        ex.write(false, frame(StreamCost.withCost(usageChunk[0], result)));
      }
      ex.write(false, costComment(result));
      ex.write(true, DONE);
      count(ex.route, 200);
    } catch (IOException e) {
      count(ex.route, CLIENT_CLOSED);
      ex.fail(e);
    }
  }

  /**
   * A stream the graceful shutdown cancelled once the drain window was over: the call is
   * accounted (cancelled, charged for what was streamed); the client gets the cost comment and
   * an error event instead of {@code [DONE]}, or a 503 if nothing was sent yet.
   */
  private void cutByShutdown(Exchange ex, HttpFields.Mutable h, boolean started,
      ChatResult result) throws IOException {
    String message = "the server is shutting down: the stream outlived the drain window ("
        + facade.config().drainSeconds() + " s) and was cancelled; it is accounted as"
        + " cancelled, charged " + result.costMicros() + " micro-units for what was streamed";
    if (!started) {
      resultHeaders(h, result);
      error(ex, ex.route, Status.UNAVAILABLE, SHUTTING_DOWN, message);
      return;
    }
    count(ex.route, Status.UNAVAILABLE.httpStatus());
    writeQuietly(ex, false, costComment(result));
    writeQuietly(ex, true, errorEvent(ex, Status.UNAVAILABLE, SHUTTING_DOWN, message));
  }

  private static byte[] costComment(ChatResult result) {
    return (": pointsman event_id=" + result.eventId() + " cost_micros=" + result.costMicros()
        + " cost_estimated=" + result.costEstimated() + " cache="
        + result.cacheStatus().label() + "\n\n").getBytes(StandardCharsets.UTF_8);
  }

  private static byte[] errorEvent(Exchange ex, Status status, String code, String message) {
    return streamEvent(ex, ErrorAnswer.of(status, code, message, "req-" + UUID.randomUUID()));
  }

  /** The error event that ends a started stream, in the exchange's API. */
  private static byte[] streamEvent(Exchange ex, ErrorAnswer a) {
    return ex.api == Api.OPENAI ? a.streamEvent() : a.anthropicStreamEvent();
  }

  private static byte[] sse(List<StreamEvent> events) {
    if (events.isEmpty()) {
      return new byte[0];
    }
    if (events.size() == 1) {
      return events.get(0).sse();
    }
    java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
    for (StreamEvent e : events) {
      out.writeBytes(e.sse());
    }
    return out.toByteArray();
  }

  private static byte[] frame(ChatChunk chunk) {
    byte[] json = Json.writeBytes(chunk);
    byte[] out = new byte[json.length + DATA.length + 2];
    System.arraycopy(DATA, 0, out, 0, DATA.length);
    System.arraycopy(json, 0, out, DATA.length, json.length);
    out[out.length - 2] = '\n';
    out[out.length - 1] = '\n';
    return out;
  }

  private static void resultHeaders(HttpFields.Mutable h, ChatResult r) {
    resultHeaders(h, r.requestId(), r.eventId(), r.cacheStatus(), r.costMicros(),
        r.costEstimated(), r.attempts(), r.deploymentId(), r.remaining());
  }

  private static void resultHeaders(HttpFields.Mutable h, EmbeddingResult r) {
    resultHeaders(h, r.requestId(), r.eventId(), r.cacheStatus(), r.costMicros(),
        r.costEstimated(), r.attempts(), r.deploymentId(), r.remaining());
  }

  private static void resultHeaders(HttpFields.Mutable h, String requestId, String eventId,
      io.pointsman.CacheStatus cache, long costMicros, boolean costEstimated, int attempts,
      String deploymentId, java.util.List<LimitRemaining> remaining) {
    h.put("x-request-id", requestId);
    h.put("x-pointsman-event-id", eventId);
    h.put("x-pointsman-cache", cache.label());
    h.put("x-pointsman-cost-micros", Long.toString(costMicros));
    h.put("x-pointsman-cost-estimated", Boolean.toString(costEstimated));
    h.put("x-pointsman-attempts", Integer.toString(attempts));
    if (deploymentId != null) {
      h.put("x-pointsman-deployment", deploymentId);
    }
    if (remaining != null) {
      for (LimitRemaining l : remaining) {
        String name = HEADER_NAME.matcher(l.rule().toLowerCase(Locale.ROOT)).replaceAll("-");
        h.put("x-ratelimit-limit-" + name, Long.toString(l.limit()));
        h.put("x-ratelimit-remaining-" + name, Long.toString(l.remaining()));
        if (l.resetsAt() != null) {
          h.put("x-ratelimit-reset-" + name, l.resetsAt().toString());
        }
      }
    }
  }

  // ---------------------------------------------------------------- embeddings

  /**
   * {@code POST /v1/embeddings}: the chat route's key check, body limits, bulkheads, errors
   * and disconnect handling, with {@link io.pointsman.Gateway#embed} as the call.
   */
  private void embeddings(Exchange ex) {
    receive(ex, "embeddings", (e, body, options) -> onBulkhead(e, "embeddings", () -> {
      EmbeddingRequest request = Json.read(body, EmbeddingRequest.class);
      return new Admitted(request.model(), () -> watched(e, "embeddings", watch -> {
        EmbeddingResult result = facade.gateway().embed(request, options);
        answerWatched(e, "embeddings", watch, h -> resultHeaders(h, result),
            Json.writeBytes(result.response()));
      }));
    }));
  }

  // ---------------------------------------------------------------- client watch

  /**
   * A running call's connection, watched for its client leaving. HTTP/1.1: the socket is read
   * (it holds nothing else while the call runs) and end-of-stream means the client closed it.
   * HTTP/2: the stream's reset fails the request.
   */
  private final class Watch {
    private final Thread worker;
    private final SocketChannel channel;
    volatile LiveStream live;
    volatile boolean gone;
    volatile boolean pipelined;
    private boolean active = true;

    Watch(Thread worker, SocketChannel channel) {
      this.worker = worker;
      this.channel = channel;
    }

    /** The client left: cancel the stream, or interrupt the waiting call. */
    void clientGone() {
      synchronized (this) {
        if (!active || gone || stopping) {
          return;
        }
        gone = true;
        LiveStream s = live;
        StreamControl c = s == null ? null : s.control;
        if (c == null) {
          // A plain call, or a stream before its first chunk, waits in the gateway, which
          // reads an interrupt as the caller cancelling.
          worker.interrupt();
        } else {
          // Ends the stream at its next chunk, accounted as cancelled; an upstream that sends
          // none soon is not waited for.
          c.cancel();
          timers.schedule(this::interruptIfRunning, SILENT_MILLIS, TimeUnit.MILLISECONDS);
        }
      }
      LOG.debug("the client left a running call: cancelling it");
    }

    synchronized void interruptIfRunning() {
      if (active) {
        worker.interrupt();
      }
    }

    /** Stops watching; no read of the socket happens after this returns. */
    void stop() {
      watched.remove(this);
      synchronized (this) {
        active = false;
      }
    }

    /** Reads the socket once, unless stopped; under the watch's lock, so stop() waits. */
    synchronized void poll(ByteBuffer one) {
      if (!active) {
        return;
      }
      try {
        one.clear();
        int n = channel.read(one);
        if (n < 0) {
          watched.remove(this);
          clientGone();
        } else if (n > 0) {
          // A pipelined request: it cannot be handed back, so this connection ends after the
          // running call's response.
          watched.remove(this);
          pipelined = true;
        }
      } catch (IOException | RuntimeException e) {
        watched.remove(this);
        clientGone();
      }
    }

    void end() {
      stop();
      // An interrupt meant for this call must not reach the next one on this thread.
      Thread.interrupted();
    }
  }

  private Watch watch(Exchange ex) {
    EndPoint endPoint = ex.request.getConnectionMetaData().getConnection().getEndPoint();
    Object transport = endPoint.getTransport();
    boolean h2 = ex.request.getConnectionMetaData().getHttpVersion() == HttpVersion.HTTP_2;
    Watch w = new Watch(Thread.currentThread(),
        !h2 && transport instanceof SocketChannel sc ? sc : null);
    // A call that is slow on the server's side (a provider, a counters' rebuild) is not the
    // client's idleness: the idle timeout does not end it.
    ex.request.addIdleTimeoutListener(t -> false);
    if (w.channel != null) {
      watched.add(w);
    } else {
      // HTTP/2: a reset stream fails the request.
      ex.request.addFailureListener(t -> w.clientGone());
    }
    return w;
  }

  /** Looks at every watched HTTP/1.1 connection once. */
  private void watchClients() {
    ByteBuffer one = ByteBuffer.allocate(1);
    for (Watch w : watched) {
      w.poll(one);
    }
  }

  /** Closes a connection that has not delivered its first request's headers in time. */
  private final class HeaderTimeout implements Connection.Listener {
    @Override
    public void onOpened(Connection connection) {
      timers.schedule(() -> {
        if (connection.getMessagesIn() == 0 && connection.getEndPoint().isOpen()) {
          LOG.debug("closing a connection that sent no complete request header in {}",
              limits.headerTimeout());
          connection.getEndPoint().close();
        }
      }, limits.headerTimeout().toMillis(), TimeUnit.MILLISECONDS);
    }

    @Override
    public void onClosed(Connection connection) {
      // Nothing held per connection.
    }
  }

  // ---------------------------------------------------------------- count tokens

  /**
   * Counts a Messages request's input tokens for {@code /v1/messages/count_tokens}: the key must
   * be valid and may use the model. The count is the gateway's exact prompt count (o200k BPE,
   * images at the model's per-image bound), not Anthropic's tokenizer; no call is made, so no
   * ledger row is written.
   */
  private void countTokens(Exchange ex, byte[] body, String key) throws IOException {
    Identity identity = facade.authenticate(key);
    ChatRequest request = AnthropicMessages.toCountRequest(AnthropicMessages.readRequest(body));
    ModelSpec m = facade.models().find(request.model());
    if (m == null) {
      error(ex, ex.route, Status.NOT_FOUND, "model_not_found", "the model "
          + Json.quoteForMessage(request.model()) + " does not exist");
      return;
    }
    if (!identity.allows(m.name(), Set.copyOf(m.aliases()))) {
      error(ex, ex.route, Status.FORBIDDEN, "model_not_allowed", "this key may not use the model "
          + Json.quoteForMessage(request.model()));
      return;
    }
    long tokens = TokenBounds.exact(request.withModel(m.name()), m.imageTokens());
    json(ex, ex.route, 200, Json.writeBytes(Json.mapper().createObjectNode()
        .put("input_tokens", tokens)));
  }

  // ---------------------------------------------------------------- models

  private void models(Exchange ex, String id) throws IOException {
    String key = bearer(ex);
    if (key == null) {
      error(ex, "models", Status.UNAUTHORIZED, "invalid_api_key",
          "missing Authorization: Bearer <virtual key>");
      return;
    }
    Identity identity = facade.authenticate(key);
    if (id != null) {
      ModelSpec m = facade.models().find(id);
      if (m == null || !identity.allows(m.name(), Set.copyOf(m.aliases()))) {
        error(ex, "models", Status.NOT_FOUND, "model_not_found", "the model "
            + Json.quoteForMessage(id) + " does not exist or this key may not use it");
        return;
      }
      json(ex, "models", 200, Json.writeBytes(modelJson(m, id)));
      return;
    }
    ObjectNode list = Json.mapper().createObjectNode().put("object", "list");
    ArrayNode data = list.putArray("data");
    for (ModelSpec m : facade.models().models()) {
      if (identity.allows(m.name(), Set.copyOf(m.aliases()))) {
        data.add(modelJson(m, m.name()));
      }
    }
    json(ex, "models", 200, Json.writeBytes(list));
  }

  private static ObjectNode modelJson(ModelSpec m, String id) {
    return Json.mapper().createObjectNode().put("id", id).put("object", "model")
        .put("created", 0).put("owned_by", "pointsman");
  }

  // ---------------------------------------------------------------- metrics and health

  private void health(Exchange ex) {
    // Read from the background checks' last results: never waits on a component.
    inFlight.incrementAndGet();
    try {
      Map<String, HealthMonitor.Component> components = facade.health().snapshot();
      ObjectNode out = Json.mapper().createObjectNode();
      ArrayNode failed = Json.mapper().createArrayNode();
      for (HealthMonitor.Component c : components.values()) {
        if (!c.up() && c.required()) {
          failed.add(c.name());
        }
      }
      boolean ok = !closed && failed.isEmpty();
      out.put("status", closed ? "draining" : ok ? "ok" : "failing");
      out.set("failed", failed);
      ObjectNode comps = out.putObject("components");
      for (HealthMonitor.Component c : components.values()) {
        ObjectNode n = comps.putObject(c.name()).put("status", c.up() ? "up" : "down")
            .put("required", c.required()).put("detail", c.detail());
        if (c.checkedAt() == null) {
          n.putNull("checkedAt");
        } else {
          n.put("checkedAt", c.checkedAt().toString());
        }
      }
      json(ex, "health", ok ? 200 : 503, Json.writeBytes(out));
    } catch (IOException | RuntimeException e) {
      count("health", CLIENT_CLOSED);
    } finally {
      ex.complete();
      exchangeEnded();
    }
  }

  private void metrics(Exchange ex) throws IOException {
    byte[] text = PrometheusText.render(facade, requests).getBytes(StandardCharsets.UTF_8);
    ex.response.getHeaders().put(HttpHeader.CONTENT_TYPE,
        "text/plain; version=0.0.4; charset=utf-8");
    ex.response.setStatus(200);
    ex.write(true, text);
    count("metrics", 200);
  }

  // ---------------------------------------------------------------- admin

  /** Admin requests may wait on PostgreSQL: they run on their own small pool. */
  private void adminAsync(Exchange ex, String path, String method) {
    try {
      admin.execute(() -> guard(ex, "admin", () -> admin(ex, path, method)));
    } catch (RejectedExecutionException e) {
      guard(ex, "admin", () -> error(ex, "admin", Status.UNAVAILABLE, "admin_busy",
          "too many admin requests in flight"));
    }
  }

  private void admin(Exchange ex, String path, String method) throws IOException {
    String token = facade.config().adminToken();
    String presented = bearer(ex);
    if (token == null || presented == null || !MessageDigest.isEqual(
        token.getBytes(StandardCharsets.UTF_8), presented.getBytes(StandardCharsets.UTF_8))) {
      error(ex, "admin", Status.UNAUTHORIZED, "invalid_admin_token",
          token == null ? "the admin endpoints are disabled (no admin token configured)"
              : "a valid admin token is required");
      return;
    }
    String allow;
    switch (path) {
      case "/admin/budgets", "/admin/quarantine" -> allow = GET;
      case "/admin/quarantine/redrive", "/admin/holds/reconcile" -> allow = POST;
      default -> {
        String rest = path.startsWith("/admin/holds/") ? path.substring("/admin/holds/"
            .length()) : "";
        if (rest.endsWith("/attest") && rest.length() > "/attest".length()
            && rest.indexOf('/') == rest.length() - "/attest".length()) {
          allow = POST;
        } else if (!rest.isEmpty() && !rest.contains("/")) {
          allow = GET;
        } else {
          error(ex, "admin", Status.NOT_FOUND, "not_found", "no such admin route: " + method
              + " " + path);
          return;
        }
      }
    }
    if (!allow.equals(method)) {
      ex.response.getHeaders().put(HttpHeader.ALLOW, allow);
      json(ex, "admin", 405, Json.writeBytes(errorBody("method_not_allowed",
          "method_not_allowed", "use " + allow + " on " + path)));
      return;
    }
    if ("/admin/budgets".equals(path)) {
      ObjectNode out = Json.mapper().createObjectNode();
      for (Map.Entry<String, BudgetState> e : facade.limiter().budgets().entrySet()) {
        out.putObject(e.getKey()).put("limitMicros", e.getValue().limitMicros())
            .put("spentMicros", e.getValue().spentMicros())
            .put("heldMicros", e.getValue().heldMicros());
      }
      json(ex, "admin", 200, Json.writeBytes(out));
      return;
    }
    if ("/admin/quarantine".equals(path)) {
      ArrayNode items = Json.mapper().createArrayNode();
      for (QuarantinedItem q : facade.settlement().quarantined()) {
        items.addObject().put("quarantineId", q.quarantineId()).put("kind", q.kind().name())
            .put("eventId", q.eventId()).put("reasonKind", q.reasonKind().name())
            .put("reason", q.reason()).put("sqlState", q.sqlState())
            .put("heldMicros", q.heldMicros())
            .put("quarantinedAt", String.valueOf(q.quarantinedAt()))
            .put("lastTriedAt", String.valueOf(q.lastTriedAt())).put("tries", q.tries());
      }
      ObjectNode out = Json.mapper().createObjectNode();
      out.set("items", items);
      json(ex, "admin", 200, Json.writeBytes(out));
      return;
    }
    if ("/admin/quarantine/redrive".equals(path)) {
      RedriveReport r = facade.settlement().redriveQuarantined();
      ObjectNode out = Json.mapper().createObjectNode();
      ArrayNode done = out.putArray("redriven");
      r.redriven().forEach(done::add);
      ArrayNode still = out.putArray("stillQuarantined");
      r.stillQuarantined().forEach(still::add);
      json(ex, "admin", 200, Json.writeBytes(out));
      return;
    }
    if ("/admin/holds/reconcile".equals(path)) {
      int left = facade.reconcileHolds();
      json(ex, "admin", 200, ("{\"unresolved\":" + left + "}")
          .getBytes(StandardCharsets.UTF_8));
      return;
    }
    String rest = path.substring("/admin/holds/".length());
    if (GET.equals(method)) {
      Optional<Hold> hold = facade.settlement().hold(rest);
      if (hold.isEmpty()) {
        error(ex, "admin", Status.NOT_FOUND, "hold_not_found", "no hold for " + rest);
      } else {
        json(ex, "admin", 200, Json.writeBytes(holdJson(hold.get())));
      }
      return;
    }
    String eventId = rest.substring(0, rest.length() - "/attest".length());
    byte[] body = readSmallBody(ex);
    JsonNode a = body == null ? null : Json.mapper().readTree(body);
    if (a == null || !a.path("costMicros").canConvertToLong()
        || !a.path("epoch").canConvertToLong() || !a.path("evidence").isTextual()) {
      error(ex, "admin", Status.BAD_REQUEST, "invalid_attestation",
          "an attestation needs costMicros, epoch and evidence");
      return;
    }
    Usage usage = a.has("promptTokens") ? Usage.of(a.path("promptTokens").asLong(),
        a.path("completionTokens").asLong()) : null;
    HoldDecision d;
    try {
      d = facade.attest(eventId, usage, a.path("costMicros").asLong(),
          a.path("evidence").asText(), a.path("epoch").asLong());
    } catch (IllegalArgumentException e) {
      error(ex, "admin", Status.BAD_REQUEST, "invalid_attestation", e.getMessage());
      return;
    }
    ObjectNode out = Json.mapper().createObjectNode().put("verdict", d.verdict().name())
        .put("eventId", d.eventId()).put("epoch", d.epoch()).put("message", d.message());
    json(ex, "admin", d.accepted() ? 200 : 409, Json.writeBytes(out));
  }

  private static ObjectNode holdJson(Hold h) {
    return Json.mapper().createObjectNode().put("eventId", h.eventId())
        .put("reservationId", h.reservationId()).put("state", h.state().name())
        .put("heldMicros", h.heldMicros()).put("worstCaseMicros", h.worstCaseMicros())
        .put("floorMicros", h.floorMicros()).put("chargedMicros", h.chargedMicros())
        .put("epoch", h.epoch()).put("holdUntil", String.valueOf(h.holdUntil()));
  }

  /** The largest admin body read (an attestation is a few hundred bytes). */
  private static final int MAX_ADMIN_BODY = 64 << 10;

  /** Reads an admin body, or returns null when it exceeds {@link #MAX_ADMIN_BODY}. */
  private static byte[] readSmallBody(Exchange ex) throws IOException {
    try {
      java.util.concurrent.CompletableFuture<byte[]> body =
          new java.util.concurrent.CompletableFuture<>();
      Content.Source.asByteArrayAsync(ex.request, MAX_ADMIN_BODY,
          Promise.Invocable.toPromise(body));
      return body.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while reading the body", e);
    } catch (java.util.concurrent.ExecutionException e) {
      if (e.getCause() instanceof IllegalArgumentException) {
        return null;
      }
      throw new IOException("the body could not be read", e.getCause());
    }
  }

  // ---------------------------------------------------------------- plumbing

  /** One request and its response; completed exactly once. */
  private static final class Exchange {
    final Request request;
    final Response response;
    /** The API the route speaks. */
    final Api api;
    /** The route's name in the metrics. */
    final String route;
    private final Callback callback;
    private final AtomicBoolean completed = new AtomicBoolean();

    Exchange(Request request, Response response, Callback callback, Api api) {
      this.request = request;
      this.response = response;
      this.callback = callback;
      this.api = api;
      this.route = api.route;
    }

    /** Writes and waits until the bytes are handed to the network (back-pressure). */
    void write(boolean last, byte[] bytes) throws IOException {
      try (Blocker.Callback cb = Blocker.callback()) {
        response.write(last, ByteBuffer.wrap(bytes), cb);
        cb.block();
      }
    }

    void complete() {
      if (completed.compareAndSet(false, true)) {
        callback.succeeded();
      }
    }

    void fail(Throwable cause) {
      if (completed.compareAndSet(false, true)) {
        callback.failed(cause);
      }
    }
  }

  /** The API of a route: its request and answer shapes. */
  private enum Api {
    /** OpenAI's: chat completions and every route but the Messages API's. */
    OPENAI("chat"),
    /** Anthropic's Messages API, {@code /v1/messages}. */
    MESSAGES("messages"),
    /** Anthropic's {@code /v1/messages/count_tokens}. */
    COUNT_TOKENS("count_tokens");

    final String route;

    Api(String route) {
      this.route = route;
    }

    static Api of(String path) {
      return switch (path) {
        case "/v1/messages" -> MESSAGES;
        case "/v1/messages/count_tokens" -> COUNT_TOKENS;
        default -> OPENAI;
      };
    }
  }

  /** A handler body that may throw. */
  @FunctionalInterface
  private interface Body {
    void handle() throws IOException;
  }

  private void guard(Exchange ex, String route, Body h) {
    inFlight.incrementAndGet();
    try {
      if (closed) {
        error(ex, route, Status.UNAVAILABLE, SHUTTING_DOWN, "the server is shutting down");
        return;
      }
      h.handle();
    } catch (PointsmanException e) {
      refused(ex, route, e);
    } catch (UncheckedIOException | IOException e) {
      count(route, CLIENT_CLOSED);
      ex.fail(e);
    } catch (RuntimeException e) {
      unexpected(ex, route, e);
    } finally {
      ex.complete();
      exchangeEnded();
    }
  }

  /** Answers a gateway's typed refusal. */
  private void refused(Exchange ex, String route, PointsmanException e) {
    try {
      answer(ex, route, ErrorAnswer.of(e, requestId(ex)));
    } catch (IOException | RuntimeException failure) {
      // Headers were already sent or the client went away; nothing more can be said.
      count(route, CLIENT_CLOSED);
      ex.fail(failure);
    }
  }

  private void unexpected(Exchange ex, String route, Exception e) {
    LOG.error("unexpected failure on {}", route, e);
    errorQuietly(ex, route, Status.INTERNAL, "internal_error", "internal error");
  }

  private void exchangeEnded() {
    if (inFlight.decrementAndGet() == 0 && closed) {
      synchronized (inFlight) {
        inFlight.notifyAll();
      }
    }
  }

  private void errorQuietly(Exchange ex, String route, Status status, String code,
      String message) {
    try {
      error(ex, route, status, code, message);
    } catch (IOException | RuntimeException e) {
      // Headers were already sent or the client went away; nothing more can be said.
      count(route, CLIENT_CLOSED);
      ex.fail(e);
    }
  }

  /** Sends an error with an HTTP status that {@link Status} has no constant for. */
  private void finishQuietly(Exchange ex, String route, Status type, int httpStatus,
      String code, String message) {
    try {
      json(ex, route, httpStatus, errorBytes(ex, httpStatus,
          type.name().toLowerCase(Locale.ROOT), code, message));
    } catch (IOException | RuntimeException e) {
      count(route, CLIENT_CLOSED);
      ex.fail(e);
    } finally {
      ex.complete();
    }
  }

  private void error(Exchange ex, String route, Status status, String code, String message)
      throws IOException {
    answer(ex, route, ErrorAnswer.of(status, code, message, requestId(ex)));
  }

  /** Writes an answer in OpenAI's error contract, with its headers. */
  private void answer(Exchange ex, String route, ErrorAnswer a) throws IOException {
    HttpFields.Mutable h = ex.response.getHeaders();
    if (a.status() == Status.UNAUTHORIZED.httpStatus()) {
      h.put(HttpHeader.WWW_AUTHENTICATE, "Bearer");
    }
    a.headers().forEach(h::put);
    json(ex, route, a.status(), ex.api == Api.OPENAI ? a.body() : a.anthropicBody());
  }

  /** An error body the server layer makes itself, in the exchange's API. */
  private static byte[] errorBytes(Exchange ex, int httpStatus, String type, String code,
      String message) {
    if (ex.api != Api.OPENAI) {
      return AnthropicException.errorBody(AnthropicException.errorTypeOf(httpStatus), message);
    }
    return Json.writeBytes(errorBody(type, code, message));
  }

  private static ObjectNode errorBody(Status status, String code, String message) {
    return errorBody(status.name().toLowerCase(Locale.ROOT), code, message);
  }

  private static ObjectNode errorBody(String type, String code, String message) {
    ObjectNode body = Json.mapper().createObjectNode();
    body.putObject("error").put("message", message).put("type", type).put("code", code)
        .putNull("param");
    return body;
  }

  private void json(Exchange ex, String route, int status, byte[] body) throws IOException {
    if (!ex.response.getHeaders().contains("x-request-id")) {
      ex.response.getHeaders().put("x-request-id", requestId(ex));
    }
    if (ex.api != Api.OPENAI) {
      // Anthropic's SDKs read the request id from request-id.
      ex.response.getHeaders().put("request-id", ex.response.getHeaders().get("x-request-id"));
    }
    ex.response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/json");
    ex.response.setStatus(status);
    ex.write(true, body);
    count(route, status);
  }

  private void count(String route, int status) {
    requests.computeIfAbsent(route + "\u0000" + status, k -> new LongAdder()).increment();
  }

  /** The virtual key of a Messages call: {@code x-api-key}, else a bearer token. */
  private static String anthropicKey(Exchange ex) {
    String key = ex.request.getHeaders().get("x-api-key");
    if (key != null && !key.isBlank()) {
      return key.trim();
    }
    return bearer(ex);
  }

  private static String bearer(Exchange ex) {
    HttpField f = ex.request.getHeaders().getField(HttpHeader.AUTHORIZATION);
    String auth = f == null ? null : f.getValue();
    if (auth == null || !auth.regionMatches(true, 0, "Bearer ", 0, 7)) {
      return null;
    }
    String key = auth.substring(7).trim();
    return key.isEmpty() ? null : key;
  }

  private static void writeQuietly(Exchange ex, boolean last, byte[] bytes) {
    try {
      ex.write(last, bytes);
      if (last) {
        ex.complete();
      }
    } catch (IOException | RuntimeException e) {
      // The client is gone.
      ex.fail(e);
    }
  }

  /**
   * Shuts down gracefully: new requests are refused with 503, open exchanges get up to the
   * configured drain time to finish, then streams still open are cancelled through the gateway
   * (each is accounted as cancelled and charged for what was streamed; its client gets an SSE
   * error event instead of {@code [DONE]}) and given a short grace to settle; a stream whose
   * upstream sends nothing in that grace gets the error event from here and stays in flight
   * (its record, if never written, is an interrupted call at the next start). Then the server
   * stops and the facade closes (the journal drains into PostgreSQL). Idempotent.
   */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    awaitExchanges(Duration.ofSeconds(facade.config().drainSeconds()));
    if (!streams.isEmpty()) {
      LOG.warn("{} streams still open after the drain window of {} s: cancelling them",
          streams.size(), facade.config().drainSeconds());
      for (LiveStream s : streams) {
        s.cut = true;
        StreamControl c = s.control;
        if (c != null) {
          c.cancel();
        }
      }
      awaitExchanges(CANCEL_GRACE);
      for (LiveStream s : streams) {
        if (s.started && s.end()) {
          LOG.warn("a stream's upstream sent nothing for {} after its cancellation; ending"
              + " the client's stream without its record", CANCEL_GRACE);
          // The handler is blocked in the provider: only this thread can tell the client.
          writeQuietly(s.ex, true, errorEvent(s.ex, Status.UNAVAILABLE, SHUTTING_DOWN, "the server"
              + " is shutting down and the upstream sent nothing after the stream was"
              + " cancelled; the call is recorded as interrupted at the next start"));
        }
      }
    }
    stopQuietly();
    facade.close();
  }

  private void stopQuietly() {
    // Stopping closes every connection: that is the server leaving, not a client, so no call
    // still running is cancelled by it.
    for (Watch w : watched) {
      w.stop();
    }
    stopping = true;
    try {
      jetty.stop();
    } catch (Exception e) {
      LOG.warn("the HTTP server did not stop cleanly", e);
    }
    timers.shutdownNow();
    calls.shutdown();
    admin.shutdown();
  }

  private void awaitExchanges(Duration max) {
    long deadline = System.nanoTime() + max.toNanos();
    synchronized (inFlight) {
      long left;
      while (inFlight.get() > 0 && (left = deadline - System.nanoTime()) > 0) {
        try {
          TimeUnit.NANOSECONDS.timedWait(inFlight, left);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return;
        }
      }
    }
  }
}
