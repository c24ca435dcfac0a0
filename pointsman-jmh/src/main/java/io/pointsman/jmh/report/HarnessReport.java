package io.pointsman.jmh.report;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Renders the overhead harness's committed CSVs into Markdown tables and SVG charts: every run
 * of every path, rate and prompt size (the A B B A repetitions), the quantile shifts
 * p(gateway) − p(direct) per repetition, the reconciliations, and the ramp. No load is
 * generated. Deterministic: the same files always give the same bytes.
 */
final class HarnessReport {
  private HarnessReport() {}

  /** A rendered chart: where it goes under the repository root and its content. */
  record Chart(String relativePath, String svg) {}

  /** Renders every harness folder under {@code results/harness}. */
  static String tables(Path results, List<Chart> charts) {
    Path harness = results.resolve("harness");
    if (!Files.isDirectory(harness)) {
      return "";
    }
    StringBuilder out = new StringBuilder();
    List<Path> jvm = new ArrayList<>();
    for (Path dir : list(harness)) {
      if (!Files.isDirectory(dir)) {
        continue;
      }
      String name = dir.getFileName().toString();
      if (name.startsWith(JVM_PREFIX)) {
        jvm.add(dir);
        continue;
      }
      Path summary = dir.resolve("summary.csv");
      if (Files.exists(summary)) {
        out.append("\n### Overhead harness: `").append(name).append("`\n\n");
        Path env = dir.resolve("environment.txt");
        if (Files.exists(env)) {
          out.append("Environment (`environment.txt`):\n\n");
          for (String line : read(env)) {
            out.append("- ").append(line.replace("|", "\\|")).append('\n');
          }
          out.append('\n');
        }
        runs(dir, name, read(summary), out, charts);
      }
      Path reconciliation = dir.resolve("reconciliation.csv");
      if (Files.exists(reconciliation)) {
        out.append("\nReconciliation after every gateway run (`").append(name)
            .append("/reconciliation.csv`):\n\n");
        table(read(reconciliation), out);
      }
      Path ramp = dir.resolve("ramp.csv");
      if (Files.exists(ramp)) {
        out.append("\nRamp of the durable profile, `bypass` path, 150 B (`").append(name)
            .append("/ramp.csv`), every rate after one discarded warmup run: a rate is"
                + " sustained when p99 is under 10 ms with no errors.\n\n");
        table(read(ramp), out);
      }
    }
    if (!jvm.isEmpty()) {
      jvmChoice(jvm, out);
    }
    return out.toString();
  }

  /** Harness directories whose name starts with this compare JVM settings, one per directory. */
  static final String JVM_PREFIX = "jvm-";

  /**
   * One row per JVM setting and path: the quantile shifts of both repetitions, and the
   * safepoints, collections and CPU of the gateway runs, from each directory's summary.
   */
  private static void jvmChoice(List<Path> dirs, StringBuilder out) {
    out.append("\n### JVM settings compared (`harness/").append(JVM_PREFIX)
        .append("*`)\n\nEach directory is one harness JVM started with the settings it names"
            + " (its `environment.txt` has the arguments); repetition 1 / 2 as above.\n\n");
    out.append("| setting | path · rate · size | p50 shift µs | p99 shift µs | p99.9 shift µs |"
        + " at safepoints ms | longest safepoint µs | collections | longest GC pause µs |"
        + " CPU added µs/request |\n|---|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for (Path dir : dirs) {
      Path summary = dir.resolve("summary.csv");
      if (!Files.exists(summary)) {
        continue;
      }
      Map<String, List<Map<String, String>>> groups = groups(read(summary), "/s");
      String setting = dir.getFileName().toString().substring(JVM_PREFIX.length());
      for (Map.Entry<String, List<Map<String, String>>> g : groups.entrySet()) {
        List<Map<String, String>> rows = g.getValue();
        if (rows.size() != 4) {
          continue;
        }
        out.append("| ").append(setting).append(" | ").append(g.getKey());
        for (String q : new String[] {"p50_us", "p99_us", "p999_us"}) {
          out.append(" | ").append(fmt(num(rows.get(1).get(q)) - num(rows.get(0).get(q))))
              .append(" / ").append(fmt(num(rows.get(2).get(q)) - num(rows.get(3).get(q))));
        }
        Map<String, String> g1 = rows.get(1);
        Map<String, String> g2 = rows.get(2);
        out.append(" | ").append(dash(g1.get("safepoint_ms"))).append(" / ")
            .append(dash(g2.get("safepoint_ms")))
            .append(" | ").append(dash(g1.get("safepoint_max_us"))).append(" / ")
            .append(dash(g2.get("safepoint_max_us")))
            .append(" | ").append(dash(g1.get("gc_count"))).append(" / ")
            .append(dash(g2.get("gc_count")))
            .append(" | ").append(dash(g1.get("gc_pause_max_us"))).append(" / ")
            .append(dash(g2.get("gc_pause_max_us")))
            .append(" | ").append(fmt(num(g1.get("cpu_us_per_request"))
                - num(rows.get(0).get("cpu_us_per_request")))).append(" / ")
            .append(fmt(num(g2.get("cpu_us_per_request"))
                - num(rows.get(3).get("cpu_us_per_request")))).append(" |\n");
      }
    }
  }

