/**
 * The Redis server behind the shared cache tiers: one pooled client, a key prefix and a
 * time-out per command after which a cache degrades to a miss.
 */
package io.pointsman.cache.redis;
