package io.pointsman.spi;

import io.pointsman.CallOptions;
import io.pointsman.Key;
import io.pointsman.model.ChatRequest;

/**
 * The state of one call as a custom stage sees it. Fields fill in as the lifecycle advances
 * (the identity after {@code identity.auth}, the model after {@code model.resolve}, the
 * deployment during an attempt). Not thread-safe: one call, one thread at a time.
 */
public interface Exchange {
  /**
   * Returns the call's request id.
   *
   * @return the id
   */
  String requestId();

  /**
   * Returns the call's event id, the key of its usage record.
   *
   * @return the id
   */
  String eventId();

  /**
   * Returns the call's options.
   *
   * @return the options
   */
  CallOptions options();

  /**
   * Returns the request as it currently stands (after redaction, once the input guardrail ran).
   *
   * @return the request
   */
  ChatRequest request();

  /**
   * Replaces the request for the rest of the lifecycle. Allowed before the provider phase;
   * a replacement that grows the prompt is charged at its actual usage.
   *
   * @param request the new request
   * @throws NullPointerException if request is null
   * @throws IllegalStateException when called after the provider phase began
   */
  void request(ChatRequest request);

  /**
   * Returns the caller's identity.
   *
   * @return the identity (never null once a stage runs: stages run after authentication)
   */
  Identity identity();

  /**
   * Returns the resolved model.
   *
   * @return the model, or {@code null} before {@code model.resolve}
   */
  ResolvedModel model();

  /**
   * Returns the deployment of the current attempt.
   *
   * @return the deployment, or {@code null} outside an attempt
   */
  Deployment deployment();

  /**
   * Returns the current attempt number.
   *
   * @return the attempt, 0 before the first
   */
  int attempt();

  /**
   * Returns an attribute a stage stored.
   *
   * @param <T> the value type
   * @param key the key
   * @return the value, or {@code null}
   */
  <T> T attribute(Key<T> key);

  /**
   * Stores an attribute for later stages of the same call.
   *
   * @param <T> the value type
   * @param key the key
   * @param value the value, or {@code null} to remove
   */
  <T> void attribute(Key<T> key, T value);
}
