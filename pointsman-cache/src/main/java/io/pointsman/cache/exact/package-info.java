/** The exact L1 on Caffeine, with an optional shared exact tier in Redis. */
package io.pointsman.cache.exact;