  /** A summary's rows by column, grouped by path, rate and size, in the order of the file. */
  private static Map<String, List<Map<String, String>>> groups(List<String> summary,
      String perSecond) {
    String[] header = summary.get(0).split(",", -1);
    Map<String, List<Map<String, String>>> groups = new LinkedHashMap<>();
    for (String line : summary.subList(1, summary.size())) {
      String[] cells = line.split(",", -1);
      Map<String, String> row = new LinkedHashMap<>();
      for (int i = 0; i < header.length; i++) {
        row.put(header[i], i < cells.length ? cells[i] : "");
      }
      String key = row.get("path") + " · " + row.get("rate") + perSecond + " · "
          + row.get("size") + " B";
      groups.computeIfAbsent(key, k -> new ArrayList<>()).add(row);
    }
    return groups;
  }

  private static void runs(Path dir, String name, List<String> summary, StringBuilder out,
      List<Chart> charts) {
    Map<String, List<Map<String, String>>> groups = groups(summary, " requests/s");
    for (Map.Entry<String, List<Map<String, String>>> g : groups.entrySet()) {
      List<Map<String, String>> rows = g.getValue();
      boolean stream = rows.stream().anyMatch(r -> !r.get("ttft_p50_us").isEmpty());
      out.append("#### ").append(g.getKey()).append("\n\n");
      out.append("| run | arm | ok | errors | p50 µs | p99 µs | p99.9 µs |")
          .append(stream ? " TTFT p50 µs | TTFT p99 µs |" : "").append('\n');
      out.append("|---|---|---:|---:|---:|---:|---:|").append(stream ? "---:|---:|" : "")
          .append('\n');
      for (Map<String, String> r : rows) {
        out.append("| ").append(r.get("position")).append(" | ").append(r.get("arm"))
            .append(" | ").append(r.get("ok")).append(" | ").append(r.get("errors"))
            .append(" | ").append(r.get("p50_us")).append(" | ").append(r.get("p99_us"))
            .append(" | ").append(r.get("p999_us")).append(" |");
        if (stream) {
          out.append(' ').append(r.get("ttft_p50_us")).append(" | ")
              .append(r.get("ttft_p99_us")).append(" |");
        }
        out.append('\n');
      }
      if (rows.size() == 4) {
        out.append("\nQuantile shift p(gateway) − p(direct), repetition 1 (runs 2 − 1) / "
            + "repetition 2 (runs 3 − 4): ");
        List<String> parts = new ArrayList<>();
        for (String q : stream ? new String[] {"p50_us", "p99_us", "p999_us", "ttft_p50_us"}
            : new String[] {"p50_us", "p99_us", "p999_us"}) {
          double s1 = num(rows.get(1).get(q)) - num(rows.get(0).get(q));
          double s2 = num(rows.get(2).get(q)) - num(rows.get(3).get(q));
          parts.add(q.replace("_us", "").replace("p999", "p99.9").replace("ttft_", "TTFT ")
              + " " + fmt(s1) + " / " + fmt(s2) + " µs");
        }
        out.append(String.join("; ", parts)).append(".\n");
        attribution(dir, rows, out);
      }
      String chartName = "docs/img/harness-" + name + "-" + rows.get(0).get("path") + "-"
          + rows.get(0).get("rate") + "rps-" + rows.get(0).get("size") + "B.svg";
      charts.add(new Chart(chartName, chart(dir, g.getKey(), rows)));
      out.append("\n![").append(g.getKey()).append("](")
          .append(chartName.replace("docs/", "")).append(")\n\n");
    }
  }

