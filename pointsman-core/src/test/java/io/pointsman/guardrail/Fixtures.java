package io.pointsman.guardrail;

import io.pointsman.model.ChatRequest;
import io.pointsman.model.Message;
import io.pointsman.spi.Grant;
import io.pointsman.spi.Identity;
import java.nio.charset.StandardCharsets;
import java.util.Set;
import java.util.zip.CRC32;

/** Identities and fake secrets shared by the guardrail tests. */
final class Fixtures {
  private Fixtures() {}

  /** A fake GitHub token with a valid checksum; never issued. */
  static final String GITHUB_TOKEN = githubToken("Zq8TnV3wKp0LmXr7sYd2HcJb5GfA1e");
  /** A fake AWS access key id. */
  static final String AWS_KEY = "AKIAQ7MZ3VTXK2PLR5WN";

  static String githubToken(String body30) {
    CRC32 crc = new CRC32();
    crc.update(body30.getBytes(StandardCharsets.US_ASCII));
    return "ghp_" + body30 + SecretDetector.base62(crc.getValue(), 6);
  }

  static Identity identity(String key, String team, String org) {
    return new Identity(key, "user", team, org, Set.of(), Grant.all(), Grant.all(), Grant.all());
  }

  static Identity anyone() {
    return identity("k1", "t1", "o1");
  }

  static ChatRequest user(String text) {
    return ChatRequest.builder().model("gpt-test").addMessage(Message.user(text)).build();
  }
}
