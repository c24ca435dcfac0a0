package io.pointsman.limits;

import java.time.Instant;

/**
 * Where a limiter reads settled spend when it rebuilds its counters at start: the system of
 * record (for PostgreSQL, {@code PostgresBudgetStore::spent}). Implementations must be
 * thread-safe.
 */
@FunctionalInterface
public interface SpendSource {
  /**
   * Returns what a scope was charged by calls that started in a time range.
   *
   * @param scope the scope
   * @param from the start, inclusive
   * @param to the end, exclusive, or {@code null} for no end
   * @return the charges in micro-units, never negative
   * @throws RuntimeException if the source cannot be read; the rebuild fails with it
   */
  long spent(Scope scope, Instant from, Instant to);
}
