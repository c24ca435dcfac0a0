/**
 * Budgets and limits: scopes, periods, rules, the limiter over a
 * {@link io.pointsman.spi.CounterStore} and its in-process store.
 */
package io.pointsman.limits;
