/** The in-memory accounting recorder: the accounting SPI for tests and demos. */
package io.pointsman.accounting;
