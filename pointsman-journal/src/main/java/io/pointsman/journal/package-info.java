/**
 * Durable usage journal: a segmented, checksummed, group-committed log that makes dispatch
 * intents and settled usage records durable before a provider is called or a caller is
 * answered, and recovers them after a crash. It implements core's accounting SPI.
 */
package io.pointsman.journal;