  /**
   * Where a group's added time goes, when its runs were measured with attribution: each stage
   * timer of the two gateway runs, then per repetition the process CPU per request beside the
   * direct run's, the journal's forces per request and their latency, GC pauses and the
   * settlement backlog when the window closed.
   */
  private static void attribution(Path dir, List<Map<String, String>> rows, StringBuilder out) {
    if (rows.get(1).getOrDefault("cpu_us_per_request", "").isEmpty()) {
      return;
    }
    List<Map<String, String[]>> stages = new ArrayList<>();
    for (int i : new int[] {1, 2}) {
      Path file = dir.resolve("runs").resolve(rows.get(i).get("run") + "-stages.csv");
      Map<String, String[]> byStage = new LinkedHashMap<>();
      if (Files.exists(file)) {
        List<String> lines = read(file);
        for (String line : lines.subList(1, lines.size())) {
          String[] c = line.split(",", -1);
          byStage.put(c[0], c);
        }
      }
      stages.add(byStage);
    }
    out.append("\nAttribution (gateway runs ").append(rows.get(1).get("position")).append(" and ")
        .append(rows.get(2).get("position")).append("; stage timers over the measured window,"
            + " each stage's own work):\n\n| stage | calls | p50 µs | p99 µs | calls | p50 µs |"
            + " p99 µs |\n|---|---:|---:|---:|---:|---:|---:|\n");
    java.util.Set<String> names = new java.util.LinkedHashSet<>(stages.get(0).keySet());
    names.addAll(stages.get(1).keySet());
    for (String stage : names) {
      out.append("| ").append(stage);
      for (Map<String, String[]> byStage : stages) {
        String[] c = byStage.get(stage);
        out.append(c == null ? " | – | – | –" : " | " + c[1] + " | " + c[2] + " | " + c[3]);
      }
      out.append(" |\n");
    }
    boolean split = !rows.get(1).getOrDefault("jit_us_per_request", "").isEmpty();
    boolean paused = !rows.get(1).getOrDefault("safepoint_ms", "").isEmpty();
    out.append("\n| repetition | CPU µs/request, gateway | CPU µs/request, direct | added |"
        + (split ? " of it JIT µs/request | PostgreSQL µs/request |" : "")
        + " forces/request | force p50 µs | force p99 µs | GC ms (count) | settle backlog |"
        + (paused ? " safepoints | at safepoints ms | longest µs | GC pause ms | longest GC µs |"
            : "") + "\n"
        + "|---|---:|---:|---:|" + (split ? "---:|---:|" : "") + "---:|---:|---:|---:|---:|"
        + (paused ? "---:|---:|---:|---:|---:|" : "") + "\n");
    int[][] pairs = {{1, 0}, {2, 3}};
    for (int r = 0; r < 2; r++) {
      Map<String, String> g = rows.get(pairs[r][0]);
      Map<String, String> d = rows.get(pairs[r][1]);
      double added = num(g.get("cpu_us_per_request")) - num(d.get("cpu_us_per_request"));
      out.append("| ").append(r + 1).append(" | ").append(g.get("cpu_us_per_request"))
          .append(" | ").append(d.get("cpu_us_per_request")).append(" | ").append(fmt(added));
      if (split) {
        out.append(" | ").append(dash(g.get("jit_us_per_request"))).append(" | ")
            .append(dash(g.get("postgres_us_per_request")));
      }
      out.append(" | ").append(dash(g.get("forces_per_request"))).append(" | ")
          .append(dash(g.get("force_p50_us"))).append(" | ").append(dash(g.get("force_p99_us")))
          .append(" | ").append(g.get("gc_ms")).append(" (").append(g.get("gc_count"))
          .append(") | ").append(g.get("settle_backlog")).append(" |");
      if (paused) {
        out.append(' ').append(g.get("safepoints")).append(" | ").append(g.get("safepoint_ms"))
            .append(" | ").append(g.get("safepoint_max_us")).append(" | ")
            .append(dash(g.get("gc_pause_ms"))).append(" | ")
            .append(dash(g.get("gc_pause_max_us"))).append(" |");
      }
      out.append('\n');
    }
    if (paused) {
      out.append("\nSafepoints and GC pauses come from a JFR recording of the gateway run's"
          + " window: \"at safepoints\" sums, over every safepoint, the time from the start of"
          + " its synchronisation to its end (every Java thread stopped), and a GC pause is part"
          + " of one.\n");
    }
    out.append("\nCPU is the whole process's (generator, fixture and gateway); the direct run's"
        + " figure is the generator and the fixture alone, so the difference is what the"
        + " gateway added.");
    if (split) {
      out.append(" The JIT column is the part of the gateway run's CPU that its compiler"
          + " threads took (warm-up, not calls); PostgreSQL's server processes are outside the"
          + " process and not in its CPU.");
    }
    out.append("\n");
  }

  private static String dash(String s) {
    return s == null || s.isEmpty() ? "–" : s;
  }

