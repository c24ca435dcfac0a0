/** Budgets and limits: scopes, rules and the in-process atomic multi-scope limiter. */
package io.pointsman.limits;
