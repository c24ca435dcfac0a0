/**
 * Public testing support for provider adapters: {@link
 * io.pointsman.provider.testing.HttpFixtureServer}, a loopback HTTP server built on the JDK alone
 * that serves scripted responses (JSON bodies, event streams with per-frame delays, error
 * statuses with retry hints, streams cut mid-way, responses that never come) and records every
 * request for golden comparisons.
 */
package io.pointsman.provider.testing;
