/**
 * Durable usage journal: a segmented, checksummed, group-committed log that makes records durable
 * before an append completes, and recovers them after a crash. {@link
 * io.pointsman.journal.SegmentedJournal} is the storage engine; payloads are opaque bytes. The
 * accounting layer that writes dispatch intents and settled usage records through it is built on
 * top. {@link io.pointsman.journal.JournalIO} is the file-system seam every byte goes through.
 */
package io.pointsman.journal;
