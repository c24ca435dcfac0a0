package io.pointsman.provider;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A 1 GiB stream, generated lazily by a loopback fixture server, relayed through a real
 * gateway and the OpenAI adapter with its default limits, in a child JVM of 256 MiB heap
 * ({@link LargeStreamChild}). The child measures the heap in use after a full collection as
 * the stream goes by and reports what the caller received, what the server sent and how the
 * call was accounted.
 */
class LargeStreamTest {
  private static final long MIB = 1024 * 1024;
  /** A bound that only keeps a broken build from hanging; nothing is timed. */
  private static final long CHILD_SECONDS = 300;

  @Test
  void aGibibyteOfTextIsCutAtTheContentLimitItsConnectionClosedAndChargedItsWorstCase()
      throws Exception {
    Child child = run("content", 1024, 4);

    assertThat(child.lines).as("no OutOfMemoryError").noneMatch(l -> l.startsWith("OOM"));
    assertThat(child.exit).as(child.output()).isZero();
    // The attempt fails as an unknown outcome that is not retried.
    assertThat(child.value("FAILURE")).isEqualTo("UNKNOWN stream.too_large 502 false");
    assertThat(child.value("MESSAGE")).contains("[stream_too_large]");
    // The caller got the chunks up to the default limit (16 Mi characters), none beyond.
    long chars = child.longValue("RELAYED_CHARS");
    assertThat(chars).isLessThanOrEqualTo(16 * MIB)
        .isGreaterThan(16 * MIB - 2 * LargeStreamChild.PAYLOAD);
    // The connection was closed at the cut: the server saw it, with most of the stream unsent.
    assertThat(child.value("CLOSED")).isEqualTo("true");
    assertThat(child.longValue("GENERATED_FRAMES"))
        .isLessThan(child.longValue("STREAM_FRAMES") / 4);
    // One attempt, recorded UNKNOWN, charged exactly the worst case the reservation held.
    String[] record = child.value("RECORD").split(" ");
    String[] worst = child.value("WORST_CASE").split(" ");
    assertThat(record[0]).isEqualTo("UNKNOWN");
    assertThat(Long.parseLong(record[1])).isPositive().isEqualTo(Long.parseLong(worst[0]));
    assertThat(record[2]).as("estimated").isEqualTo("true");
    assertThat(record[3]).isEqualTo("stream.too_large");
    assertThat(record[4]).as("attempts").isEqualTo("1");
    assertThat(worst[1]).as("the reservation was settled at the charged cost")
        .isEqualTo(record[1]);
    // What stays in memory is the assembled response (up to the limit), never the stream.
    assertThat(child.maxHeap() - child.heapAt0()).isLessThan(48 * MIB);
  }

  @Test
  void aGibibyteStreamWithLittleTextIsRelayedWholeInFlatMemory() throws Exception {
    Child child = run("padded", 1024, 128);

    assertThat(child.lines).as("no OutOfMemoryError").noneMatch(l -> l.startsWith("OOM"));
    assertThat(child.exit).as(child.output()).isZero();
    assertThat(child.value("FAILURE")).isEqualTo("-");
    long frames = child.longValue("STREAM_FRAMES");
    assertThat(frames * child.longValue("FRAME_BYTES")).isGreaterThan(1023 * MIB);
    // Every content chunk and the finish chunk reached the caller.
    assertThat(child.longValue("RELAYED_CHUNKS")).isEqualTo(frames + 1);
    assertThat(child.longValue("RESULT_CHARS")).isEqualTo(frames);
    assertThat(child.value("RECORD")).startsWith("SUCCESS ");
    // The heap in use after a collection does not grow with the stream: at most 16 MiB over
    // the start at any of the measurements, one every 128 MiB of stream.
    List<long[]> heap = child.heap();
    assertThat(heap).hasSizeGreaterThanOrEqualTo(8);
    assertThat(child.maxHeap() - child.heapAt0()).isLessThan(16 * MIB);
  }

  private static Child run(String scenario, int streamMib, int checkMib) throws Exception {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    Process process = new ProcessBuilder(java, "-Xmx256m", "-cp",
        System.getProperty("java.class.path"), LargeStreamChild.class.getName(), scenario,
        Integer.toString(streamMib), Integer.toString(checkMib))
        .redirectError(ProcessBuilder.Redirect.DISCARD)
        .start();
    List<String> lines = new ArrayList<>();
    try (BufferedReader out = new BufferedReader(new InputStreamReader(
        process.getInputStream(), StandardCharsets.UTF_8))) {
      String line;
      while ((line = out.readLine()) != null) {
        lines.add(line);
      }
    } catch (IOException e) {
      process.destroyForcibly();
      throw e;
    }
    if (!process.waitFor(CHILD_SECONDS, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      throw new AssertionError("the child did not end: " + lines);
    }
    return new Child(process.exitValue(), lines);
  }

  /** What the child printed. */
  private static final class Child {
    final int exit;
    final List<String> lines;
    final Map<String, String> values = new HashMap<>();

    Child(int exit, List<String> lines) {
      this.exit = exit;
      this.lines = lines;
      for (String line : lines) {
        int space = line.indexOf(' ');
        if (space > 0 && !line.startsWith("HEAP ")) {
          values.put(line.substring(0, space), line.substring(space + 1));
        }
      }
    }

    String output() {
      return String.join("\n", lines);
    }

    String value(String key) {
      assertThat(values).as(output()).containsKey(key);
      return values.get(key);
    }

    long longValue(String key) {
      return Long.parseLong(value(key));
    }

    /** Each measurement: stream bytes relayed, heap bytes in use after a collection. */
    List<long[]> heap() {
      List<long[]> points = new ArrayList<>();
      for (String line : lines) {
        if (line.startsWith("HEAP ")) {
          String[] p = line.split(" ");
          points.add(new long[] {Long.parseLong(p[1]), Long.parseLong(p[2])});
        }
      }
      return points;
    }

    long heapAt0() {
      return heap().get(0)[1];
    }

    long maxHeap() {
      return heap().stream().mapToLong(p -> p[1]).max().orElseThrow();
    }
  }
}
