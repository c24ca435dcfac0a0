/**
 * Testing support: a real Redis server for tests, resolved in a fixed order, with a key prefix
 * per test run that is removed afterwards.
 */
package io.pointsman.cache.redis.testing;
