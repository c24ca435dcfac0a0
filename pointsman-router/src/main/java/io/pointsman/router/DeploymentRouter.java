package io.pointsman.router;

import io.pointsman.Clock;
import io.pointsman.PointsmanException;
import io.pointsman.Stages;
import io.pointsman.Status;
import io.pointsman.catalog.ModelCatalog;
import io.pointsman.catalog.ModelSpec;
import io.pointsman.spi.Deployment;
import io.pointsman.spi.RouteContext;
import io.pointsman.spi.Router;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.random.RandomGenerator;

/**
 * Stage 6, {@code router.select}, across many deployments: filters out deployments that are
 * cooling down, at their RPM/TPM cap or (while others remain) already failed in this call,
 * lets the {@link RoutingStrategy} pick among the rest, and walks the model's fallback chain
 * when none of the model's own deployments is eligible. Outcomes reported by the gateway drive
 * passive health (see {@link Cooldown}) and adaptive strategies.
 *
 * <pre>{@code
 * DeploymentRouter router = DeploymentRouter.builder()
 *     .deployment(RoutedDeployment.of(Deployment.of("oai-east", "openai", "gpt-4o")).withWeight(3))
 *     .deployment(RoutedDeployment.of(Deployment.of("oai-west", "openai-west", "gpt-4o")))
 *     .deployment(RoutedDeployment.of(Deployment.of("mini", "openai", "gpt-4o-mini")))
 *     .fallback("gpt-4o", "gpt-4o-mini")
 *     .catalog(catalog)
 *     .strategy(RoutingStrategy.latency())
 *     .build();
 * Gateway gateway = Gateway.builder()....router(router).retryPolicy(BackoffRetryPolicy.ofDefaults()).build();
 * }</pre>
 *
 * <p>A deployment reached through a fallback serves another model than the one resolved for
 * the call; when it has no price override and a catalog is set, the router returns it with
 * that model's catalog price as its override, so the call is charged what it consumed.
 *
 * <p>Thread-safe and non-blocking. A deployment is never selected while open (cooling down)
 * or while its half-open probe is in flight.
 */
public final class DeploymentRouter implements Router {
  private final Map<String, DeploymentState[]> byModel;
  private final Map<String, DeploymentState> byId;
  private final List<Deployment> all;
  private final Map<String, List<String>> chains;
  private final Map<String, Deployment> pricedFallbacks;
  private final ModelCatalog catalog;
  private final RoutingStrategy strategy;
  private final Cooldown cooldown;
  private final Clock clock;
  private final RandomGenerator random;

  private DeploymentRouter(Builder b) {
    Map<String, List<DeploymentState>> models = new LinkedHashMap<>();
    Map<String, DeploymentState> ids = new HashMap<>();
    int index = 0;
    for (RoutedDeployment d : b.deployments) {
      DeploymentState s = new DeploymentState(d, index++);
      models.computeIfAbsent(d.deployment().servesModel(), k -> new ArrayList<>()).add(s);
      ids.put(d.id(), s);
    }
    Map<String, DeploymentState[]> arrays = new HashMap<>();
    for (Map.Entry<String, List<DeploymentState>> e : models.entrySet()) {
      arrays.put(e.getKey(), e.getValue().toArray(new DeploymentState[0]));
    }
    this.byModel = Map.copyOf(arrays);
    this.byId = Map.copyOf(ids);
    this.all = b.deployments.stream().map(RoutedDeployment::deployment).toList();
    Map<String, List<String>> c = new HashMap<>();
    b.fallbacks.forEach((k, v) -> c.put(k, List.copyOf(v)));
    this.chains = Map.copyOf(c);
    this.catalog = b.catalog;
    Map<String, Deployment> priced = new HashMap<>();
    if (catalog != null) {
      for (RoutedDeployment d : b.deployments) {
        Deployment dep = d.deployment();
        ModelSpec spec = catalog.find(dep.servesModel());
        if (dep.priceOverride() == null && spec != null && spec.price() != null) {
          priced.put(dep.id(), new Deployment(dep.id(), dep.provider(), dep.servesModel(),
              dep.providerModel(), spec.price()));
        }
      }
    }
    this.pricedFallbacks = Map.copyOf(priced);
    this.strategy = b.strategy;
    this.cooldown = b.cooldown;
    this.clock = b.clock;
    this.random = b.random;
  }

  /**
   * Returns a new builder.
   *
   * @return a builder
   */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Returns the run-time state of a deployment, for inspection and metrics.
   *
   * @param deploymentId the id
   * @return the state, or {@code null} for an unknown id
   */
  public DeploymentState state(String deploymentId) {
    return byId.get(deploymentId);
  }

