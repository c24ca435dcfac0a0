/**
 * Public testing support: the deterministic in-process {@link io.pointsman.testing.FixtureProvider}
 * and the {@link io.pointsman.testing.FakeClock}, for hosts testing their own stages the way
 * Pointsman tests its own.
 */
package io.pointsman.testing;
