package io.pointsman.guardrail;

import static io.pointsman.guardrail.Fixtures.anyone;
import static io.pointsman.guardrail.Fixtures.user;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.pointsman.PointsmanException;
import io.pointsman.catalog.TokenBounds;
import io.pointsman.model.ChatRequest;
import java.nio.charset.StandardCharsets;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** Message bounds count each text's UTF-8 bytes in the pass that checks its encoding. */
class MessageBoundsBytesTest {
  private static final String[] PIECES = {"a", "Z", " ", "\n", "é", "ß", "ж", "€", "漢", "한",
      "😀", "𝔸", "\u07FF", "\u0800", "\uFFFD", "\u007F"};

  @Test
  void aTextAtTheByteLimitPassesAndOneByteMoreIsRefused() {
    Random random = new Random(3);
    for (int round = 0; round < 500; round++) {
      StringBuilder sb = new StringBuilder();
      int n = random.nextInt(round % 5 == 0 ? 2000 : 40);
      for (int i = 0; i < n; i++) {
        sb.append(PIECES[random.nextInt(PIECES.length)]);
      }
      String text = sb.append("xy").toString();
      long bytes = text.getBytes(StandardCharsets.UTF_8).length;
      assertThat(TokenBounds.utf8Length(text)).isEqualTo(bytes);
      ChatRequest request = user(text);
      assertThat(MessageBoundsGuardrail.of(10, bytes, bytes).check(anyone(), request))
          .isSameAs(request);
      assertThatThrownBy(() -> MessageBoundsGuardrail.of(10, bytes - 1, 1 << 30)
          .check(anyone(), request))
          .isInstanceOfSatisfying(PointsmanException.class,
              e -> assertThat(e.rule()).isEqualTo("bounds.message_bytes"));
      assertThatThrownBy(() -> MessageBoundsGuardrail.of(10, 1 << 30, bytes - 1)
          .check(anyone(), request))
          .isInstanceOfSatisfying(PointsmanException.class,
              e -> assertThat(e.rule()).isEqualTo("bounds.total_bytes"));
    }
  }

  @Test
  void aCheckOfALongTextAllocatesNoEncodedCopy() {
    String text = "plain ascii words and é and 漢字 ".repeat(400);
    ChatRequest request = user(text);
    MessageBoundsGuardrail bounds = MessageBoundsGuardrail.ofDefaults();
    com.sun.management.ThreadMXBean threads =
        (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
    long id = Thread.currentThread().getId();
    for (int i = 0; i < 2000; i++) {
      bounds.check(anyone(), request);
    }
    long before = threads.getThreadAllocatedBytes(id);
    for (int i = 0; i < 1000; i++) {
      bounds.check(anyone(), request);
    }
    long perCheck = (threads.getThreadAllocatedBytes(id) - before) / 1000;
    // An encoded copy would be over 12,000 bytes; the check's own set and iterator are tens.
    assertThat(perCheck).isLessThan(text.length() / 4);
  }
}
