/**
 * Optional guardrail detectors that need the semantic layer's sentence embedder: {@link
 * io.pointsman.cache.semantic.guard.EmbeddingInjectionDetector}, prompt-injection detection by
 * logistic regression over MiniLM embeddings. Each call costs one embedding per sentence window
 * (milliseconds), so these are for hosts that already run {@link
 * io.pointsman.cache.semantic.MiniLmEmbedder}; the gateway's default input chain does not use
 * them.
 */
package io.pointsman.cache.semantic.guard;
