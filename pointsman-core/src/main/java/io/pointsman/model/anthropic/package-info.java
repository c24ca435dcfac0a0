/**
 * Anthropic's Messages API as an input: its requests ({@link
 * io.pointsman.model.anthropic.MessagesRequest}), responses ({@link
 * io.pointsman.model.anthropic.MessagesResponse}) and stream events ({@link
 * io.pointsman.model.anthropic.StreamEvent}), read and written with Jackson like {@link
 * io.pointsman.model}, and their translation to and from the gateway's model ({@link
 * io.pointsman.model.anthropic.AnthropicMessages}, {@link
 * io.pointsman.model.anthropic.AnthropicStream}). What the gateway's model cannot carry is
 * refused with an {@link io.pointsman.model.anthropic.AnthropicException}, which carries
 * Anthropic's error shape.
 */
package io.pointsman.model.anthropic;
