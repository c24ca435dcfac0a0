package io.pointsman.examples.server;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.Headers;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.pointsman.CacheControl;
import io.pointsman.CallOptions;
import io.pointsman.ChatResult;
import io.pointsman.PointsmanException;
import io.pointsman.Status;
import io.pointsman.StreamControl;
import io.pointsman.StreamObserver;
import io.pointsman.catalog.ModelSpec;
import io.pointsman.ledger.Hold;
import io.pointsman.ledger.QuarantinedItem;
import io.pointsman.ledger.RedriveReport;
import io.pointsman.ledger.HoldDecision;
import io.pointsman.limits.BudgetState;
import io.pointsman.model.ChatChunk;
import io.pointsman.model.ChatRequest;
import io.pointsman.model.Json;
import io.pointsman.model.Usage;
import io.pointsman.spi.LimitRemaining;
import io.pointsman.spi.UsageOutcome;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.URI;
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
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An OpenAI-compatible HTTP server around a {@link Facade}'s gateway, on the JDK's
 * {@code com.sun.net.httpserver}. Existing OpenAI clients work through it unchanged: point
 * their base URL at {@code http://host:port/v1} and give a Pointsman virtual key as the API key.
 *
 * <ul>
 *   <li>{@code POST /v1/chat/completions}: plain and streamed ({@code "stream": true}, Server-Sent
 *       Events ending in {@code data: [DONE]}); {@code Authorization: Bearer <virtual key>};
 *       {@code X-Cache-Control: no-cache | no-store} (else the standard {@code Cache-Control}'s
 *       directives, {@link FacadeRequests#cacheControl}); {@code X-Request-Id} is passed through when
 *       well-formed (1 to 128 characters of {@code [A-Za-z0-9._:-]}), else one is made.
 *       Responses carry {@code x-request-id}, {@code x-pointsman-event-id},
 *       {@code x-pointsman-cache}, {@code x-pointsman-cost-micros},
 *       {@code x-pointsman-cost-estimated}, {@code x-pointsman-attempts} and, per matched
 *       limit, {@code x-ratelimit-limit-<rule>}, {@code x-ratelimit-remaining-<rule>} and
 *       {@code x-ratelimit-reset-<rule>}. A stream's cost is known only at its end: the usage
 *       chunk is held back and sent with it ({@link StreamCost}), and an SSE comment
 *       ({@code : pointsman cost_micros=...}) precedes {@code [DONE]}; the final events are
 *       written only after the call's usage record is durable.</li>
 *   <li>{@code GET /v1/models}: the models a valid key may see.</li>
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
 * <p>Errors are in OpenAI's error contract, as {@link ErrorAnswer} makes them (status, body and
 * headers, {@code x-request-id} on every answer). A stream that fails after its first event
 * ends with {@link ErrorAnswer#streamEvent()} and an aborted response (no terminating chunk). {@link #close()} refuses new requests, lets open exchanges finish
 * for the configured drain time, cancels the streams still open (accounted as cancelled, each
 * client told with an SSE error event), then closes the facade, which drains the journal into
 * PostgreSQL.
 */
public final class FacadeServer implements AutoCloseable {
  /** The largest request body accepted. */
  public static final int MAX_BODY_BYTES = 32 << 20;
  private static final Logger LOG = LoggerFactory.getLogger(FacadeServer.class);
  private static final Pattern HEADER_NAME = Pattern.compile("[^a-z0-9]+");
  private static final byte[] DATA = "data: ".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] DONE = "data: [DONE]\n\n".getBytes(StandardCharsets.US_ASCII);
  private static final String SHUTTING_DOWN = "shutting_down";
  /** How long cancelled streams get to end and be accounted after the drain window. */
  private static final Duration CANCEL_GRACE = Duration.ofSeconds(5);

  private final Facade facade;
  private final HttpServer server;
  private final ThreadPoolExecutor workers;
  private final Map<String, LongAdder> requests = new ConcurrentHashMap<>();
  private final AtomicInteger inFlight = new AtomicInteger();
  private final Set<LiveStream> streams = ConcurrentHashMap.newKeySet();
  private final Map<HttpExchange, String> requestIds = new ConcurrentHashMap<>();
  private volatile boolean closed;

  private FacadeServer(Facade facade, HttpServer server, ThreadPoolExecutor workers) {
    this.facade = facade;
    this.server = server;
    this.workers = workers;
  }

  /**
   * Starts serving the facade on 127.0.0.1 at the configured port (0 picks a free one). If the
   * configuration names a port file, the bound port is written to it (atomically) once the
   * server accepts connections. The server owns the facade from here on.
   *
   * @param facade the facade
   * @return the running server
   * @throws UncheckedIOException if the port cannot be bound
   */
  public static FacadeServer start(Facade facade) {
    FacadeConfig c = facade.config();
    HttpServer http;
    try {
      http = HttpServer.create(new InetSocketAddress("127.0.0.1", c.port()), 256);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot listen on port " + c.port(), e);
    }
    AtomicInteger n = new AtomicInteger();
    ThreadPoolExecutor workers = new ThreadPoolExecutor(256, 256, 30, TimeUnit.SECONDS,
        new LinkedBlockingQueue<>(4_096), r -> {
          Thread t = new Thread(r, "pointsman-http-" + n.incrementAndGet());
          t.setDaemon(true);
          return t;
        });
    workers.allowCoreThreadTimeOut(true);
    http.setExecutor(workers);
    FacadeServer s = new FacadeServer(facade, http, workers);
    http.createContext("/v1/chat/completions", s::chat);
    http.createContext("/v1/models", s::models);
    http.createContext("/metrics", s::metrics);
    http.createContext("/healthz", s::health);
    http.createContext("/admin/", s::admin);
    http.createContext("/", ex -> s.guard(ex, "other",
        () -> s.error(ex, "other", Status.NOT_FOUND, "not_found", "no such route: "
            + ex.getRequestURI().getPath())));
    http.start();
    if (c.portFile() != null) {
      writePortFile(Path.of(c.portFile()), http.getAddress().getPort());
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
    return server.getAddress().getPort();
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

  // ---------------------------------------------------------------- chat completions

  private void chat(HttpExchange ex) throws IOException {
    guard(ex, "chat", () -> {
      if (!"POST".equals(ex.getRequestMethod())) {
        error(ex, "chat", Status.NOT_FOUND, "method_not_allowed", "use POST");
        return;
      }
      String key = bearer(ex);
      if (key == null) {
        error(ex, "chat", Status.UNAUTHORIZED, "invalid_api_key",
            "missing Authorization: Bearer <virtual key>");
        return;
      }
      byte[] body = readBody(ex);
      if (body == null) {
        error(ex, "chat", Status.BAD_REQUEST, "request_too_large",
            "the request body exceeds " + MAX_BODY_BYTES + " bytes");
        return;
      }
      ChatRequest request = Json.readRequest(body);
      facade.checkCapabilities(request);
      CallOptions options = options(ex, key);
      if (Boolean.TRUE.equals(request.stream())) {
        stream(ex, request, options);
      } else {
        ChatResult result = facade.gateway().chat(request, options);
        Headers h = ex.getResponseHeaders();
        resultHeaders(h, result);
        h.set("Content-Type", "application/json");
        byte[] out = Json.writeBytes(result.response());
        ex.sendResponseHeaders(200, out.length);
        try (OutputStream os = ex.getResponseBody()) {
          os.write(out);
        }
        count("chat", 200);
      }
    });
  }

  private CallOptions options(HttpExchange ex, String key) {
    Headers in = ex.getRequestHeaders();
    CallOptions.Builder b = CallOptions.builder(key).requestId(requestId(ex));
    CacheControl cache = FacadeRequests.cacheControl(in.getFirst("X-Cache-Control"),
        in.getFirst("Cache-Control"));
    if (cache != null) {
      b.cacheControl(cache);
    }
    return b.build();
  }

  /**
   * An open stream, as the graceful shutdown sees it: its control (to cancel it through the
   * gateway) and who ends it. The handler and the shutdown each write their final bytes only
   * if the other did not end the stream first.
   */
  private static final class LiveStream {
    final OutputStream os;
    volatile StreamControl control;
    /** Whether the response headers were sent (an SSE event can then still be written). */
    volatile boolean started;
    /** Set by the shutdown: the stream outlived the drain window and is being cancelled. */
    volatile boolean cut;
    private boolean ended;

    LiveStream(OutputStream os) {
      this.os = os;
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

  private void stream(HttpExchange ex, ChatRequest request, CallOptions options)
      throws IOException {
    Headers h = ex.getResponseHeaders();
    boolean[] started = {false};
    ChatChunk[] usageChunk = {null};
    OutputStream os = ex.getResponseBody();
    LiveStream live = new LiveStream(os);
    streams.add(live);
    ChatResult result;
    try {
      result = facade.gateway().stream(request, options, new StreamObserver() {
        @Override
        public void onStart(StreamControl control) {
          live.control = control;
          if (live.cut) {
            control.cancel();
          }
        }

        @Override
        public void onChunk(ChatChunk chunk) {
          synchronized (live) {
            if (live.ended()) {
              // The shutdown ended this stream for a silent upstream; stop here, accounted.
              live.control.cancel();
              return;
            }
            if (StreamCost.isUsageChunk(chunk)) {
              // Sent with the call's cost once the record is durable.
              usageChunk[0] = chunk;
              return;
            }
            try {
              if (!started[0]) {
                h.set("Content-Type", "text/event-stream");
                h.set("Cache-Control", "no-cache");
                h.set("x-request-id", options.requestId());
                ex.sendResponseHeaders(200, 0);
                started[0] = true;
                live.started = true;
              }
              os.write(frame(chunk));
              os.flush();
            } catch (IOException e) {
              // The client went away: throwing cancels the stream; the call is still accounted.
              throw new UncheckedIOException("the client closed the stream", e);
            }
          }
        }
      });
    } catch (PointsmanException e) {
      streams.remove(live);
      if (!started[0]) {
        throw e;
      }
      // Output already reached the client: end the stream with an error event, then abort the
      // response (no terminating chunk), so that every client reports an error.
      count("chat", e.status().httpStatus());
      if (live.end()) {
        writeQuietly(os, ErrorAnswer.of(e, options.requestId()).streamEvent());
        throw new AbortedResponse(os);
      }
      return;
    } catch (UncheckedIOException e) {
      streams.remove(live);
      count("chat", 499);
      closeQuietly(os);
      return;
    }
    streams.remove(live);
    if (!live.end()) {
      // The shutdown already wrote this stream's error event and closed it.
      count("chat", Status.UNAVAILABLE.httpStatus());
      return;
    }
    if (live.cut && result.outcome() == UsageOutcome.CANCELLED) {
      cutByShutdown(ex, h, os, started[0], result);
      return;
    }
    if (!started[0]) {
      // No chunk at all (an empty answer): the headers can still carry everything.
      resultHeaders(h, result);
      h.set("Content-Type", "text/event-stream");
      ex.sendResponseHeaders(200, 0);
    }
    try {
      if (usageChunk[0] != null) {
        os.write(frame(StreamCost.withCost(usageChunk[0], result)));
      }
      os.write(costComment(result));
      os.write(DONE);
      os.close();
      count("chat", 200);
    } catch (IOException e) {
      count("chat", 499);
      closeQuietly(os);
    }
  }

  /**
   * A stream the graceful shutdown cancelled once the drain window was over: the call is
   * accounted (cancelled, charged for what was streamed); the client gets the cost comment and
   * an error event instead of {@code [DONE]}, or a 503 if nothing was sent yet.
   */
  private void cutByShutdown(HttpExchange ex, Headers h, OutputStream os, boolean started,
      ChatResult result) throws IOException {
    String message = "the server is shutting down: the stream outlived the drain window ("
        + facade.config().drainSeconds() + " s) and was cancelled; it is accounted as"
        + " cancelled, charged " + result.costMicros() + " micro-units for what was streamed";
    if (!started) {
      resultHeaders(h, result);
      error(ex, "chat", Status.UNAVAILABLE, SHUTTING_DOWN, message);
      return;
    }
    count("chat", Status.UNAVAILABLE.httpStatus());
    writeQuietly(os, costComment(result));
    writeQuietly(os, errorEvent(Status.UNAVAILABLE, SHUTTING_DOWN, message));
    closeQuietly(os);
  }

  private static byte[] costComment(ChatResult result) {
    return (": pointsman event_id=" + result.eventId() + " cost_micros=" + result.costMicros()
        + " cost_estimated=" + result.costEstimated() + " cache="
        + result.cacheStatus().label() + "\n\n").getBytes(StandardCharsets.UTF_8);
  }

  private static byte[] errorEvent(Status status, String code, String message) {
    return ErrorAnswer.of(status, code, message, "req-" + UUID.randomUUID()).streamEvent();
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

  private static void resultHeaders(Headers h, ChatResult r) {
    h.set("x-request-id", r.requestId());
    h.set("x-pointsman-event-id", r.eventId());
    h.set("x-pointsman-cache", r.cacheStatus().label());
    h.set("x-pointsman-cost-micros", Long.toString(r.costMicros()));
    h.set("x-pointsman-cost-estimated", Boolean.toString(r.costEstimated()));
    h.set("x-pointsman-attempts", Integer.toString(r.attempts()));
    if (r.deploymentId() != null) {
      h.set("x-pointsman-deployment", r.deploymentId());
    }
    if (r.remaining() != null) {
      for (LimitRemaining l : r.remaining()) {
        String name = HEADER_NAME.matcher(l.rule().toLowerCase(Locale.ROOT)).replaceAll("-");
        h.set("x-ratelimit-limit-" + name, Long.toString(l.limit()));
        h.set("x-ratelimit-remaining-" + name, Long.toString(l.remaining()));
        if (l.resetsAt() != null) {
          h.set("x-ratelimit-reset-" + name, l.resetsAt().toString());
        }
      }
    }
  }

  // ---------------------------------------------------------------- models

  private void models(HttpExchange ex) throws IOException {
    guard(ex, "models", () -> {
      String key = bearer(ex);
      if (key == null) {
        error(ex, "models", Status.UNAUTHORIZED, "invalid_api_key",
            "missing Authorization: Bearer <virtual key>");
        return;
      }
      io.pointsman.spi.Identity identity = facade.authenticate(key);
      ObjectNode list = Json.mapper().createObjectNode().put("object", "list");
      ArrayNode data = list.putArray("data");
      for (ModelSpec m : facade.models().models()) {
        if (!identity.allows(m.name(), java.util.Set.copyOf(m.aliases()))) {
          continue;
        }
        data.addObject().put("id", m.name()).put("object", "model").put("created", 0)
            .put("owned_by", "pointsman");
      }
      json(ex, "models", 200, Json.writeBytes(list));
    });
  }

  // ---------------------------------------------------------------- metrics and health

  private void health(HttpExchange ex) throws IOException {
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
      count("health", 499);
    } finally {
      ex.close();
      exchangeEnded();
    }
  }

  private void metrics(HttpExchange ex) throws IOException {
    guard(ex, "metrics", () -> {
      byte[] text = PrometheusText.render(facade, requests).getBytes(StandardCharsets.UTF_8);
      ex.getResponseHeaders().set("Content-Type", "text/plain; version=0.0.4; charset=utf-8");
      ex.sendResponseHeaders(200, text.length);
      try (OutputStream os = ex.getResponseBody()) {
        os.write(text);
      }
      count("metrics", 200);
    });
  }

  // ---------------------------------------------------------------- admin

  private void admin(HttpExchange ex) throws IOException {
    guard(ex, "admin", () -> {
      String token = facade.config().adminToken();
      String presented = bearer(ex);
      if (token == null || presented == null || !MessageDigest.isEqual(
          token.getBytes(StandardCharsets.UTF_8), presented.getBytes(StandardCharsets.UTF_8))) {
        error(ex, "admin", Status.UNAUTHORIZED, "invalid_admin_token",
            token == null ? "the admin endpoints are disabled (no admin token configured)"
                : "a valid admin token is required");
        return;
      }
      String path = ex.getRequestURI().getPath();
      String method = ex.getRequestMethod();
      if ("GET".equals(method) && "/admin/budgets".equals(path)) {
        ObjectNode out = Json.mapper().createObjectNode();
        for (Map.Entry<String, BudgetState> e : facade.limiter().budgets().entrySet()) {
          out.putObject(e.getKey()).put("limitMicros", e.getValue().limitMicros())
              .put("spentMicros", e.getValue().spentMicros())
              .put("heldMicros", e.getValue().heldMicros());
        }
        json(ex, "admin", 200, Json.writeBytes(out));
        return;
      }
      if ("GET".equals(method) && "/admin/quarantine".equals(path)) {
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
      if ("POST".equals(method) && "/admin/quarantine/redrive".equals(path)) {
        RedriveReport r = facade.settlement().redriveQuarantined();
        ObjectNode out = Json.mapper().createObjectNode();
        ArrayNode done = out.putArray("redriven");
        r.redriven().forEach(done::add);
        ArrayNode still = out.putArray("stillQuarantined");
        r.stillQuarantined().forEach(still::add);
        json(ex, "admin", 200, Json.writeBytes(out));
        return;
      }
      if ("POST".equals(method) && "/admin/holds/reconcile".equals(path)) {
        int left = facade.reconcileHolds();
        json(ex, "admin", 200, ("{\"unresolved\":" + left + "}")
            .getBytes(StandardCharsets.UTF_8));
        return;
      }
      if (path.startsWith("/admin/holds/")) {
        String rest = path.substring("/admin/holds/".length());
        if ("GET".equals(method) && !rest.contains("/")) {
          Optional<Hold> hold = facade.settlement().hold(rest);
          if (hold.isEmpty()) {
            error(ex, "admin", Status.NOT_FOUND, "hold_not_found", "no hold for " + rest);
          } else {
            json(ex, "admin", 200, Json.writeBytes(holdJson(hold.get())));
          }
          return;
        }
        if ("POST".equals(method) && rest.endsWith("/attest")) {
          String eventId = rest.substring(0, rest.length() - "/attest".length());
          byte[] body = readBody(ex);
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
          return;
        }
      }
      error(ex, "admin", Status.NOT_FOUND, "not_found", "no such admin route: " + method + " "
          + path);
    });
  }

  private static ObjectNode holdJson(Hold h) {
    return Json.mapper().createObjectNode().put("eventId", h.eventId())
        .put("reservationId", h.reservationId()).put("state", h.state().name())
        .put("heldMicros", h.heldMicros()).put("worstCaseMicros", h.worstCaseMicros())
        .put("floorMicros", h.floorMicros()).put("chargedMicros", h.chargedMicros())
        .put("epoch", h.epoch()).put("holdUntil", String.valueOf(h.holdUntil()));
  }

  // ---------------------------------------------------------------- plumbing

  /** A handler body that may throw. */
  @FunctionalInterface
  private interface Handler {
    void handle() throws IOException;
  }

  private void guard(HttpExchange ex, String route, Handler h) throws IOException {
    inFlight.incrementAndGet();
    boolean aborted = false;
    try {
      if (closed) {
        error(ex, route, Status.UNAVAILABLE, SHUTTING_DOWN, "the server is shutting down");
        return;
      }
      h.handle();
    } catch (PointsmanException e) {
      answerQuietly(ex, route, ErrorAnswer.of(e, requestId(ex)));
    } catch (AbortedResponse e) {
      // Leaving the handler with the exchange open makes the server drop the connection
      // without the terminating chunk.
      aborted = true;
      throw new IOException("response aborted after an error event", e);
    } catch (UncheckedIOException e) {
      count(route, 499);
    } catch (RuntimeException e) {
      LOG.error("unexpected failure on {}", route, e);
      errorQuietly(ex, route, Status.INTERNAL, "internal_error", "internal error");
    } finally {
      if (!aborted) {
        ex.close();
      }
      requestIds.remove(ex);
      exchangeEnded();
    }
  }

  private void exchangeEnded() {
    if (inFlight.decrementAndGet() == 0 && closed) {
      synchronized (inFlight) {
        inFlight.notifyAll();
      }
    }
  }

  private void errorQuietly(HttpExchange ex, String route, Status status, String code,
      String message) {
    try {
      error(ex, route, status, code, message);
    } catch (IOException | RuntimeException e) {
      // Headers were already sent or the client went away; nothing more can be said.
      count(route, 499);
    }
  }

  private void error(HttpExchange ex, String route, Status status, String code, String message)
      throws IOException {
    answer(ex, route, ErrorAnswer.of(status, code, message, requestId(ex)));
  }

  private void answerQuietly(HttpExchange ex, String route, ErrorAnswer a) {
    try {
      answer(ex, route, a);
    } catch (IOException | RuntimeException e) {
      // Headers were already sent or the client went away; nothing more can be said.
      count(route, 499);
    }
  }

  private void answer(HttpExchange ex, String route, ErrorAnswer a) throws IOException {
    Headers h = ex.getResponseHeaders();
    a.headers().forEach(h::set);
    json(ex, route, a.status(), a.body());
  }

  /**
   * The exchange's request id: the client's {@code X-Request-Id} when well-formed. Kept per
   * exchange here (the JDK server's exchange attributes are its context's, shared by all).
   */
  private String requestId(HttpExchange ex) {
    return requestIds.computeIfAbsent(ex,
        e -> FacadeRequests.requestId(e.getRequestHeaders().getFirst("X-Request-Id")));
  }

  /** Ends a handler whose response must be aborted rather than completed. */
  private static final class AbortedResponse extends RuntimeException {
    private static final long serialVersionUID = 1L;

    AbortedResponse(OutputStream os) {
      super("aborted", null, false, false);
      try {
        os.flush();
      } catch (IOException e) {
        // The client is gone; the abort follows anyway.
      }
    }
  }

  private void json(HttpExchange ex, String route, int status, byte[] body) throws IOException {
    ex.getResponseHeaders().set("Content-Type", "application/json");
    ex.sendResponseHeaders(status, body.length);
    try (OutputStream os = ex.getResponseBody()) {
      os.write(body);
    }
    count(route, status);
  }

  private void count(String route, int status) {
    requests.computeIfAbsent(route + "\u0000" + status, k -> new LongAdder()).increment();
  }

  private static String bearer(HttpExchange ex) {
    String auth = ex.getRequestHeaders().getFirst("Authorization");
    if (auth == null || !auth.regionMatches(true, 0, "Bearer ", 0, 7)) {
      return null;
    }
    String key = auth.substring(7).trim();
    return key.isEmpty() ? null : key;
  }

  /** Reads the body, or returns null when it exceeds {@link #MAX_BODY_BYTES}. */
  private static byte[] readBody(HttpExchange ex) throws IOException {
    try (InputStream in = ex.getRequestBody()) {
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      byte[] buf = new byte[16 * 1024];
      int n;
      while ((n = in.read(buf)) > 0) {
        if (out.size() + n > MAX_BODY_BYTES) {
          return null;
        }
        out.write(buf, 0, n);
      }
      return out.toByteArray();
    }
  }

  private static void writeQuietly(OutputStream os, byte[] bytes) {
    try {
      os.write(bytes);
    } catch (IOException e) {
      // The client is gone.
    }
  }

  private static void closeQuietly(OutputStream os) {
    try {
      os.close();
    } catch (IOException e) {
      // The client is gone.
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
          liveOutput(s);
        }
      }
    }
    server.stop(0);
    workers.shutdown();
    facade.close();
  }

  private static void liveOutput(LiveStream s) {
    writeQuietly(s.os, errorEvent(Status.UNAVAILABLE, SHUTTING_DOWN, "the server is shutting"
        + " down and the upstream sent nothing after the stream was cancelled; the call is"
        + " recorded as interrupted at the next start"));
    closeQuietly(s.os);
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
