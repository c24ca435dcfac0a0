package io.pointsman;

/** Lets a stream's observer cancel it. Thread-safe: cancel may be called from any thread. */
public interface StreamControl {
  /**
   * Cancels the stream: the provider stops after the chunk in hand, and the call is charged its
   * input plus the output streamed so far, flagged as estimated.
   */
  void cancel();

  /**
   * Returns whether the stream was cancelled.
   *
   * @return true after {@link #cancel}
   */
  boolean cancelled();
}