  @Override
  public Deployment select(RouteContext context) {
    String model = context.model().name();
    List<String> chain = chains.get(model);
    long tokens = context.model().inputTokens() + context.model().maxOutputTokens();
    RandomGenerator r = random != null ? random : ThreadLocalRandom.current();
    // One clock read per selection, not one per deployment: at 128 deployments the reads
    // were most of the cost.
    long now = clock.nanoTime();
    long minute = DeploymentState.minuteOf(now);
    Set<String> failed = context.failed();
    // First pass: deployments that have not failed in this call, down the whole chain. Only
    // when none is left does a retry go back to one that failed.
    for (int pass = 0; pass < 2; pass++) {
      Set<String> skip = pass == 0 ? failed : Set.of();
      Deployment d = selectIn(model, context, tokens, skip, now, minute, r);
      if (d != null) {
        return d;
      }
      if (chain != null) {
        for (String fallback : chain) {
          if (fits(fallback, context)) {
            d = selectIn(fallback, context, tokens, skip, now, minute, r);
            if (d != null) {
              return d;
            }
          }
        }
      }
      if (failed.isEmpty()) {
        // The second pass would see exactly what the first saw.
        break;
      }
    }
    throw PointsmanException.denied(Status.UNAVAILABLE, Stages.ROUTER_SELECT, null,
        "no eligible deployment for model " + model
            + " (cooling down, at capacity or not configured)");
  }

  private Deployment selectIn(String model, RouteContext context, long tokens,
      Set<String> skip, long now, long minute, RandomGenerator r) {
    DeploymentState[] states = byModel.get(model);
    if (states == null) {
      return null;
    }
    boolean skipSome = !skip.isEmpty();
    // The strategy gets the model's own array (read-only by contract) while every deployment is
    // eligible, the common case; a copy is made only when some are filtered out.
    DeploymentState[] candidates = states;
    int n = 0;
    for (int i = 0; i < states.length; i++) {
      DeploymentState s = states[i];
      boolean ok = (!skipSome || !skip.contains(s.spec().id()))
          && s.eligible(now, minute, tokens);
      if (ok) {
        if (candidates != states) {
          candidates[n] = s;
        }
        n++;
      } else if (candidates == states) {
        candidates = new DeploymentState[states.length];
        System.arraycopy(states, 0, candidates, 0, n);
      }
    }
    while (n > 0) {
      int i = strategy.choose(candidates, n, context, r);
      DeploymentState s = candidates[i];
      if (s.acquire(minute, tokens)) {
        Deployment d = s.spec().deployment();
        if (!model.equals(context.model().name())) {
          d = pricedFallbacks.getOrDefault(d.id(), d);
        }
        return d;
      }
      // Another call took the half-open probe slot or the last of a cap: choose among the rest.
      if (candidates == states) {
        candidates = states.clone();
      }
      candidates[i] = candidates[--n];
    }
    return null;
  }

  private boolean fits(String fallback, RouteContext context) {
    if (catalog == null) {
      return true;
    }
    ModelSpec spec = catalog.find(fallback);
    if (spec == null) {
      return false;
    }
    if (context.isEmbedding()) {
      // The bound covers every input together, each of which was checked against the
      // resolved model's window: a fallback must serve embeddings.
      return spec.supports(ModelSpec.EMBEDDINGS);
    }
    if (context.model().inputTokens() > spec.contextWindow()) {
      return false;
    }
    boolean tools = context.request().tools() != null && !context.request().tools().isEmpty();
    return !tools || spec.supports(ModelSpec.TOOLS);
  }

  @Override
  public void onOutcome(Deployment deployment, boolean success, Duration latency) {
    DeploymentState s = byId.get(deployment.id());
    if (s == null) {
      return;
    }
    try {
      s.release(success, latency, clock, cooldown);
      strategy.observe(s, success, latency);
    } catch (RuntimeException e) {
      // The contract forbids throwing from here; a strategy bug must not fail a call.
    }
  }

  /**
   * {@inheritDoc}
   *
   * <p>The component-wise highest price over every deployment of the model and of each model
   * in its fallback chain: its price override, else (for another model) that model's catalog
   * price.
   */
  @Override
  public io.pointsman.catalog.Price worstPrice(String model) {
    io.pointsman.catalog.Price worst = null;
    List<String> models = new ArrayList<>();
    models.add(model);
    models.addAll(chains.getOrDefault(model, List.of()));
    for (String m : models) {
      for (DeploymentState s : byModel.getOrDefault(m, new DeploymentState[0])) {
        Deployment d = pricedFallbacks.getOrDefault(s.spec().id(), s.spec().deployment());
        io.pointsman.catalog.Price p = d.priceOverride();
        if (p == null && !m.equals(model) && catalog != null && catalog.find(m) != null) {
          p = catalog.find(m).price();
        }
        if (p != null) {
          worst = p.max(worst);
        }
      }
    }
    return worst;
  }

  /** Returns every deployment given to the builder, in the order given. */
  @Override
  public List<Deployment> deployments() {
    return all;
  }

  @Override
  public String toString() {
    return "DeploymentRouter(" + byId.size() + " deployments, " + strategy + ")";
  }

