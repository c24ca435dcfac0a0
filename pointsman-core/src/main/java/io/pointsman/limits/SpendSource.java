package io.pointsman.limits;

import io.pointsman.spi.DispatchIntent;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * The system of record a limiter rebuilds its counters from: settled spend (for PostgreSQL,
 * {@code PostgresBudgetStore::spent}) and, optionally, the holds it still has open (for
 * PostgreSQL, {@code PostgresSettlement::unresolvedIntents}). A limiter configured with one
 * ({@link CounterLimiter.Builder#ledger}) rebuilds a shared store that lost its data before
 * admitting against it, and its orphan sweep keeps every hold the ledger names. Implementations
 * must be thread-safe.
 *
 * <p>Spend should include every settled call: a host whose usage records reach the database
 * through a journal drains it first, or the rebuilt counters lag by what was not yet drained.
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

  /**
   * Returns what a scope was charged by calls that started in a time range, leaving out the
   * charges of the given reservations. A rebuild reads the spend this way, leaving out every
   * hold an instance reported as still to end (a live call, or an end waiting for the store):
   * each of those ends adds its own charge to the rebuilt counters, so a charge the ledger
   * already has for one of them would otherwise be counted twice.
   *
   * <p>The default ignores the exclusions and returns {@link #spent}: a source that cannot leave
   * charges out may have the rebuilt counters count such a charge twice (more spend than the
   * ledger, never less). The PostgreSQL ledger leaves them out.
   *
   * @param scope the scope
   * @param from the start, inclusive
   * @param to the end, exclusive, or {@code null} for no end
   * @param reservationIds the reservations whose charges are left out
   * @return the charges in micro-units, never negative
   * @throws RuntimeException if the source cannot be read; the rebuild fails with it
   */
  default long spentExcluding(Scope scope, Instant from, Instant to,
      java.util.Set<String> reservationIds) {
    return spent(scope, from, to);
  }

  /**
   * Returns the dispatch intents of the holds the ledger still has open (interrupted calls not
   * yet attested or expired). The default has none.
   *
   * @return the intents; their reservation ids are the holds the ledger explains
   * @throws RuntimeException if the source cannot be read
   */
  default Collection<DispatchIntent> unresolvedHolds() {
    return List.of();
  }

  /**
   * Returns whether the settled spend already includes a reservation's charge (the ledger has
   * its call's usage record). A limiter rebuilding lost counters asks this, before it reads the
   * spend, for each end it still has pending, and drops the charge of those included so the
   * rebuilt spend does not count them twice. The default says no: such charges are applied
   * again, so counters err high (a budget refuses early), never low.
   *
   * @param reservationId the reservation's id
   * @return true when the spend includes its charge
   * @throws RuntimeException if the source cannot be read
   */
  default boolean includes(String reservationId) {
    return false;
  }

  /**
   * Returns what the ledger finally charged a reservation's call (settled, released, attested
   * or expired), or empty while the ledger has it open or does not know it. The orphan sweep
   * ends a hold the store kept after its call was settled (a hold a rebuild restored for an
   * instance that died before ending it) with this charge. The default knows none.
   *
   * @param reservationId the reservation's id (a gateway call's event id)
   * @return the charge in micro-units, or empty
   * @throws RuntimeException if the source cannot be read
   */
  default java.util.OptionalLong resolvedCharge(String reservationId) {
    return java.util.OptionalLong.empty();
  }

  /**
   * Returns a source of both parts.
   *
   * @param spent the settled spend
   * @param unresolved the open holds, read on every call
   * @return the source
   * @throws NullPointerException if an argument is null
   */
  static SpendSource of(SpendSource spent,
      Supplier<? extends Collection<DispatchIntent>> unresolved) {
    Objects.requireNonNull(spent, "spent");
    Objects.requireNonNull(unresolved, "unresolved");
    return new SpendSource() {
      @Override
      public long spent(Scope scope, Instant from, Instant to) {
        return spent.spent(scope, from, to);
      }

      @Override
      public long spentExcluding(Scope scope, Instant from, Instant to,
          java.util.Set<String> reservationIds) {
        return spent.spentExcluding(scope, from, to, reservationIds);
      }

      @Override
      public Collection<DispatchIntent> unresolvedHolds() {
        return unresolved.get();
      }

      @Override
      public java.util.OptionalLong resolvedCharge(String reservationId) {
        return spent.resolvedCharge(reservationId);
      }
    };
  }
}
