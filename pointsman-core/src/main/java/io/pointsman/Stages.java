package io.pointsman;

import java.util.List;

/**
 * The stable names of the request lifecycle stages, in the order they run. These names are the
 * stage timer names used by metrics, logs, benchmarks and documentation, and the
 * {@link PointsmanException#stage()} of a failure decided by a built-in stage.
 */
public final class Stages {
  /** Parses the virtual key and resolves the caller's identity. */
  public static final String IDENTITY_AUTH = "identity.auth";
  /** Resolves the model alias, checks grants and the context window. */
  public static final String MODEL_RESOLVE = "model.resolve";
  /** Reserves rate limits and budgets in every matching scope, atomically. */
  public static final String RATELIMIT_RESERVE = "ratelimit.reserve";
  /** Runs the input guardrail chain. */
  public static final String GUARDRAIL_INPUT = "guardrail.input";
  /** Looks the request up in the response cache. */
  public static final String CACHE_LOOKUP = "cache.lookup";
  /** Picks a provider deployment. */
  public static final String ROUTER_SELECT = "router.select";
  /** Journals the dispatch intent and calls the provider, with retries. */
  public static final String PROVIDER_ATTEMPT = "provider.attempt";
  /** Runs the output guardrail chain over the response. */
  public static final String GUARDRAIL_OUTPUT = "guardrail.output";
  /** Makes the usage record durable and hands it to settlement. */
  public static final String LEDGER_WRITE = "ledger.write";

  /** Not a stage: the whole call, from entry to return. */
  public static final String TOTAL = "total";
  /** Not a stage: decoding and validating the request at entry. */
  public static final String REQUEST = "request";

  /** The nine lifecycle stages in the order they run. */
  public static final List<String> ORDER = List.of(
      IDENTITY_AUTH, MODEL_RESOLVE, RATELIMIT_RESERVE, GUARDRAIL_INPUT, CACHE_LOOKUP,
      ROUTER_SELECT, PROVIDER_ATTEMPT, GUARDRAIL_OUTPUT, LEDGER_WRITE);

  private Stages() {}
}
