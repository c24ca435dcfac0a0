package io.pointsman.examples.server;

import io.pointsman.journal.JournalAccounting;
import io.pointsman.journal.JournalPoisonedException;
import io.pointsman.spi.Accounting;
import io.pointsman.spi.DispatchIntent;
import io.pointsman.spi.UsageRecord;

/**
 * The gateway's accounting as the facade hands it over: the {@link JournalAccounting}, watched
 * for the failure that ends its usefulness. A journal poisoned by an I/O failure refuses every
 * later intent and record; the first call that meets it marks the journal poisoned here, which
 * its health check then reports until the process restarts. Every call is passed through
 * unchanged, failures included. Thread-safe.
 */
final class JournalWatch implements Accounting {
  private final JournalAccounting journal;
  private volatile String poisoned;

  JournalWatch(JournalAccounting journal) {
    this.journal = journal;
  }

  @Override
  public void dispatched(DispatchIntent intent) {
    try {
      journal.dispatched(intent);
    } catch (RuntimeException e) {
      observe(e);
      throw e;
    }
  }

  @Override
  public void settled(UsageRecord record) {
    try {
      journal.settled(record);
    } catch (RuntimeException e) {
      observe(e);
      throw e;
    }
  }

  private void observe(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t instanceof JournalPoisonedException) {
        poisoned = t.getMessage();
        return;
      }
    }
  }

  /**
   * Returns why the journal is poisoned.
   *
   * @return the poisoning failure's message, or null while it is not poisoned
   */
  String poisoned() {
    return poisoned;
  }

  /**
   * Returns the watched journal.
   *
   * @return the journal
   */
  JournalAccounting journal() {
    return journal;
  }

  @Override
  public void close() {
    journal.close();
  }
}
