package io.pointsman.model;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** {@link Json#writeString} writes the bytes Jackson's own writeString writes, for any text. */
class JsonStringWriteTest {
  private static final String[] PIECES = {"a", "Z", "0", " ", "?", "/", "~", "\u007f", "\"",
      "\\", "\n", "\t", "\u0000", "\u001f", "é", "ß", "中", "\uD83D\uDE00", "\uD800", "\uDC00",
      "\u2028"};

  private static String outcome(String s, boolean fast) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try {
      if (fast) {
        try (JsonGenerator g = Json.mapper().getFactory().createGenerator(out)) {
          Json.writeString(g, s);
        }
      } else {
        try (JsonGenerator g = new JsonFactory().createGenerator(out)) {
          g.writeString(s);
        }
      }
    } catch (IOException | RuntimeException e) {
      return "failed: " + e.getClass().getName();
    }
    return java.util.Base64.getEncoder().encodeToString(out.toByteArray());
  }

  @Test
  void writesTheSameBytesAsJacksonForGeneratedText() {
    SplittableRandom r = new SplittableRandom(7);
    for (int n = 0; n < 3_000; n++) {
      int length = n < 100 ? 250 + n : 250 + r.nextInt(2_000);
      StringBuilder b = new StringBuilder(length);
      // Mostly plain text, which takes the fast path, with one rare piece in some strings.
      int odd = r.nextInt(3) == 0 ? -1 : r.nextInt(length);
      for (int i = 0; i < length; i++) {
        b.append(i == odd ? PIECES[r.nextInt(PIECES.length)]
            : (char) ('a' + r.nextInt(26)));
      }
      String s = b.toString();
      assertThat(outcome(s, true)).as("text %s", s).isEqualTo(outcome(s, false));
    }
  }

  @Test
  void detectsEachCharacterThatNeedsEscapingAtEveryPositionOfAWord() {
    for (String odd : PIECES) {
      for (int at = 0; at < 300; at++) {
        String s = "x".repeat(at) + odd + "y".repeat(300 - at);
        assertThat(outcome(s, true)).as("%s at %d", odd, at).isEqualTo(outcome(s, false));
      }
    }
  }

  @Test
  void plainAsciiIsRecognisedAndEverythingNeedingCareIsNot() {
    String plain = "Why is the sky blue? Answer in one line; cite /docs/sky.md ~ ok.\u007f"
        .repeat(10);
    assertThat(Json.plain(plain.getBytes(java.nio.charset.StandardCharsets.UTF_8), plain))
        .isTrue();
    for (String odd : new String[] {"\"", "\\", "\n", "\u0000", "\u001f", "\uD800"}) {
      String s = plain + odd + plain;
      assertThat(Json.plain(s.getBytes(java.nio.charset.StandardCharsets.UTF_8), s))
          .as(odd).isFalse();
    }
  }

  @Test
  void aChatRequestWithALongPromptSerializesAsThroughJackson() throws IOException {
    String prompt = "Summarise: " + "lorem ipsum dolor sit amet? ".repeat(2_000);
    ChatRequest request = ChatRequest.builder().model("m").addMessage(Message.user(prompt))
        .build();
    // A copy of the mapper is another codec, so its generators never take the fast path.
    assertThat(Json.writeBytes(request))
        .isEqualTo(Json.mapper().copy().writeValueAsBytes(request));
    assertThat(new String(Json.writeBytes(request), java.nio.charset.StandardCharsets.UTF_8))
        .contains(prompt);
  }
}
