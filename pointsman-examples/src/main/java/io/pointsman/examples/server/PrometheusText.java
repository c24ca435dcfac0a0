package io.pointsman.examples.server;

import io.pointsman.journal.SettlerState;
import io.pointsman.limits.CounterLimiter;

import io.pointsman.TimingSnapshot;
import io.pointsman.cache.tiered.CacheCounters;
import java.time.Instant;
import java.util.LinkedHashMap;
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

    // Everything that is not a plain in-memory counter comes from a background sample: a
    // scrape never waits on the journal's settler, PostgreSQL or Redis.
    FacadeGauges g = facade.gauges();
    Instant now = Instant.now();
    Map<String, Instant> refreshed = new LinkedHashMap<>();
    sampled(sb, g, refreshed, FacadeGauges.BACKLOG, "gauge",
        "Usage records durable in the journal and not yet confirmed by PostgreSQL.");
    sampled(sb, g, refreshed, FacadeGauges.SETTLED, "counter",
        "Usage records settled into PostgreSQL.");
    sampled(sb, g, refreshed, FacadeGauges.INTERRUPTED, "counter",
        "Interrupted calls recorded UNKNOWN by recovery.");
    sampled(sb, g, refreshed, FacadeGauges.FAILURES, "counter",
        "Settlement batches that failed and were retried.");
    counter(sb, "pointsman_authentication_failures_total", "Calls refused by authentication.",
        facade.gateway().authenticationFailures());
    sampled(sb, g, refreshed, FacadeGauges.RECOVERED, "gauge",
        "Holds recovered at start still counted against budgets in this process.");
    sampled(sb, g, refreshed, FacadeGauges.CONFIRMED, "gauge",
        "1 once budgets are confirmed against the ledger; 0 while budgeted calls are refused.");
    sampled(sb, g, refreshed, FacadeGauges.UNRESOLVED, "gauge",
        "UNKNOWN calls awaiting attestation or expiry.");
    sampled(sb, g, refreshed, FacadeGauges.HELD, "gauge",
        "Micro-units held by UNKNOWN calls against budgets.");
    FacadeGauges.Sample oldest = g.get(FacadeGauges.OLDEST);
    if (oldest != null) {
      gauge(sb, "pointsman_unresolved_oldest_age_seconds",
          "Age of the oldest unresolved hold (0 when none).", oldest.value() == 0 ? 0
              : Math.max(0, now.getEpochSecond() - oldest.value()));
      refreshed.put("pointsman_unresolved_oldest_age_seconds", oldest.at());
    }
    sb.append("# HELP pointsman_gauge_refreshed_timestamp_seconds When each sampled metric was"
        + " last refreshed in the background (Unix time).\n");
    sb.append("# TYPE pointsman_gauge_refreshed_timestamp_seconds gauge\n");
    for (Map.Entry<String, Instant> e : refreshed.entrySet()) {
      sample(sb, "pointsman_gauge_refreshed_timestamp_seconds{gauge=\"" + e.getKey() + "\"}",
          e.getValue().toEpochMilli() / 1e3);
    }

    // In-memory counters of the limiter, the ledger and the journal's settler: no I/O.
    CounterLimiter l = facade.limiter();
    counter(sb, "pointsman_limits_store_unavailable_total",
        "Limiter operations that could not reach the counters' store after their retries.",
        l.storeUnavailable());
    counter(sb, "pointsman_limits_failed_open_total",
        "Calls admitted without limits because the store was unreachable.", l.failedOpen());
    gauge(sb, "pointsman_limits_pending_ends",
        "Ends of reservations not yet confirmed by the counters' store.", l.pendingEnds());
    counter(sb, "pointsman_limits_end_alerts_total",
        "Ends kept pending after their retries (each logged at ERROR).", l.endAlerts());
    counter(sb, "pointsman_limits_stale_refusals_total",
        "Calls refused because the shared counters were stale (lost by Redis).",
        l.staleRefusals());
    counter(sb, "pointsman_limits_rebuilds_total",
        "Rebuilds of the shared counters from the ledger by this process.", l.rebuilds());
    counter(sb, "pointsman_limits_swept_holds_total",
        "Orphan holds released by this process's sweeps.", l.sweptHolds());
    facade.settlementIfReady().ifPresent(st -> {
      counter(sb, "pointsman_ledger_quarantined_total",
          "Items the ledger quarantined since this process started.", st.quarantinedTotal());
      counter(sb, "pointsman_ledger_conflicts_total",
          "Replay conflicts the ledger recorded since this process started.",
          st.conflictsTotal());
    });
    SettlerState ss = facade.accounting().settlerState();
    gauge(sb, "pointsman_settler_running", "1 while every settler thread runs.",
        ss.running() ? 1 : 0);
    gauge(sb, "pointsman_settler_stalled", "1 while settlement fails since the last commit.",
        ss.stalled() ? 1 : 0);
    gauge(sb, "pointsman_settler_consecutive_failures",
        "Settlement batches failed in a row.", ss.consecutiveFailures());
    gauge(sb, "pointsman_settler_overflowing",
        "1 while the hand-over queue is full and records are read back from the journal.",
        ss.overflowing() ? 1 : 0);
    gauge(sb, "pointsman_journal_retained_bytes", "Bytes the journal retains.",
        ss.journalRetainedBytes());
    gauge(sb, "pointsman_journal_refusing_calls",
        "1 while the journal's size limit refuses calls.", ss.refusingCalls() ? 1 : 0);

    sb.append("# HELP pointsman_health_up Whether each component is up (1) or down (0), from"
        + " the background health checks.\n");
    sb.append("# TYPE pointsman_health_up gauge\n");
    for (HealthMonitor.Component c : facade.health().snapshot().values()) {
      sb.append("pointsman_health_up{component=\"").append(escape(c.name())).append("\"} ")
          .append(c.up() ? 1 : 0).append('\n');
    }

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

  /** A background sample, or nothing before the first one (never a made-up zero). */
  private static void sampled(StringBuilder sb, FacadeGauges g, Map<String, Instant> refreshed,
      String name, String type, String help) {
    FacadeGauges.Sample s = g.get(name);
    if (s == null) {
      return;
    }
    sb.append("# HELP ").append(name).append(' ').append(help).append('\n');
    sb.append("# TYPE ").append(name).append(' ').append(type).append('\n');
    sb.append(name).append(' ').append(s.value()).append('\n');
    refreshed.put(name, s.at());
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
