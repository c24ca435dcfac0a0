/**
 * Semantic L2 cache (MiniLM sentence embeddings on ONNX Runtime) and Redis-backed shared
 * cache stores.
 *
 * <p>Not yet implemented: this module is a compiling skeleton until the cache work lands.
 * The exact in-memory default cache lives in {@code pointsman-core}.
 */
package io.pointsman.cache.semantic;
