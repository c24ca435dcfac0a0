package io.pointsman.spring.boot;

import io.pointsman.Gateway;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.context.SmartLifecycle;

/**
 * Closes the application's {@link Gateway} when the context closes, after the web server has
 * drained its requests: its phase ({@link #PHASE}) is below those of Spring Boot's graceful
 * shutdown and web server lifecycles, so it stops after them. Closing drains the journal into
 * the ledger, then closes the ledger, the limiter, the caches and the providers; the
 * application's {@code DataSource} is still open then (beans are destroyed after every
 * lifecycle stopped). A stopped context does not reopen the gateway: refresh a new context.
 */
public final class PointsmanGatewayLifecycle implements SmartLifecycle {
  /**
   * The phase: below the web server's ({@code SmartLifecycle.DEFAULT_PHASE - 2048}) and its
   * graceful shutdown's ({@code DEFAULT_PHASE - 1024}), so this stops last.
   */
  public static final int PHASE = SmartLifecycle.DEFAULT_PHASE - 4096;
  private static final Logger LOG = LoggerFactory.getLogger(PointsmanGatewayLifecycle.class);

  private final ObjectProvider<Gateway> gateway;
  private volatile boolean running;

  /**
   * Creates the lifecycle.
   *
   * @param gateway the gateway bean, looked up when stopping
   * @throws NullPointerException if gateway is null
   */
  public PointsmanGatewayLifecycle(ObjectProvider<Gateway> gateway) {
    this.gateway = Objects.requireNonNull(gateway, "gateway");
  }

  @Override
  public void start() {
    running = true;
  }

  @Override
  public void stop() {
    if (!running) {
      return;
    }
    running = false;
    Gateway g = gateway.getIfUnique();
    if (g != null) {
      LOG.info("closing the pointsman gateway: draining the journal into the ledger");
      g.close();
    }
  }

  @Override
  public boolean isRunning() {
    return running;
  }

  @Override
  public int getPhase() {
    return PHASE;
  }
}
