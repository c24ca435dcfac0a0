package io.pointsman.journal;

/**
 * Thrown by {@link JournalAccounting} when the journal holds more than its configured limit
 * ({@link JournalAccounting.Builder#maxJournalBytes(long)}) because settlement is behind, for
 * example while the database is down: a new dispatch intent could not be recorded within the
 * limit, so the provider is not called (the gateway answers 503). It clears by itself once
 * settlement catches up and segments are reclaimed. Immutable.
 */
public final class JournalFullException extends JournalException {
  private static final long serialVersionUID = 1L;

  /** The bytes of segment files held when the call was refused. */
  private final long retainedBytes;
  /** The configured limit, in bytes. */
  private final long limitBytes;

  /**
   * Creates the exception.
   *
   * @param retainedBytes the bytes of segment files the journal holds
   * @param limitBytes the configured limit
   */
  public JournalFullException(long retainedBytes, long limitBytes) {
    super("the journal holds " + retainedBytes + " bytes of segments not yet settled, over its"
        + " limit of " + limitBytes + " bytes: settlement is behind (is the database down?), so"
        + " new calls are refused until it catches up");
    this.retainedBytes = retainedBytes;
    this.limitBytes = limitBytes;
  }

  /**
   * Returns the bytes of segment files held when the call was refused.
   *
   * @return bytes
   */
  public long retainedBytes() {
    return retainedBytes;
  }

  /**
   * Returns the configured limit.
   *
   * @return bytes
   */
  public long limitBytes() {
    return limitBytes;
  }
}
