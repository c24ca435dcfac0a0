/**
 * Spring AI on an in-process Pointsman gateway: {@link io.pointsman.springai.PointsmanChatModel}
 * is a Spring AI {@link org.springframework.ai.chat.model.ChatModel} whose calls and streams go
 * through a {@link io.pointsman.Gateway} in the same JVM, with no HTTP hop. Everything built on a
 * {@code ChatModel} works unchanged: {@code ChatClient}, advisors, tool calling with
 * {@code @Tool} methods or {@code FunctionToolCallback}s, structured output with
 * {@code entity(...)}.
 *
 * <pre>{@code
 * ChatModel chatModel = PointsmanChatModel.builder(gateway)
 *     .keys(CallerKeys.fixed("pm-my-service-key"))
 *     .defaultModel("gpt-4o-mini")
 *     .build();
 * ChatClient chatClient = ChatClient.create(chatModel);
 * String answer = chatClient.prompt().user("What does a pointsman do?").call().content();
 * }</pre>
 *
 * <h2>Whose call it is</h2>
 *
 * <p>Every call is made with a virtual key. The key in the call's
 * {@link io.pointsman.springai.PointsmanChatOptions#getVirtualKey() options} wins; without one,
 * the model's {@link io.pointsman.springai.CallerKeys} names it (a single-tenant service uses
 * {@link io.pointsman.springai.CallerKeys#fixed(String)}; a multi-tenant one reads the key of
 * the current request or security principal). A call with neither fails with an
 * {@link java.lang.IllegalStateException} before it reaches the gateway.
 *
 * <pre>{@code
 * String answer = chatClient.prompt()
 *     .user("What does a pointsman do?")
 *     .options(PointsmanChatOptions.builder().virtualKey(tenantKey).build())
 *     .call().content();
 * }</pre>
 *
 * <h2>What maps to what</h2>
 *
 * <ul>
 *   <li>Messages: system, user (text, and images as URLs or bytes, sent as {@code image_url}
 *       parts), assistant (text and tool calls), tool responses (one tool message each).
 *   <li>Options: model, temperature, top-p, max tokens (sent as
 *       {@code max_completion_tokens}), stop sequences, frequency and presence penalties, seed,
 *       user, tools; an output schema becomes a {@code json_schema} response format (Spring
 *       AI's {@code AdvisorParams.ENABLE_NATIVE_STRUCTURED_OUTPUT} sets it); the cache control.
 *       Top-k is not supported.
 *   <li>Response: usage (prompt, completion and total tokens; the gateway's
 *       {@link io.pointsman.model.Usage} as the native usage; summed over a tool loop's calls),
 *       finish reasons upper-cased ({@code STOP}, {@code TOOL_CALLS}, {@code LENGTH}), and the
 *       gateway's request id, event id, cost, outcome, cache status and deployment under the
 *       {@code PointsmanChatModel.METADATA_*} keys.
 *   <li>Tool calling: Spring AI's internal tool execution loop. Each round is its own gateway
 *       call, authenticated, limited and accounted on its own; the budget can end a loop.
 *   <li>Failures: {@code TransientAiException} for 429, 500, 502, 503 and 504 (Spring AI's
 *       retry template retries those), {@code NonTransientAiException} for 400, 401, 402 (a
 *       budget refusal), 403 and 404; the cause is the gateway's
 *       {@link io.pointsman.PointsmanException} with its status, stage and rule.
 * </ul>
 *
 * <h2>Streams</h2>
 *
 * <p>The gateway delivers a stream's chunks on the calling thread, so each stream runs as one
 * task on a Reactor scheduler ({@code boundedElastic} unless the builder names another), for
 * the stream's whole length. Text arrives chunk by chunk; tool calls are assembled and come
 * with the last response, which carries the usage and the metadata. Disposing the subscription
 * cancels the gateway stream: the provider stops after the chunk in hand and the call is
 * accounted as {@code CANCELLED}, charged its input and the output streamed so far (an
 * estimate). The thread is not interrupted.
 *
 * <pre>{@code
 * Disposable subscription = chatClient.prompt().user("Tell me a long story.")
 *     .stream().content()
 *     .subscribe(out::append);
 * }</pre>
 */
package io.pointsman.springai;
