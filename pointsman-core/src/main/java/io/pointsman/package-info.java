/** Pointsman: an embeddable, in-process LLM gateway. */
package io.pointsman;
