package io.pointsman.model;

import static org.assertj.core.api.Assertions.assertThat;

import io.pointsman.PointsmanException;
import io.pointsman.Status;
import java.nio.charset.StandardCharsets;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/** The decoder answers any input with a request or a typed 400, never anything else. */
class JsonDecoderFuzzTest {
  private static final String VALID = "{\"model\":\"m\",\"messages\":[{\"role\":\"user\","
      + "\"content\":[{\"type\":\"text\",\"text\":\"hi\"}]}],\"temperature\":0,"
      + "\"tools\":[{\"type\":\"function\",\"function\":{\"name\":\"f\"}}],\"stop\":[\"x\"]}";

  @Property(tries = 2_000)
  void arbitraryBytesGiveARequestOrATyped400(@ForAll byte[] bytes) {
    check(bytes);
  }

  @Property(tries = 3_000)
  void mutatedValidDocumentsGiveARequestOrATyped400(@ForAll("mutations") String json) {
    check(json.getBytes(StandardCharsets.UTF_8));
  }

  @Provide
  Arbitrary<String> mutations() {
    Arbitrary<Integer> position = Arbitraries.integers().between(0, VALID.length() - 1);
    Arbitrary<Character> junk = Arbitraries.of('{', '}', '[', ']', '"', ',', ':', '\\', '0',
        'x', '\u0000', '\ud800', ' ', 'n', '-');
    return net.jqwik.api.Combinators.combine(position, junk, Arbitraries.integers().between(0, 2))
        .as((pos, c, op) -> switch (op) {
          case 0 -> VALID.substring(0, pos) + VALID.substring(pos + 1);
          case 1 -> VALID.substring(0, pos) + c + VALID.substring(pos);
          default -> VALID.substring(0, pos) + c + VALID.substring(pos + 1);
        });
  }

  private static void check(byte[] bytes) {
    try {
      ChatRequest request = Json.readRequest(bytes);
      assertThat(request).isNotNull();
    } catch (PointsmanException e) {
      assertThat(e.status()).isEqualTo(Status.BAD_REQUEST);
    }
  }
}
