package io.pointsman.ledger;

import io.pointsman.spi.InterruptedCall;

/**
 * Decides an interrupted call's floor: the least it certainly cost if the provider processed
 * it, below which an attestation is refused as implausible. Evaluated once, when the call is
 * recorded as {@code UNKNOWN}; the floor is stored with its hold. Implementations must be
 * thread-safe, fast and side-effect free.
 */
@FunctionalInterface
public interface FloorPolicy {
  /**
   * Returns the call's floor.
   *
   * @param call the interrupted call
   * @return the floor in micro-units, at least zero
   */
  long floorMicros(InterruptedCall call);

  /**
   * Returns the default policy: a floor of zero. The dispatch intent carries the hold and the
   * worst case but not the prompt's exact price, and an interrupted call may never have
   * reached the provider, so zero is the only cost the ledger knows to be certain.
   *
   * @return the policy
   */
  static FloorPolicy zero() {
    return call -> 0L;
  }
}
