package io.pointsman.examples.server;

import java.time.Duration;
import java.util.Objects;

/**
 * The limits the facade's HTTP server enforces against slow, large or hostile clients and
 * against a hanging upstream. Immutable.
 *
 * <pre>{@code
 * FacadeServer server = FacadeServer.start(facade,
 *     ServerLimits.defaults().withDeploymentConcurrency(16));
 * }</pre>
 *
 * @param maxConnections open connections at most; further ones wait in the accept queue
 * @param idleTimeout how long a connection may make no progress (no byte read or written)
 *     before it is closed; a call the server is still working on is not ended by it
 * @param headerTimeout how long a new connection may take to deliver its first request's
 *     headers before it is closed (a slow header sender holds no thread, only a socket)
 * @param bodyTimeout how long a request body may take in all before the call is refused with
 *     408 and the connection closed
 * @param deploymentConcurrency calls in flight per deployment at most; one more is refused at
 *     once with 503 {@code deployment_busy} and {@code Retry-After}, so a hanging upstream fills
 *     only its own bulkhead
 * @param adminThreads the threads of the admin endpoints (which may wait on PostgreSQL); kept
 *     apart from the chat calls and from health and metrics
 * @param serverThreads the threads that parse requests and serve health, metrics and models;
 *     chat calls never run on them
 */
public record ServerLimits(int maxConnections, Duration idleTimeout, Duration headerTimeout,
    Duration bodyTimeout, int deploymentConcurrency, int adminThreads, int serverThreads) {

  /**
   * Validates the limits.
   *
   * @throws IllegalArgumentException if a count is below 1 or a duration is not positive
   * @throws NullPointerException if a duration is null
   */
  public ServerLimits {
    positive("maxConnections", maxConnections);
    positive("deploymentConcurrency", deploymentConcurrency);
    positive("adminThreads", adminThreads);
    if (serverThreads < 4) {
      throw new IllegalArgumentException("serverThreads must be at least 4: " + serverThreads);
    }
    positive("idleTimeout", idleTimeout);
    positive("headerTimeout", headerTimeout);
    positive("bodyTimeout", bodyTimeout);
  }

  /**
   * The defaults: 4,096 connections, a 30 s idle timeout, 10 s for the first request's headers,
   * 30 s for a body, 64 calls per deployment, 4 admin threads, 64 server threads.
   *
   * @return the defaults
   */
  public static ServerLimits defaults() {
    return new ServerLimits(4_096, Duration.ofSeconds(30), Duration.ofSeconds(10),
        Duration.ofSeconds(30), 64, 4, 64);
  }

  /**
   * Returns these limits with another per-deployment concurrency.
   *
   * @param value calls in flight per deployment at most
   * @return the new limits
   */
  public ServerLimits withDeploymentConcurrency(int value) {
    return new ServerLimits(maxConnections, idleTimeout, headerTimeout, bodyTimeout, value,
        adminThreads, serverThreads);
  }

  /**
   * Returns these limits with other read timeouts.
   *
   * @param idle the idle timeout
   * @param header the first request's header timeout
   * @param body the body timeout
   * @return the new limits
   */
  public ServerLimits withTimeouts(Duration idle, Duration header, Duration body) {
    return new ServerLimits(maxConnections, idle, header, body, deploymentConcurrency,
        adminThreads, serverThreads);
  }

  /**
   * Returns these limits with another connection limit.
   *
   * @param value open connections at most
   * @return the new limits
   */
  public ServerLimits withMaxConnections(int value) {
    return new ServerLimits(value, idleTimeout, headerTimeout, bodyTimeout,
        deploymentConcurrency, adminThreads, serverThreads);
  }

  private static void positive(String name, int value) {
    if (value < 1) {
      throw new IllegalArgumentException(name + " must be at least 1: " + value);
    }
  }

  private static void positive(String name, Duration value) {
    Objects.requireNonNull(value, name);
    if (value.isNegative() || value.isZero()) {
      throw new IllegalArgumentException(name + " must be positive: " + value);
    }
  }
}