  private static String chart(Path dir, String title, List<Map<String, String>> rows) {
    int width = 640;
    int height = 360;
    int left = 70;
    int right = 150;
    int top = 30;
    int bottom = 50;
    double[] xs = {0, 90, 99, 99.9, 99.99};
    List<double[][]> series = new ArrayList<>();
    double max = 1;
    for (Map<String, String> r : rows) {
      List<String> lines = read(dir.resolve("runs").resolve(r.get("run") + ".csv"));
      List<double[]> points = new ArrayList<>();
      for (String line : lines.subList(1, lines.size())) {
        String[] c = line.split(",");
        double p = Double.parseDouble(c[0]);
        if (p >= 100) {
          continue;
        }
        double v = Double.parseDouble(c[1]);
        points.add(new double[] {p, v});
        max = Math.max(max, v);
      }
      series.add(points.toArray(new double[0][]));
    }
    double logMax = Math.log10(max * 1.2);
    double logMin = Math.log10(Math.max(1, minValue(series) * 0.8));
    StringBuilder svg = new StringBuilder();
    svg.append("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"").append(width)
        .append("\" height=\"").append(height).append("\" font-family=\"sans-serif\""
            + " font-size=\"11\">\n");
    svg.append("<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n");
    svg.append("<text x=\"").append(left).append("\" y=\"18\" font-size=\"13\">")
        .append(esc(title)).append(": latency from scheduled send (µs, log)</text>\n");
    int plotW = width - left - right;
    int plotH = height - top - bottom;
    for (double x : xs) {
      double px = left + xPos(x) * plotW;
      svg.append(String.format(Locale.ROOT, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\""
          + " stroke=\"#ddd\"/>%n", px, top, px, top + plotH));
      svg.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">"
          + "p%s</text>%n", px, top + plotH + 15, trim(x)));
    }
    for (double decade = Math.floor(logMin); decade <= Math.ceil(logMax); decade++) {
      if (decade < logMin || decade > logMax) {
        continue;
      }
      double py = top + plotH - (decade - logMin) / (logMax - logMin) * plotH;
      svg.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\""
          + " stroke=\"#ddd\"/>%n", left, py, left + plotW, py));
      svg.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">"
          + "%s</text>%n", left - 5, py + 4, trim(Math.pow(10, decade))));
    }
    String[] colors = {"#1f77b4", "#d62728", "#ff7f0e", "#2ca02c"};
    for (int i = 0; i < series.size(); i++) {
      StringBuilder path = new StringBuilder();
      for (double[] p : series.get(i)) {
        double px = left + xPos(p[0]) * plotW;
        double py = top + plotH - (Math.log10(Math.max(1, p[1])) - logMin) / (logMax - logMin)
            * plotH;
        path.append(path.length() == 0 ? "M" : " L").append(String.format(Locale.ROOT,
            "%.1f %.1f", px, py));
      }
      String color = colors[i % colors.length];
      svg.append("<path d=\"").append(path).append("\" fill=\"none\" stroke=\"").append(color)
          .append("\" stroke-width=\"2\"").append(rows.get(i).get("arm").equals("direct")
              ? " stroke-dasharray=\"5,3\"" : "").append("/>\n");
      svg.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" fill=\"%s\">run %s %s"
          + "</text>%n", left + plotW + 10, top + 15 + 16 * i, color,
          rows.get(i).get("position"), rows.get(i).get("arm")));
    }
    svg.append("</svg>\n");
    return svg.toString();
  }

  /** Position of a percentile on a log scale of 1 / (1 − p). */
  private static double xPos(double percentile) {
    double v = Math.log10(1 / (1 - Math.min(percentile, 99.99) / 100));
    return v / 4;
  }

  private static double minValue(List<double[][]> series) {
    double min = Double.MAX_VALUE;
    for (double[][] s : series) {
      for (double[] p : s) {
        min = Math.min(min, p[1]);
      }
    }
    return min == Double.MAX_VALUE ? 1 : min;
  }

  private static void table(List<String> csv, StringBuilder out) {
    String[] header = csv.get(0).split(",", -1);
    out.append('|');
    for (String h : header) {
      out.append(' ').append(h).append(" |");
    }
    out.append("\n|");
    for (int i = 0; i < header.length; i++) {
      out.append("---|");
    }
    out.append('\n');
    for (String line : csv.subList(1, csv.size())) {
      out.append('|');
      for (String c : line.split(",", -1)) {
        out.append(' ').append(c).append(" |");
      }
      out.append('\n');
    }
  }

  private static double num(String s) {
    return s == null || s.isEmpty() ? Double.NaN : Double.parseDouble(s);
  }

  private static String fmt(double v) {
    return String.format(Locale.ROOT, "%+.1f", v);
  }

  private static String trim(double v) {
    String s = String.format(Locale.ROOT, "%.2f", v);
    return s.replaceAll("\\.?0+$", "");
  }

  private static String esc(String s) {
    return s.replace("&", "&amp;").replace("<", "&lt;");
  }

  private static List<Path> list(Path dir) {
    try (Stream<Path> s = Files.list(dir)) {
      return s.sorted().toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static List<String> read(Path file) {
    try {
      return Files.readAllLines(file, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
