package io.pointsman.micrometer;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.pointsman.CacheStatus;
import io.pointsman.CallListener;
import io.pointsman.PointsmanException;
import io.pointsman.Stages;
import io.pointsman.spi.Deployment;
import io.pointsman.spi.ProviderException;
import io.pointsman.spi.UsageRecord;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

/**
 * Micrometer meters from the gateway's per-call events ({@link CallListener}). Install it as
 * the gateway's listener factory:
 *
 * <pre>{@code
 * Gateway gateway = Gateway.builder()
 *     // authenticator, models, provider, deployments ...
 *     .listener(MicrometerCallListener.of(registry))
 *     .build();
 * }</pre>
 *
 * <p>Meters, each named after the gateway's stage timer it mirrors ({@link Stages}):
 *
 * <ul>
 *   <li>timers {@code pointsman.identity.auth}, {@code pointsman.model.resolve}, …,
 *       {@code pointsman.ledger.write} (one per stage of {@link Stages#ORDER}) and
 *       {@code pointsman.total} (the whole call, tagged {@code outcome}, {@code status},
 *       {@code model});
 *   <li>timer {@code pointsman.first.chunk}: a stream's time to its first chunk;
 *   <li>timer {@code pointsman.attempt}: provider attempts, tagged {@code deployment},
 *       {@code provider} and {@code outcome} ({@code ok} or the failure's status);
 *   <li>counters {@code pointsman.cache} (tag {@code outcome}) and
 *       {@code pointsman.guardrail.denials} (tags {@code stage}, {@code rule});
 *   <li>distribution summaries {@code pointsman.cost} (micro-units, tag {@code model}) and
 *       {@code pointsman.tokens} (tags {@code model}, {@code type} = {@code input},
 *       {@code output}, {@code cache_read}).
 * </ul>
 *
 * <p>Every timer publishes the 50th, 95th and 99th percentiles over a sliding window (by default
 * one minute, rotated in five steps: {@code DistributionStatisticConfig}'s expiry and buffer
 * length), unlike the gateway's own stage timers, which cover the gateway's whole life.
 * Thread-safe.
 */
public final class MicrometerCallListener implements CallListener.Factory {
  private static final String PREFIX = "pointsman.";

  private final MeterRegistry registry;
  private final Duration window;
  private final Timer[] stages;

  private MicrometerCallListener(MeterRegistry registry, Duration window) {
    this.registry = registry;
    this.window = window;
    List<String> order = Stages.ORDER;
    this.stages = new Timer[order.size()];
    for (int i = 0; i < stages.length; i++) {
      stages[i] = timer(PREFIX + order.get(i), "Time spent in the " + order.get(i) + " stage",
          Tags.empty());
    }
  }

  /**
   * Returns the bridge with percentiles over a one-minute window.
   *
   * @param registry where the meters are registered
   * @return the listener factory
   * @throws NullPointerException if registry is null
   */
  public static MicrometerCallListener of(MeterRegistry registry) {
    return of(registry, Duration.ofMinutes(1));
  }

  /**
   * Returns the bridge with percentiles over a window of the given length.
   *
   * @param registry where the meters are registered
   * @param window how far back percentiles look (rotated in five steps)
   * @return the listener factory
   * @throws NullPointerException if an argument is null
   * @throws IllegalArgumentException if window is not positive
   */
  public static MicrometerCallListener of(MeterRegistry registry, Duration window) {
    Objects.requireNonNull(registry, "registry");
    Objects.requireNonNull(window, "window");
    if (window.isZero() || window.isNegative()) {
      throw new IllegalArgumentException("window must be positive: " + window);
    }
    return new MicrometerCallListener(registry, window);
  }

  private Timer timer(String name, String description, Tags tags) {
    return Timer.builder(name).description(description).tags(tags)
        .publishPercentiles(0.5, 0.95, 0.99)
        .distributionStatisticExpiry(window).distributionStatisticBufferLength(5)
        .register(registry);
  }

  @Override
  public CallListener create(CallListener.CallStart start) {
    return new Listener();
  }

  private static String tag(String value) {
    return value == null ? "none" : value;
  }

  /** One call's listener: what it learns before the end, for the end's tags. */
  private final class Listener implements CallListener {
    private String model;

    @Override
    public void modelResolved(io.pointsman.spi.ResolvedModel resolved) {
      model = resolved.name();
    }

    @Override
    public void stageEnd(String stage, long nanos) {
      int i = Stages.ORDER.indexOf(stage);
      if (i >= 0) {
        stages[i].record(nanos, TimeUnit.NANOSECONDS);
      }
    }

    @Override
    public void cacheOutcome(CacheStatus status) {
      Counter.builder(PREFIX + "cache").description("Cache outcomes")
          .tag("outcome", status.outcome().name()).register(registry).increment();
    }

    @Override
    public void guardrailOutcome(String stage, PointsmanException denial) {
      if (denial != null) {
        Counter.builder(PREFIX + "guardrail.denials").description("Guardrail refusals")
            .tag("stage", stage).tag("rule", tag(denial.rule())).register(registry)
            .increment();
      }
    }

    @Override
    public void attemptEnd(Deployment deployment, int attempt, ProviderException failure,
        long nanos) {
      timer(PREFIX + "attempt", "Provider attempts", Tags.of("deployment", deployment.id(),
          "provider", deployment.provider(), "outcome",
          failure == null ? "ok" : failure.status().name())).record(nanos, TimeUnit.NANOSECONDS);
    }

    @Override
    public void firstChunk(long nanosSinceStart) {
      timer(PREFIX + "first.chunk", "Time to a stream's first chunk", Tags.empty())
          .record(nanosSinceStart, TimeUnit.NANOSECONDS);
    }

    @Override
    public void callEnd(CallEnd end) {
      UsageRecord r = end.record();
      String status = end.error() == null ? "200"
          : Integer.toString(end.error().status().httpStatus());
      String outcome = r == null ? "UNAUTHENTICATED" : r.outcome().name();
      String m = r == null || r.model() == null ? tag(model) : r.model();
      if (r != null) {
        timer(PREFIX + Stages.TOTAL, "Whole calls", Tags.of("outcome", outcome, "status",
            status, "model", m)).record(r.durationNanos(), TimeUnit.NANOSECONDS);
        DistributionSummary.builder(PREFIX + "cost").description("What calls were charged")
            .baseUnit("micro-units").tag("model", m).register(registry).record(r.costMicros());
        if (r.usage() != null) {
          tokens(m, "input", r.usage().promptTokens());
          tokens(m, "output", r.usage().completionTokens());
          tokens(m, "cache_read", r.usage().cachedTokens());
        }
      } else {
        Counter.builder(PREFIX + "unauthenticated").description("Calls refused at"
            + " authentication").register(registry).increment();
      }
    }

    private void tokens(String m, String type, long count) {
      DistributionSummary.builder(PREFIX + "tokens").description("Tokens per call")
          .baseUnit("tokens").tag("model", m).tag("type", type).register(registry)
          .record(count);
    }
  }
}
