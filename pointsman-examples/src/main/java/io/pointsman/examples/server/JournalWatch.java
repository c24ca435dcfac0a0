package io.pointsman.examples.server;

import io.pointsman.journal.JournalAccounting;

/**
 * The journal as the facade's health check sees it: a journal poisoned by an I/O failure
 * refuses every later intent and record, which its health check reports until the process
 * restarts. Read from the journal's settler state, which the gateway's own journal keeps.
 * Thread-safe.
 */
final class JournalWatch {
  private final JournalAccounting journal;

  JournalWatch(JournalAccounting journal) {
    this.journal = journal;
  }

  /**
   * Returns why the journal is poisoned.
   *
   * @return a description of the failure, or null while it is not poisoned
   */
  String poisoned() {
    return journal.settlerState().journalPoisoned()
        ? "a write or force of the journal failed" : null;
  }

  /**
   * Returns the watched journal.
   *
   * @return the journal
   */
  JournalAccounting journal() {
    return journal;
  }
}
