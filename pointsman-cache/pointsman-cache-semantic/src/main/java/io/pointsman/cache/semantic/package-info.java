/**
 * The semantic L2: MiniLM-L6-v2 sentence embeddings on ONNX Runtime with our own WordPiece
 * tokenizer, an in-process vector index per tenant scope (a flat scan, HNSW from 2,048 entries), lexical verification of
 * every candidate, and replication of entries between instances through a Redis stream.
 */
package io.pointsman.cache.semantic;
