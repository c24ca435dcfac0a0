package io.pointsman.cache.semantic;

import static org.assertj.core.api.Assertions.assertThat;

import io.pointsman.CacheOutcome;
import io.pointsman.cache.testing.SharedEmbedder;
import io.pointsman.cache.testing.Queries;
import io.pointsman.model.ChatResponse;
import io.pointsman.model.Json;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Hit precision and recall over {@code semantic/corpus.tsv}: pairs that ask the same thing
 * (should hit) and near misses that must not (negation, changed numbers, swapped or changed
 * entities, opposites). Each pair is looked up in a scope of its own, and again with every
 * stored prompt in one shared scope, where a hit on any entry other than the pair's own
 * stored prompt counts as wrong.
 */
class SemanticCorpusTest {
  private static MiniLmEmbedder embedder;

  record Pair(boolean shouldHit, String kind, String stored, String query) {}

  @BeforeAll
  static void load() {
    embedder = MiniLmEmbedder.builder().build();
  }

  private static final StringBuilder REPORT = new StringBuilder();

  /**
   * Writes what both tests found to {@code target/semantic-corpus.txt}, and with
   * {@code -Dpointsman.resultsDir=../pointsman-jmh/results/cache} to the committed
   * {@code corpus.txt} there.
   */
  @AfterAll
  static void close() throws IOException {
    embedder.close();
    String text = "SemanticCorpusTest output (mvn -q -B -ntp -o -pl pointsman-cache -am test"
        + " -Dtest=SemanticCorpusTest -Dsurefire.failIfNoSpecifiedTests=false"
        + " -Dpointsman.resultsDir=../pointsman-jmh/results/cache), defaults: threshold "
        + SemanticCache.DEFAULT_THRESHOLD + ", HitVerifier.standard()\n" + REPORT;
    java.nio.file.Path target = java.nio.file.Path.of("target/semantic-corpus.txt");
    java.nio.file.Files.createDirectories(target.getParent());
    java.nio.file.Files.writeString(target, text, StandardCharsets.UTF_8);
    String dir = System.getProperty("pointsman.resultsDir");
    if (dir != null && !dir.isBlank()) {
      java.nio.file.Files.writeString(java.nio.file.Path.of(dir, "corpus.txt"), text,
          StandardCharsets.UTF_8);
    }
  }

  static List<Pair> corpus() throws IOException {
    List<Pair> pairs = new ArrayList<>();
    try (BufferedReader in = new BufferedReader(new InputStreamReader(
        SemanticCorpusTest.class.getResourceAsStream("/semantic/corpus.tsv"),
        StandardCharsets.UTF_8))) {
      String line;
      while ((line = in.readLine()) != null) {
        if (line.isBlank() || line.startsWith("#")) {
          continue;
        }
        String[] f = line.split("\t");
        pairs.add(new Pair(f[0].equals("hit"), f[1], f[2], f[3]));
      }
    }
    return pairs;
  }

