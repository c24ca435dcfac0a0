package io.pointsman.examples.drill;

import static org.assertj.core.api.Assertions.assertThat;

import io.pointsman.auth.VirtualKeys;
import io.pointsman.examples.server.FacadeConfig;
import io.pointsman.ledger.testing.TestDatabase;
import io.pointsman.ledger.testing.TestDatabases;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * 64 clients at once each send a 30 MiB chat body under an invalid key to the facade running
 * as a child JVM with a 512 MiB heap ({@link ChildFacade}): each is refused with 401 from its
 * headers, its body is never buffered, and the process stays up with no out-of-memory error.
 */
class HostileBodiesTest {
  private static final int CLIENTS = 64;
  private static final int BODY = 30 << 20;

  @TempDir
  Path dir;

  @Test
  void sixtyFourLargeBodiesUnderAnInvalidKeyAreRefusedWithoutBufferingThem() throws Exception {
    String key = VirtualKeys.generate();
    try (TestDatabase db = TestDatabases.create()) {
      Path config = dir.resolve("facade.json");
      new FacadeConfig(0, dir.resolve("journal").toString(), db.jdbcUrl(), null, null, null,
          null, null, 0, 5, null, List.of(),
          List.of(new FacadeConfig.KeyEntry(key, "key-app", "checkout", "acme")), List.of(),
          dir.resolve("data").toString()).write(config);
      Path log = dir.resolve("facade.log");
      ChildFacade facade = ChildFacade.start(config, dir.resolve("port"), log);
      ExecutorService pool = Executors.newFixedThreadPool(CLIENTS);
      try {
        List<Future<String>> answers = new ArrayList<>();
        for (int i = 0; i < CLIENTS; i++) {
          answers.add(pool.submit(() -> sendLarge(facade.port())));
        }
        for (Future<String> a : answers) {
          assertThat(a.get(5, TimeUnit.MINUTES)).startsWith("HTTP/1.1 401");
        }
        assertThat(facade.alive()).isTrue();
        HttpResponse<String> health = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
            URI.create("http://127.0.0.1:" + facade.port() + "/healthz"))
            .timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(health.statusCode()).isEqualTo(200);
        HttpResponse<String> call = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
            URI.create("http://127.0.0.1:" + facade.port() + "/v1/chat/completions"))
            .header("Authorization", "Bearer " + key).timeout(Duration.ofSeconds(30))
            .POST(HttpRequest.BodyPublishers.ofString("{\"model\":\"gpt-4o-mini\",\"messages\":"
                + "[{\"role\":\"user\",\"content\":\"still here\"}]}")).build(),
            HttpResponse.BodyHandlers.ofString());
        assertThat(call.statusCode()).isEqualTo(200);
      } finally {
        pool.shutdownNow();
        facade.stop();
      }
      assertThat(Files.readString(log)).doesNotContain("OutOfMemoryError");
    }
  }

  /** Sends the headers and as much of the body as the server takes; returns the status line. */
  private static String sendLarge(int port) throws IOException {
    try (Socket s = new Socket("127.0.0.1", port)) {
      s.setSoTimeout(120_000);
      OutputStream out = s.getOutputStream();
      out.write(("POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer "
          + "pm-not-a-real-key\r\nContent-Type: application/json\r\nContent-Length: " + BODY
          + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
      byte[] chunk = new byte[64 << 10];
      java.util.Arrays.fill(chunk, (byte) 'a');
      chunk[0] = '{';
      try {
        for (int sent = 0; sent < BODY; sent += chunk.length) {
          out.write(chunk, 0, Math.min(chunk.length, BODY - sent));
          chunk[0] = 'a';
        }
        out.flush();
      } catch (IOException e) {
        // The server answered and closed without reading the rest: what it should do.
      }
      InputStream in = s.getInputStream();
      byte[] head = new byte[512];
      int n = in.read(head);
      return n <= 0 ? "closed without an answer" : new String(head, 0, n,
          StandardCharsets.US_ASCII);
    }
  }
}
