package io.pointsman.examples.sim;

/**
 * Deliberately broken accounting, built as seams in test code (a limiter or accounting
 * wrapper between the gateway and the real component), that the simulation must catch.
 */
enum Mutant {
  /** The real components, unchanged. */
  NONE,
  /** Settling a reservation releases it instead: the charge never reaches the counters. */
  RELEASE_INSTEAD_OF_SETTLE,
  /** Releasing a reservation does nothing: the hold of every call that never dispatched leaks. */
  LEAK_HOLD_ON_RELEASE,
  /** A reservation's retry hold ({@code extend}) is reported taken but never held. */
  EXTEND_WITHOUT_HOLD,
  /** Usage records of calls that did not succeed are dropped instead of journaled. */
  DROP_FAILED_RECORD,
  /** Dispatch intents are acknowledged without being journaled. */
  SKIP_DISPATCH_INTENT,
  /** Usage records are journaled at half their cost. */
  UNDERCHARGE_RECORD
}
