package io.pointsman.limits.redis;

import io.pointsman.spi.CounterRebuild;

/** Test helpers for Redis counter stores. */
final class Stores {
  private Stores() {}

  /** Starts a first generation on an empty namespace, as a rebuild from an empty ledger does. */
  static RedisCounterStore fresh(RedisCounterStore store) {
    try (CounterRebuild r = store.beginRebuild(60_000, false)) {
      r.commit();
    }
    return store;
  }
}
