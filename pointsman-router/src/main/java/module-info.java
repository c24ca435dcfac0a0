/** Routing across provider deployments: strategies, health, cooldown, retries and fallbacks. */
module io.pointsman.router {
  requires transitive io.pointsman.core;

  exports io.pointsman.router;
}
