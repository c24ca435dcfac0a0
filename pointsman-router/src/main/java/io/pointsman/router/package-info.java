/**
 * Routing across provider deployments: {@link io.pointsman.router.DeploymentRouter} (a core
 * {@link io.pointsman.spi.Router}) with weighted, least-busy, latency (EWMA with two random
 * choices), lowest-cost, usage-headroom and adaptive (Thompson sampling) strategies, passive
 * health with per-deployment cooldown, RPM/TPM caps and fallback chains across models; and
 * {@link io.pointsman.router.BackoffRetryPolicy}, a core {@link io.pointsman.spi.RetryPolicy}
 * with exponential backoff, full jitter and the provider's retry-after.
 */
package io.pointsman.router;