  /** Builds a {@link DeploymentRouter}. Setters fail fast. Not thread-safe. */
  public static final class Builder {
    private final List<RoutedDeployment> deployments = new ArrayList<>();
    private final Map<String, List<String>> fallbacks = new LinkedHashMap<>();
    private RoutingStrategy strategy = RoutingStrategy.weighted();
    private Cooldown cooldown = Cooldown.ofDefaults();
    private Clock clock = Clock.system();
    private RandomGenerator random;
    private ModelCatalog catalog;

    private Builder() {}

    /**
     * Adds a deployment.
     *
     * @param value the deployment
     * @return this builder
     * @throws NullPointerException if value is null
     * @throws IllegalArgumentException if its id was already added
     */
    public Builder deployment(RoutedDeployment value) {
      Objects.requireNonNull(value, "deployment");
      for (RoutedDeployment d : deployments) {
        if (d.id().equals(value.id())) {
          throw new IllegalArgumentException("deployment " + value.id() + " was already added");
        }
      }
      deployments.add(value);
      return this;
    }

    /**
     * Adds a deployment with weight 1 and no caps.
     *
     * @param value the deployment
     * @return this builder
     * @throws NullPointerException if value is null
     * @throws IllegalArgumentException if its id was already added
     */
    public Builder deployment(Deployment value) {
      return deployment(RoutedDeployment.of(value));
    }

    /**
     * Sets the models tried, in order, when none of a model's deployments is eligible.
     *
     * @param model the resolved model
     * @param fallbackModels the models to fall back to
     * @return this builder
     * @throws NullPointerException if an argument is null
     * @throws IllegalStateException if the model already has a chain
     */
    public Builder fallback(String model, String... fallbackModels) {
      Objects.requireNonNull(model, "model");
      if (fallbacks.containsKey(model)) {
        throw new IllegalStateException("fallback of " + model + " was already set to "
            + fallbacks.get(model));
      }
      fallbacks.put(model, List.of(fallbackModels));
      return this;
    }

    /**
     * Sets the strategy. Default {@link RoutingStrategy#weighted()}.
     *
     * @param value the strategy
     * @return this builder
     * @throws NullPointerException if value is null
     */
    public Builder strategy(RoutingStrategy value) {
      this.strategy = Objects.requireNonNull(value, "strategy");
      return this;
    }

    /**
     * Sets the cooldown rule. Default {@link Cooldown#ofDefaults()}.
     *
     * @param value the rule
     * @return this builder
     * @throws NullPointerException if value is null
     */
    public Builder cooldown(Cooldown value) {
      this.cooldown = Objects.requireNonNull(value, "cooldown");
      return this;
    }

    /**
     * Sets the clock for cooldowns and per-minute caps.
     *
     * @param value the clock
     * @return this builder
     * @throws NullPointerException if value is null
     */
    public Builder clock(Clock value) {
      this.clock = Objects.requireNonNull(value, "clock");
      return this;
    }

    /**
     * Sets one random source for every selection, for seeded simulations. Only for
     * single-threaded use unless the generator is thread-safe. Default: the calling thread's
     * {@link ThreadLocalRandom}.
     *
     * @param value the generator
     * @return this builder
     * @throws NullPointerException if value is null
     */
    public Builder random(RandomGenerator value) {
      this.random = Objects.requireNonNull(value, "random");
      return this;
    }

    /**
     * Sets the catalog used to check that a fallback model fits the call (context window,
     * tools) and to price fallback deployments that have no price override.
     *
     * @param value the catalog
     * @return this builder
     * @throws NullPointerException if value is null
     */
    public Builder catalog(ModelCatalog value) {
      this.catalog = Objects.requireNonNull(value, "catalog");
      return this;
    }

    /**
     * Builds the router.
     *
     * @return the router
     * @throws IllegalStateException if there is no deployment, or a fallback model has no
     *     deployment, or a fallback deployment could not be priced
     */
    public DeploymentRouter build() {
      if (deployments.isEmpty()) {
        throw new IllegalStateException("no deployment: add deployment(...)");
      }
      for (Map.Entry<String, List<String>> e : fallbacks.entrySet()) {
        for (String m : e.getValue()) {
          boolean served = false;
          for (RoutedDeployment d : deployments) {
            if (d.deployment().servesModel().equals(m)) {
              served = true;
              boolean priced = d.deployment().priceOverride() != null || (catalog != null
                  && catalog.find(m) != null && catalog.find(m).price() != null);
              if (!priced) {
                throw new IllegalStateException("fallback deployment " + d.id() + " of model "
                    + m + " has no price: set catalog(...) or a price override, or calls it"
                    + " serves would be charged at " + e.getKey() + "'s price");
              }
            }
          }
          if (!served) {
            throw new IllegalStateException("fallback model " + m + " of " + e.getKey()
                + " has no deployment: add one");
          }
        }
      }
      return new DeploymentRouter(this);
    }
  }
}
