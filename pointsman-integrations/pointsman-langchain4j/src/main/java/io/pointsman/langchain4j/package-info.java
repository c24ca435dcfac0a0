/**
 * LangChain4j on an in-process Pointsman gateway: {@link io.pointsman.langchain4j.PointsmanChatModel}
 * and {@link io.pointsman.langchain4j.PointsmanStreamingChatModel}, usable wherever LangChain4j
 * takes a {@code ChatModel} or a {@code StreamingChatModel}, {@code AiServices} included.
 *
 * <p>How the caller's identity reaches the gateway: each call's virtual key comes from the
 * model's {@link io.pointsman.langchain4j.CallerKeys} ({@code CallerKeys.fixed(key)} or
 * {@code virtualKey(key)} on the builder for a single-tenant service), unless the request
 * carries its own in {@link io.pointsman.langchain4j.PointsmanChatRequestParameters#virtualKey()}.
 */
package io.pointsman.langchain4j;
