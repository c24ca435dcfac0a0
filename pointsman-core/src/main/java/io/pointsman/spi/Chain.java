package io.pointsman.spi;

/**
 * The rest of the lifecycle after a custom stage. A stage calls {@link #proceed} at most once;
 * calling it twice, or returning null from the stage, fails the call with an error naming the
 * stage. Not thread-safe: use it on the thread that called the stage.
 */
public interface Chain {
  /**
   * Runs the rest of the lifecycle.
   *
   * @param exchange the exchange the stage received
   * @return what the rest produced
   * @throws io.pointsman.PointsmanException from later stages, or when called twice
   */
  Reply proceed(Exchange exchange);
}
