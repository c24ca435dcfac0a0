package io.pointsman.examples.sim;

import java.util.EnumSet;
import java.util.Set;

/**
 * The fault classes the simulation injects, by boundary. A seed enables a few of them (its
 * profile); each call then draws which enabled faults it meets.
 */
enum Fault {
  // The provider (a custom io.pointsman.spi.Provider).
  /** A reply without usage: the gateway estimates. */
  NO_USAGE(Boundary.PROVIDER),
  /** Usage above the cap the request was sent with (the documented overshoot). */
  OVER_CAP(Boundary.PROVIDER),
  /** Usage so large that its cost overflows a long. */
  OVERFLOW_USAGE(Boundary.PROVIDER),
  /** Garbage usage (negative counts): the adapter throws while building the reply. */
  NEGATIVE_USAGE(Boundary.PROVIDER),
  /** {@code ProviderException.answered} with one of many statuses, some with retry-after. */
  ANSWERED(Boundary.PROVIDER),
  /** {@code ProviderException.notSent}. */
  NOT_SENT(Boundary.PROVIDER),
  /** {@code ProviderException.unknownOutcome}: may have billed up to the worst case. */
  UNKNOWN_OUTCOME(Boundary.PROVIDER),
  /** An untyped RuntimeException from the adapter. */
  RUNTIME_EXCEPTION(Boundary.PROVIDER),
  /** The provider returns null. */
  NULL_REPLY(Boundary.PROVIDER),
  /** The provider interrupts the calling thread, then fails or answers normally. */
  INTERRUPT(Boundary.PROVIDER),
  /** The provider hangs until the call's deadline (simulated clock), then times out. */
  HANG(Boundary.PROVIDER),
  /** A stream cut after some chunks (connection reset). */
  CUT_STREAM(Boundary.PROVIDER),
  /** An Error from the provider: OutOfMemoryError, StackOverflowError or AssertionError. */
  ERROR(Boundary.PROVIDER),

  // Stream observers.
  /** The caller's observer throws in onStart. */
  OBSERVER_THROWS_ON_START(Boundary.OBSERVER),
  /** The caller's observer throws in onChunk. */
  OBSERVER_THROWS_ON_CHUNK(Boundary.OBSERVER),
  /** The caller cancels the stream after some chunks. */
  OBSERVER_CANCELS(Boundary.OBSERVER),

  // Custom stages at every insertion point.
  /** A stage throws a RuntimeException, before or after proceeding. */
  STAGE_THROWS(Boundary.STAGE),
  /** A stage answers without proceeding. */
  STAGE_SHORT_CIRCUITS(Boundary.STAGE),
  /** A stage calls proceed twice. */
  STAGE_PROCEEDS_TWICE(Boundary.STAGE),
  /** A stage throws an Error after proceeding. */
  STAGE_ERROR(Boundary.STAGE),
  /** A before-provider stage rejects a good reply as a retryable provider failure. */
  STAGE_RETRIES_REPLY(Boundary.STAGE),
  /** A before-provider stage swallows a provider failure and answers itself. */
  STAGE_SWALLOWS_FAILURE(Boundary.STAGE),

  // The counter store (a wrapper around InProcessCounterStore). Lost replies and duplicated
  // deliveries are outside the in-process store's contract: see FaultyCounterStore.
  /** An operation not applied that fails 1 to 3 times (the limiter's retries, or more). */
  STORE_TIMEOUT(Boundary.STORE),
  /**
   * The store loses every counter; budgets are refused until the journal drained into
   * settlement and the counters were rebuilt from it.
   */
  STORE_WIPE(Boundary.STORE),

  // Settlement (the system of record behind the journal).
  /** Settlement down for a whole epoch between restarts. */
  SETTLEMENT_DOWN(Boundary.SETTLEMENT),
  /** Settlement slow: nothing commits before the next restart (or, synchronous, 2 s each). */
  SETTLEMENT_SLOW(Boundary.SETTLEMENT),
  /** Settlement refusing each record's first commit (synchronous settlement). */
  SETTLEMENT_FLAKY(Boundary.SETTLEMENT),

  // The process.
  /** A restart between calls: journal recovery, counters rebuilt from settlement. */
  RESTART(Boundary.PROCESS);

  /** Where a fault is injected. */
  enum Boundary { PROVIDER, OBSERVER, STAGE, STORE, SETTLEMENT, PROCESS }

  final Boundary boundary;

  Fault(Boundary boundary) {
    this.boundary = boundary;
  }

  static Set<Fault> of(Boundary boundary) {
    Set<Fault> out = EnumSet.noneOf(Fault.class);
    for (Fault f : values()) {
      if (f.boundary == boundary) {
        out.add(f);
      }
    }
    return out;
  }

  /** Parses a comma-separated list of names, or "all" / "none". */
  static Set<Fault> parse(String spec) {
    if (spec == null || spec.isBlank() || spec.equals("all")) {
      return EnumSet.allOf(Fault.class);
    }
    Set<Fault> out = EnumSet.noneOf(Fault.class);
    if (spec.equals("none")) {
      return out;
    }
    for (String s : spec.split(",")) {
      out.add(Fault.valueOf(s.trim()));
    }
    return out;
  }
}
