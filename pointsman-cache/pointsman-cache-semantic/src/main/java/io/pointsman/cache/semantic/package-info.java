/**
 * The semantic L2: MiniLM-L6-v2 sentence embeddings on ONNX Runtime with our own WordPiece
 * tokenizer, an in-process vector index per tenant scope (a flat scan, HNSW from 2,048
 * entries), verification of every candidate by a replaceable {@link HitVerifier} (default
 * {@link AlignmentVerifier}), and replication of entries between instances through a Redis
 * stream.
 */
package io.pointsman.cache.semantic;
