package io.pointsman.provider;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class SseParserTest {
  private static List<SseEvent> parse(String text, int... splits) {
    List<SseEvent> events = new ArrayList<>();
    SseParser parser = new SseParser(events::add);
    byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
    int from = 0;
    for (int split : splits) {
      parser.feed(bytes, from, split - from);
      from = split;
    }
    parser.feed(bytes, from, bytes.length - from);
    parser.finish();
    return events;
  }

  @Test
  void joinsMultiLineDataAndSkipsCommentsAndKeepAlives() {
    List<SseEvent> events = parse(": keep-alive\n\nevent: delta\ndata: a\ndata:  b\n\n:ping\n"
        + "data\n\n");
    assertThat(events).containsExactly(new SseEvent("delta", "a\n b", null),
        new SseEvent("message", "", null));
  }

  @Test
  void treatsCrLfCrAndLfAlikeEvenWhenCrAndLfArriveInDifferentPieces() {
    String text = "data: one\r\n\r\ndata: two\r\rdata: three\n\n";
    int crlf = text.indexOf('\r') + 1;
    assertThat(parse(text, crlf)).extracting(SseEvent::data)
        .containsExactly("one", "two", "three");
  }

  @Test
  void reassemblesFramesAndUtf8CharactersSplitAcrossPieces() {
    String text = "data: {\"t\":\"héllo 🙂\"}\n\n";
    byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
    for (int i = 1; i < bytes.length; i++) {
      assertThat(parse(text, i)).extracting(SseEvent::data)
          .containsExactly("{\"t\":\"héllo 🙂\"}");
    }
  }

  @Test
  void dropsAnUnterminatedEventAtTheEndAndKeepsTheLastId() {
    assertThat(parse("id: 7\ndata: x\n\ndata: partial")).containsExactly(
        new SseEvent("message", "x", "7"));
  }

  @Test
  void refusesALineBeyondTheBound() {
    SseParser parser = new SseParser(e -> {}, 16);
    byte[] line = "data: 0123456789abcdef".getBytes(StandardCharsets.UTF_8);
    assertThatThrownBy(() -> parser.feed(line, 0, line.length))
        .isInstanceOf(SseException.class);
  }

  @Test
  void refusesAnEventWhoseDataLinesTogetherGoBeyondTheBound() {
    List<SseEvent> events = new ArrayList<>();
    SseParser parser = new SseParser(events::add, 16);
    // Each line fits; joined with their line feeds they reach exactly 16 characters.
    byte[] fits = "data: 0123456\ndata: 01234567\n\n".getBytes(StandardCharsets.UTF_8);
    parser.feed(fits, 0, fits.length);
    assertThat(events).containsExactly(new SseEvent("message", "0123456\n01234567", null));
    // One character more, in many lines of one event that never ends, is refused.
    byte[] more = "data: 0123456\ndata: 012345678\n".getBytes(StandardCharsets.UTF_8);
    assertThatThrownBy(() -> parser.feed(more, 0, more.length))
        .isInstanceOf(SseException.class).hasMessageContaining("event's data");
  }

  /**
   * Generates random event streams, serializes them with random line endings, comments,
   * keep-alives and a byte order mark, cuts them into random pieces and checks that the events
   * come back; half the cases also mix in random bytes, which must never crash the parser.
   * Replay a failure with {@code -Dpointsman.fuzz.seed=<seed>}.
   */
  @Test
  void fuzzTenThousandSeededStreamsWithoutACrash() {
    long seed = Long.getLong("pointsman.fuzz.seed", 0x5EEDL);
    SplittableRandom seeds = new SplittableRandom(seed);
    for (int i = 0; i < 10_000; i++) {
      long caseSeed = seeds.nextLong();
      try {
        fuzzCase(new SplittableRandom(caseSeed));
      } catch (AssertionError | RuntimeException e) {
        throw new AssertionError("SSE fuzz case " + i + " failed; run seed " + seed
            + " (case seed " + caseSeed + ")", e);
      }
    }
  }

  private static void fuzzCase(SplittableRandom r) {
    String[] endings = {"\n", "\r\n", "\r"};
    List<SseEvent> expected = new ArrayList<>();
    StringBuilder text = new StringBuilder();
    if (r.nextInt(10) == 0) {
      text.append('\uFEFF');
    }
    int events = r.nextInt(8);
    for (int e = 0; e < events; e++) {
      String nl = endings[r.nextInt(3)];
      if (r.nextBoolean()) {
        text.append(':').append(randomText(r, 10)).append(nl);
      }
      String type = r.nextInt(3) == 0 ? "t" + r.nextInt(5) : null;
      if (type != null) {
        text.append("event: ").append(type).append(nl);
      }
      int lines = 1 + r.nextInt(3);
      List<String> data = new ArrayList<>();
      for (int l = 0; l < lines; l++) {
        String d = randomText(r, 30);
        data.add(d);
        text.append(r.nextBoolean() ? "data: " : "data:").append(r.nextBoolean() ? "" : "")
            .append(d).append(nl);
        if (r.nextInt(4) == 0) {
          text.append(": keep-alive").append(nl);
        }
      }
      text.append(nl);
      expected.add(new SseEvent(type == null ? "message" : type, String.join("\n", data),
          null));
    }
    byte[] bytes = text.toString().getBytes(StandardCharsets.UTF_8);
    boolean garbage = r.nextBoolean();
    if (garbage) {
      for (int g = r.nextInt(5); g > 0 && bytes.length > 0; g--) {
        bytes[r.nextInt(bytes.length)] = (byte) r.nextInt(256);
      }
    }
    List<SseEvent> got = new ArrayList<>();
    SseParser parser = new SseParser(got::add, 1 << 16);
    int from = 0;
    while (from < bytes.length) {
      int n = 1 + r.nextInt(Math.max(1, Math.min(bytes.length - from, 40)));
      parser.feed(bytes, from, Math.min(n, bytes.length - from));
      from += n;
    }
    parser.finish();
    if (!garbage) {
      // A data line starting with a space after "data:" loses that one space by design, so
      // generated data never starts with a space.
      assertThat(got).isEqualTo(expected);
    }
  }

  private static String randomText(SplittableRandom r, int max) {
    String alphabet = "abc XYZ{}\":,é🙂\t0";
    int n = r.nextInt(max);
    StringBuilder b = new StringBuilder();
    int[] cps = alphabet.codePoints().toArray();
    for (int i = 0; i < n; i++) {
      int cp = cps[r.nextInt(cps.length)];
      if (b.length() == 0 && cp == ' ') {
        cp = 'a';
      }
      b.appendCodePoint(cp);
    }
    return b.toString();
  }
}
