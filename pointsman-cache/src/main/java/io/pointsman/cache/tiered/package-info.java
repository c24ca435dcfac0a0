/**
 * Composing cache layers (exact L1, semantic L2) into the one {@code ResponseCache} a host
 * plugs into {@code Gateway.builder().cache(...)}, with the counters the layers share and the
 * executors their stores run on.
 */
package io.pointsman.cache.tiered;
