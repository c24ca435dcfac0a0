/**
 * The request and response model of the OpenAI Chat Completions API, read and written with
 * Jackson by {@link io.pointsman.model.Json}. Every value is an immutable record; fields the
 * model does not name are kept in each record's {@code extra} map and survive a round trip.
 */
package io.pointsman.model;
