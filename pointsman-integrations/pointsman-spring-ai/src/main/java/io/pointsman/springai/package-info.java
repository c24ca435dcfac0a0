/**
 * Spring AI on an in-process Pointsman gateway: {@link io.pointsman.springai.PointsmanChatModel}
 * is a Spring AI {@link org.springframework.ai.chat.model.ChatModel} whose calls and streams go
 * through a {@link io.pointsman.Gateway} in the same JVM, with no HTTP hop.
 */
package io.pointsman.springai;
