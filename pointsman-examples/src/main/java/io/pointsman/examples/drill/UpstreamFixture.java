package io.pointsman.examples.drill;

import com.fasterxml.jackson.databind.JsonNode;
import io.pointsman.model.Json;
import io.pointsman.provider.testing.FixtureResponse;
import io.pointsman.provider.testing.HttpFixtureServer;
import io.pointsman.provider.testing.RecordedRequest;
import java.io.IOException;
import java.net.URI;
import java.util.ArrayList;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A loopback OpenAI-compatible upstream for the drill: answers every chat completion with a
 * deterministic reply and usage (prompt tokens = a quarter of the request's bytes, completion
 * tokens = the reply's words), plain or streamed, or, while {@linkplain #hold() holding}, keeps
 * each request unanswered until {@linkplain #release() released}: a plain request before its
 * headers, a streamed one either before its headers or after two content frames. Thread-safe.
 */
final class UpstreamFixture implements AutoCloseable {
  private final HttpFixtureServer server = HttpFixtureServer.start();
  private final AtomicInteger received = new AtomicInteger();
  private final AtomicInteger heldNow = new AtomicInteger();
  private volatile CountDownLatch gate;
  private final List<String> prompts = java.util.Collections.synchronizedList(new ArrayList<>());

  UpstreamFixture() {
    server.recording(false);
    server.respondWith(this::respond);
  }

  URI uri() {
    return server.uri();
  }

  /** From now on, requests are held until {@link #release()}. */
  void hold() {
    gate = new CountDownLatch(1);
  }

  /** Lets every held request go and stops holding. */
  void release() {
    CountDownLatch g = gate;
    gate = null;
    if (g != null) {
      g.countDown();
    }
  }

  /** How many requests reached the upstream. */
  int received() {
    return received.get();
  }

  /** Waits until at least {@code total} requests reached the upstream; false on timeout. */
  boolean awaitReceived(int total, Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    synchronized (received) {
      long left;
      while (received.get() < total) {
        if ((left = deadline - System.nanoTime()) <= 0) {
          return false;
        }
        TimeUnit.NANOSECONDS.timedWait(received, left);
      }
    }
    return true;
  }

  /** How many requests are held right now (before headers or mid-stream). */
  int heldNow() {
    return heldNow.get();
  }

  /** How many requests so far carried the given text in a message. */
  long requestsContaining(String text) {
    synchronized (prompts) {
      return prompts.stream().filter(p -> p.contains(text)).count();
    }
  }

  private FixtureResponse respond(RecordedRequest r) {
    synchronized (received) {
      received.incrementAndGet();
      received.notifyAll();
    }
    JsonNode body;
    try {
      body = Json.mapper().readTree(r.body());
    } catch (IOException e) {
      return FixtureResponse.json(400, "{\"error\":{\"message\":\"bad json\"}}");
    }
    String prompt = body.path("messages").toString();
    prompts.add(prompt);
    boolean stream = body.path("stream").asBoolean(false);
    String reply = "Acknowledged: " + Integer.toHexString(prompt.hashCode()) + " done.";
    long promptTokens = (r.body().length + 3) / 4;
    long completionTokens = reply.split(" ").length;
    CountDownLatch g = gate;
    boolean midStream = stream && g != null && (prompt.hashCode() & 1) == 0;
    if (g != null && !midStream) {
      heldNow.incrementAndGet();
      try {
        // Held before any byte of the response; the drill kills the gateway meanwhile.
        g.await(10, TimeUnit.MINUTES);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      } finally {
        heldNow.decrementAndGet();
      }
    }
    String id = "chatcmpl-drill-" + received.get();
    if (!stream) {
      return FixtureResponse.json(200, "{\"id\":\"" + id + "\",\"object\":\"chat.completion\","
          + "\"created\":1741569952,\"model\":\"gpt-4o-mini\",\"choices\":[{\"index\":0,"
          + "\"message\":{\"role\":\"assistant\",\"content\":\"" + reply + "\"},"
          + "\"finish_reason\":\"stop\"}],\"usage\":{\"prompt_tokens\":" + promptTokens
          + ",\"completion_tokens\":" + completionTokens + ",\"total_tokens\":"
          + (promptTokens + completionTokens) + "}}");
    }
    List<String> frames = new ArrayList<>();
    String head = "data: {\"id\":\"" + id + "\",\"object\":\"chat.completion.chunk\","
        + "\"created\":1741569952,\"model\":\"gpt-4o-mini\",\"choices\":[{\"index\":0,"
        + "\"delta\":";
    frames.add(head + "{\"role\":\"assistant\",\"content\":\"\"},\"finish_reason\":null}]}\n\n");
    for (String word : reply.split(" ")) {
      frames.add(head + "{\"content\":\"" + word + " \"},\"finish_reason\":null}]}\n\n");
    }
    frames.add(head + "{},\"finish_reason\":\"stop\"}]}\n\n");
    frames.add("data: {\"id\":\"" + id + "\",\"object\":\"chat.completion.chunk\",\"created\":"
        + "1741569952,\"model\":\"gpt-4o-mini\",\"choices\":[],\"usage\":{\"prompt_tokens\":"
        + promptTokens + ",\"completion_tokens\":" + completionTokens + ",\"total_tokens\":"
        + (promptTokens + completionTokens) + "}}\n\n");
    frames.add("data: [DONE]\n\n");
    FixtureResponse sse = FixtureResponse.sse(frames);
    if (midStream) {
      // Two frames reach the gateway (and its client), then the upstream goes silent.
      heldNow.incrementAndGet();
      return sse.hangAfter(2);
    }
    return sse;
  }

  @Override
  public void close() {
    release();
    server.close();
  }
}
