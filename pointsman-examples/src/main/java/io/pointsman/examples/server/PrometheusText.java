package io.pointsman.examples.server;

import io.pointsman.TimingSnapshot;
import io.pointsman.cache.tiered.CacheCounters;
import io.pointsman.journal.JournalAccounting;
import io.pointsman.ledger.HoldSummary;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.LongAdder;

/** Renders the facade's metrics in the Prometheus text exposition format (version 0.0.4). */
final class PrometheusText {
  private PrometheusText() {}

  static String render(Facade facade, Map<String, LongAdder> requests) {
    StringBuilder sb = new StringBuilder(4096);
    sb.append("# HELP pointsman_stage_seconds Time spent in each gateway stage (its own work).\n");
    sb.append("# TYPE pointsman_stage_seconds summary\n");
    for (Map.Entry<String, TimingSnapshot> e : facade.gateway().timers().snapshot().entrySet()) {
      TimingSnapshot s = e.getValue();
      String stage = "stage=\"" + escape(e.getKey()) + "\"";
      sample(sb, "pointsman_stage_seconds{" + stage + ",quantile=\"0.5\"}", s.p50Nanos() / 1e9);
      sample(sb, "pointsman_stage_seconds{" + stage + ",quantile=\"0.99\"}", s.p99Nanos() / 1e9);
      sample(sb, "pointsman_stage_seconds{" + stage + ",quantile=\"1\"}", s.maxNanos() / 1e9);
      // The histogram keeps a mean rather than an exact sum; mean x count is within its
      // bucket precision.
      sample(sb, "pointsman_stage_seconds_sum{" + stage + "}", s.meanNanos() * s.count() / 1e9);
      sb.append("pointsman_stage_seconds_count{").append(stage).append("} ").append(s.count())
          .append('\n');
    }

    sb.append("# HELP pointsman_http_requests_total HTTP requests answered, by route and status.\n");
    sb.append("# TYPE pointsman_http_requests_total counter\n");
    for (Map.Entry<String, LongAdder> e : new TreeMap<>(requests).entrySet()) {
      String[] parts = e.getKey().split("\u0000", 2);
      sb.append("pointsman_http_requests_total{route=\"").append(escape(parts[0]))
          .append("\",code=\"").append(parts[1]).append("\"} ").append(e.getValue().sum())
          .append('\n');
    }

    JournalAccounting j = facade.accounting();
    gauge(sb, "pointsman_journal_backlog",
        "Usage records durable in the journal and not yet confirmed by PostgreSQL.", j.backlog());
    counter(sb, "pointsman_settled_records_total", "Usage records settled into PostgreSQL.",
        j.settledCount());
    counter(sb, "pointsman_interrupted_calls_total",
        "Interrupted calls recorded UNKNOWN by recovery.", j.interruptedCount());
    counter(sb, "pointsman_settlement_failures_total",
        "Settlement batches that failed and were retried.", j.settlementFailures());
    counter(sb, "pointsman_authentication_failures_total", "Calls refused by authentication.",
        facade.gateway().authenticationFailures());
    gauge(sb, "pointsman_recovered_holds",
        "Holds recovered at start still counted against budgets in this process.",
        facade.recoveredHolds());
    HoldSummary holds = facade.settlement().unresolvedHolds();
    gauge(sb, "pointsman_unresolved_holds", "UNKNOWN calls awaiting attestation or expiry.",
        holds.unresolved());
    gauge(sb, "pointsman_unresolved_held_micros",
        "Micro-units held by UNKNOWN calls against budgets.", holds.heldMicros());
    gauge(sb, "pointsman_unresolved_oldest_age_seconds",
        "Age of the oldest unresolved hold (0 when none).", holds.oldestHeldSince() == null ? 0
            : Math.max(0, java.time.Duration.between(holds.oldestHeldSince(),
                java.time.Instant.now()).toSeconds()));

    sb.append("# HELP pointsman_cache_events_total Cache lookups by layer and result.\n");
    sb.append("# TYPE pointsman_cache_events_total counter\n");
    for (Map.Entry<CacheCounters.Counter, Long> e
        : facade.cache().counters().snapshot().entrySet()) {
      sb.append("pointsman_cache_events_total{event=\"")
          .append(e.getKey().name().toLowerCase(Locale.ROOT)).append("\"} ").append(e.getValue())
          .append('\n');
    }
    return sb.toString();
  }

  private static void sample(StringBuilder sb, String name, double value) {
    sb.append(name).append(' ').append(String.format(Locale.ROOT, "%.9f", value)).append('\n');
  }

  private static void gauge(StringBuilder sb, String name, String help, long value) {
    sb.append("# HELP ").append(name).append(' ').append(help).append('\n');
    sb.append("# TYPE ").append(name).append(" gauge\n");
    sb.append(name).append(' ').append(value).append('\n');
  }

  private static void counter(StringBuilder sb, String name, String help, long value) {
    sb.append("# HELP ").append(name).append(' ').append(help).append('\n');
    sb.append("# TYPE ").append(name).append(" counter\n");
    sb.append(name).append(' ').append(value).append('\n');
  }

  private static String escape(String label) {
    return label.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n");
  }
}
