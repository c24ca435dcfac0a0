/** Limit counters in Redis, shared by several gateway instances: one Lua script per operation. */
package io.pointsman.limits.redis;
