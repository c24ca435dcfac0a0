package io.pointsman.jmh.report;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Regenerates the JMH tables of {@code docs/benchmarks.md} from the committed JMH JSON files
 * under {@code pointsman-jmh/results/}, without running any benchmark. The generated part sits
 * between two marker lines; everything else on the page is left as written.
 *
 * <p>Write: {@code mvn -B -q -pl pointsman-jmh -am package -DskipTests && java -cp
 * pointsman-jmh/target/benchmarks.jar io.pointsman.jmh.report.BenchmarkPage write}
 * <br>Check (CI runs this through {@code BenchmarkPageTest}): the same with {@code check},
 * which exits 1 when the page no longer follows from the data.
 */
public final class BenchmarkPage {
  static final String BEGIN = "<!-- BEGIN GENERATED: jmh tables (BenchmarkPage) -->";
  static final String END = "<!-- END GENERATED: jmh tables -->";
  private static final ObjectMapper JSON = new ObjectMapper();

  private BenchmarkPage() {}

  public static void main(String[] args) throws IOException {
    String mode = args.length > 0 ? args[0] : "check";
    Path root = Path.of(args.length > 1 ? args[1] : ".");
    List<String> stale = stale(root);
    if (mode.equals("write")) {
      write(root);
      System.out.println("wrote docs/benchmarks.md and its charts");
    } else if (!stale.isEmpty()) {
      System.err.println("does not follow from pointsman-jmh/results (run BenchmarkPage"
          + " write): " + stale);
      System.exit(1);
    } else {
      System.out.println("docs/benchmarks.md and its charts follow from their data");
    }
  }

  /** Writes the page and its charts. */
  static void write(Path root) throws IOException {
    Path page = root.resolve("docs/benchmarks.md");
    String current = Files.readString(page, StandardCharsets.UTF_8);
    List<HarnessReport.Chart> charts = new ArrayList<>();
    String regenerated = regenerate(current, root.resolve("pointsman-jmh/results"), charts);
    Files.writeString(page, regenerated, StandardCharsets.UTF_8);
    for (HarnessReport.Chart chart : charts) {
      Path file = root.resolve(chart.relativePath());
      Files.createDirectories(file.getParent());
      Files.writeString(file, chart.svg(), StandardCharsets.UTF_8);
    }
  }

  /** Returns the files that differ from what the data gives; empty when all follow. */
  static List<String> stale(Path root) throws IOException {
    List<String> stale = new ArrayList<>();
    Path page = root.resolve("docs/benchmarks.md");
    String current = Files.readString(page, StandardCharsets.UTF_8);
    List<HarnessReport.Chart> charts = new ArrayList<>();
    if (!regenerate(current, root.resolve("pointsman-jmh/results"), charts).equals(current)) {
      stale.add("docs/benchmarks.md");
    }
    for (HarnessReport.Chart chart : charts) {
      Path file = root.resolve(chart.relativePath());
      if (!Files.exists(file)
          || !Files.readString(file, StandardCharsets.UTF_8).equals(chart.svg())) {
        stale.add(chart.relativePath());
      }
    }
    return stale;
  }

  /** Returns the page with its generated part replaced, collecting the charts it refers to. */
  static String regenerate(String page, Path results, List<HarnessReport.Chart> charts) {
    int begin = page.indexOf(BEGIN);
    int end = page.indexOf(END);
    if (begin < 0 || end < begin) {
      throw new IllegalStateException("docs/benchmarks.md lacks the generated-part markers");
    }
    return page.substring(0, begin + BEGIN.length()) + "\n"
        + HarnessReport.tables(results, charts) + tables(results) + page.substring(end);
  }

  static String tables(Path results) {
    StringBuilder out = new StringBuilder("\n### JMH runs\n");
    for (Path file : jsonFiles(results)) {
      List<JsonNode> runs = jmhRuns(file);
      if (runs.isEmpty() || file.toString().contains("/harness/")) {
        continue;
      }
      out.append("\n#### `").append(results.getParent().getFileName()).append('/')
          .append(results.getFileName()).append('/').append(results.relativize(file)
              .toString().replace('\\', '/')).append("`\n\n");
      JsonNode first = runs.get(0);
      out.append("JDK ").append(first.path("jdkVersion").asText()).append(", ")
          .append(first.path("threads").asInt()).append(" thread(s), ")
          .append(first.path("forks").asInt()).append(" fork(s), ")
          .append(first.path("warmupIterations").asInt()).append(" × ")
          .append(first.path("warmupTime").asText()).append(" warmup, ")
          .append(first.path("measurementIterations").asInt()).append(" × ")
          .append(first.path("measurementTime").asText()).append(" measurement.\n\n");
      out.append("| benchmark | params | mode | score | ± error | unit | p50 | p99 |\n");
      out.append("|---|---|---|---:|---:|---|---:|---:|\n");
      for (JsonNode run : runs) {
        JsonNode metric = run.path("primaryMetric");
        JsonNode pct = metric.path("scorePercentiles");
        boolean sample = "sample".equals(run.path("mode").asText());
        out.append("| ").append(shortName(run.path("benchmark").asText()))
            .append(" | ").append(params(run.path("params")))
            .append(" | ").append(run.path("mode").asText())
            .append(" | ").append(number(metric.path("score").asDouble()))
            .append(" | ").append(number(metric.path("scoreError").asDouble()))
            .append(" | ").append(metric.path("scoreUnit").asText())
            .append(" | ").append(sample ? number(pct.path("50.0").asDouble()) : "")
            .append(" | ").append(sample ? number(pct.path("99.0").asDouble()) : "")
            .append(" |\n");
      }
    }
    return out.toString();
  }

  private static List<Path> jsonFiles(Path results) {
    try (Stream<Path> files = Files.walk(results)) {
      return files.filter(p -> p.toString().endsWith(".json")).sorted().toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static List<JsonNode> jmhRuns(Path file) {
    try {
      JsonNode root = JSON.readTree(file.toFile());
      List<JsonNode> runs = new ArrayList<>();
      if (root != null && root.isArray()) {
        for (JsonNode n : root) {
          if (n.has("benchmark") && n.has("primaryMetric")) {
            runs.add(n);
          }
        }
      }
      return runs;
    } catch (IOException e) {
      return List.of();
    }
  }

  private static String shortName(String benchmark) {
    String[] parts = benchmark.split("\\.");
    return parts.length < 2 ? benchmark : parts[parts.length - 2] + "." + parts[parts.length - 1];
  }

  private static String params(JsonNode params) {
    if (params.isMissingNode() || params.isEmpty()) {
      return "";
    }
    List<String> out = new ArrayList<>();
    for (Iterator<Map.Entry<String, JsonNode>> it = params.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      out.add(e.getKey() + "=" + e.getValue().asText());
    }
    return String.join(", ", out);
  }

  private static String number(double value) {
    if (Double.isNaN(value)) {
      return "NaN";
    }
    double abs = Math.abs(value);
    String pattern = abs >= 1000 ? "%,.0f" : abs >= 10 ? "%.1f" : abs >= 1 ? "%.2f" : "%.3f";
    return String.format(Locale.ROOT, pattern, value);
  }
}
