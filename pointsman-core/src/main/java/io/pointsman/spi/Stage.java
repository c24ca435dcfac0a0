package io.pointsman.spi;

/**
 * A host-written stage, registered at an {@link InsertionPoint} with
 * {@link io.pointsman.Gateway.Builder#stage}. A stage may inspect or replace the request,
 * keep attributes, call {@code chain.proceed(exchange)} once and inspect or replace the reply,
 * short-circuit with its own reply, or throw a {@link io.pointsman.PointsmanException} to deny.
 *
 * <p>Whatever a stage does, accounting still happens: every authenticated call gets exactly
 * one usage record, and every reservation is settled or released exactly once, including
 * when the stage throws, returns null or calls {@code proceed} twice.
 *
 * <pre>{@code
 * Stage audit = (exchange, chain) -> {
 *   Reply reply = chain.proceed(exchange);
 *   auditLog.record(exchange.requestId(), reply.response().model());
 *   return reply;
 * };
 * Gateway gateway = Gateway.builder()...stage(InsertionPoint.AFTER_PROVIDER, "audit", audit)...
 * }</pre>
 *
 * <p>Implementations must be thread-safe: one instance serves every call.
 */
@FunctionalInterface
public interface Stage {
  /**
   * Handles one call.
   *
   * @param exchange the call's state
   * @param chain the rest of the lifecycle
   * @return the reply; never null
   */
  Reply apply(Exchange exchange, Chain chain);
}
