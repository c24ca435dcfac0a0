package io.pointsman.examples.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.pointsman.provider.testing.FixtureResponse;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The facade's upstream transport (Apache HttpClient 5, blocking reads) gives up an upstream
 * call whose client has left: the facade interrupts the call's thread, and the transport closes
 * the upstream connection that thread was blocked reading from, so the call ends.
 */
class FacadeUpstreamCancelTest {
  @TempDir
  Path dir;

  private ContractRig rig;

  @BeforeEach
  void setUp() {
    rig = new ContractRig(dir);
  }

  @AfterEach
  void tearDown() {
    rig.close();
  }

  @Test
  void aClientThatLeavesAPlainCallClosesTheUpstreamConnection() throws Exception {
    // The upstream would answer after an hour: only an abort of the blocked read ends the call.
    rig.upstreamAnswers(req -> FixtureResponse.json(200, "{\"id\":\"c1\",\"object\":"
        + "\"chat.completion\",\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":0,"
        + "\"message\":{\"role\":\"assistant\",\"content\":\"late\"},\"finish_reason\":"
        + "\"stop\"}],\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":1,"
        + "\"total_tokens\":4}}").headersDelay(Duration.ofHours(1)));
    String body = "{\"model\":\"" + ContractRig.MODEL + "\",\"max_tokens\":16,\"messages\":[{"
        + "\"role\":\"user\",\"content\":\"hi\"}]}";
    byte[] request = ("POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer "
        + rig.key + "\r\nContent-Type: application/json\r\nContent-Length: "
        + body.getBytes(StandardCharsets.UTF_8).length + "\r\n\r\n" + body)
        .getBytes(StandardCharsets.UTF_8);
    try (Socket client = new Socket(rig.server.baseUri().getHost(),
        rig.server.baseUri().getPort())) {
      OutputStream out = client.getOutputStream();
      out.write(request);
      out.flush();
      long until = System.nanoTime() + Duration.ofSeconds(20).toNanos();
      while (rig.upstreamCalls() == 0 && System.nanoTime() < until) {
        Thread.sleep(5);
      }
      assertThat(rig.upstreamCalls()).isEqualTo(1);
    }
    // The client has left while the upstream has not answered: the call ends, counted as 499.
    assertThat(rig.facadeAnswers(FacadeServer.CLIENT_CLOSED)).isEqualTo(1);
    assertThat(rig.upstreamCalls()).isEqualTo(1);
  }
}
