package io.pointsman.examples.server;

import com.fasterxml.jackson.databind.JsonNode;
import io.pointsman.model.Json;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.function.Predicate;

/** HTTP helpers of the facade's lifecycle tests. */
final class FacadeHttp {
  private final HttpClient http = HttpClient.newBuilder()
      .version(HttpClient.Version.HTTP_1_1).build();
  private final int port;

  FacadeHttp(int port) {
    this.port = port;
  }

  static String chat(String text, boolean stream) {
    return "{\"model\":\"gpt-4o-mini\",\"temperature\":0,\"max_tokens\":50,\"stream\":" + stream
        + (stream ? ",\"stream_options\":{\"include_usage\":true}" : "")
        + ",\"messages\":[{\"role\":\"user\",\"content\":\"" + text + "\"}]}";
  }

  HttpResponse<String> post(String path, String bearer, String body) throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(uri(path))
        .POST(HttpRequest.BodyPublishers.ofString(body)).timeout(Duration.ofSeconds(60));
    if (bearer != null) {
      b.header("Authorization", "Bearer " + bearer);
    }
    return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  HttpResponse<String> get(String path, String bearer) throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(uri(path)).GET()
        .timeout(Duration.ofSeconds(60));
    if (bearer != null) {
      b.header("Authorization", "Bearer " + bearer);
    }
    return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  HttpClient client() {
    return http;
  }

  URI uri(String path) {
    return URI.create("http://127.0.0.1:" + port + path);
  }

  /** Polls /healthz until its answer satisfies the condition; returns that answer. */
  HttpResponse<String> awaitHealth(Predicate<HttpResponse<String>> condition, Duration max)
      throws Exception {
    long deadline = System.nanoTime() + max.toNanos();
    HttpResponse<String> r;
    do {
      r = get("/healthz", null);
      if (condition.test(r)) {
        return r;
      }
      Thread.sleep(100);
    } while (System.nanoTime() < deadline);
    throw new AssertionError("health never satisfied the condition within " + max
        + "; last answer " + r.statusCode() + " " + r.body());
  }

  static JsonNode json(HttpResponse<String> r) {
    try {
      return Json.mapper().readTree(r.body());
    } catch (java.io.IOException e) {
      throw new AssertionError("not JSON: " + r.body(), e);
    }
  }

  static boolean failed(HttpResponse<String> r, String component) {
    if (r.statusCode() != 503) {
      return false;
    }
    for (JsonNode n : json(r).path("failed")) {
      if (n.asText().equals(component)) {
        return true;
      }
    }
    return false;
  }
}