  private static ChatResponse answer(String text) {
    return Json.readResponse(("{\"id\":\"c\",\"object\":\"chat.completion\",\"created\":1,"
        + "\"model\":\"gpt-4o-mini\",\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\","
        + "\"content\":" + Json.write(text) + "},\"finish_reason\":\"stop\"}]}")
        .getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void hitPrecisionIsAtLeast99PercentInScopesOfTheirOwn() throws Exception {
    List<Pair> pairs = corpus();
    assertThat(pairs.stream().filter(Pair::shouldHit).count()).isGreaterThanOrEqualTo(100);
    assertThat(pairs.stream().filter(p -> !p.shouldHit()).count()).isGreaterThanOrEqualTo(100);
    try (SemanticCache cache = SemanticCache.builder(embedder)
        .lookupDeadline(SharedEmbedder.PATIENT).build()) {
      int i = 0;
      for (Pair p : pairs) {
        cache.store(Queries.query("org", "pair-" + i++, p.stored()), answer(p.stored()));
      }
      assertThat(cache.awaitStores(Duration.ofMinutes(1))).isTrue();
      Tally tally = new Tally();
      i = 0;
      for (Pair p : pairs) {
        SemanticLookup found = cache.search(Queries.query("org", "pair-" + i++, p.query()));
        boolean hit = found.lookup().status().outcome() == CacheOutcome.HIT;
        tally.add(p, hit, hit, found);
      }
      tally.print("own scopes");
      assertThat(tally.precision()).isGreaterThanOrEqualTo(0.99);
      assertThat(tally.recall()).isGreaterThan(0.5);
    }
  }

  @Test
  void hitPrecisionIsAtLeast99PercentWithEveryEntryInOneScope() throws Exception {
    List<Pair> pairs = corpus();
    try (SemanticCache cache = SemanticCache.builder(embedder)
        .lookupDeadline(SharedEmbedder.PATIENT).build()) {
      for (Pair p : pairs) {
        cache.store(Queries.query("org", "shared", p.stored()), answer(p.stored()));
      }
      assertThat(cache.awaitStores(Duration.ofMinutes(1))).isTrue();
      Tally tally = new Tally();
      for (Pair p : pairs) {
        SemanticLookup found = cache.search(Queries.query("org", "shared", p.query()));
        boolean hit = found.lookup().status().outcome() == CacheOutcome.HIT;
        // A hit on the pair's own stored prompt, or on a stored prompt identical to the query.
        boolean right = hit && p.shouldHit() && (found.matchedText().equals(p.stored())
            || found.matchedText().equals(p.query()));
        tally.add(p, hit, right, found);
      }
      tally.print("one scope");
      assertThat(tally.precision()).isGreaterThanOrEqualTo(0.99);
    }
  }

  /** Counts per kind; prints every wrong hit and every similarity for the record. */
  static final class Tally {
    int hits;
    int rightHits;
    int nearMissesAboveThreshold;
    int shouldHit;
    int shouldHitAndHit;
    final Map<String, int[]> byKind = new TreeMap<>();
    final List<String> lines = new ArrayList<>();

    void add(Pair p, boolean hit, boolean right, SemanticLookup found) {
      int[] k = byKind.computeIfAbsent((p.shouldHit() ? "hit/" : "miss/") + p.kind(),
          x -> new int[2]);
      k[0]++;
      if (hit) {
        k[1]++;
        hits++;
        if (right) {
          rightHits++;
        }
      }
      if (!p.shouldHit() && found.similarity() >= SemanticCache.DEFAULT_THRESHOLD) {
        nearMissesAboveThreshold++;
      }
      if (p.shouldHit()) {
        shouldHit++;
        if (right) {
          shouldHitAndHit++;
        }
      }
      lines.add(String.format(Locale.ROOT, "%s %-5s %s %.4f | %s | %s | %s",
          hit == p.shouldHit() && hit == right ? "  " : "!!", p.shouldHit() ? "hit" : "miss", hit ? "HIT " : "miss",
          found.similarity(), p.stored(), p.query(), found.lookup().status().reason()
          + (hit && !found.matchedText().equals(p.stored()) ? " matched: " + found.matchedText()
              : "")));
    }

    double precision() {
      return hits == 0 ? 1.0 : (double) rightHits / hits;
    }

    double recall() {
      return (double) shouldHitAndHit / shouldHit;
    }

    void print(String mode) {
      StringBuilder out = new StringBuilder();
      out.append(String.format(Locale.ROOT, "corpus (%s): hits=%d right=%d precision=%.4f"
          + " recall=%.4f (%d/%d)%n", mode, hits, rightHits, precision(), recall(),
          shouldHitAndHit, shouldHit));
      out.append(String.format(Locale.ROOT, "  near misses at or above the threshold, refused"
          + " only by the verifier: %d%n", nearMissesAboveThreshold));
      byKind.forEach((k, v) -> out.append(String.format(Locale.ROOT,
          "  %-22s pairs=%3d hits=%3d%n", k, v[0], v[1])));
      lines.forEach(l -> out.append(l).append('\n'));
      System.out.print(out);
      synchronized (REPORT) {
        REPORT.append(out);
      }
    }
  }
}
