/**
 * Pointsman core: the {@link io.pointsman.Gateway}, the OpenAI request and response model, the
 * stage SPIs and an in-memory default for every stage.
 *
 * <p>Logging goes through SLF4J ({@code org.slf4j}); a modular application adds an SLF4J
 * provider module to its module path to see the log.
 */
module io.pointsman.core {
  requires transitive com.fasterxml.jackson.databind;
  requires transitive com.fasterxml.jackson.annotation;
  requires transitive com.fasterxml.jackson.core;
  requires jtokkit;
  requires HdrHistogram;
  requires org.slf4j;
  requires transitive java.net.http;

  exports io.pointsman;
  exports io.pointsman.accounting;
  exports io.pointsman.auth;
  exports io.pointsman.cache;
  exports io.pointsman.catalog;
  exports io.pointsman.guardrail;
  exports io.pointsman.limits;
  exports io.pointsman.model;
  exports io.pointsman.model.anthropic;
  exports io.pointsman.provider;
  exports io.pointsman.provider.http;
  exports io.pointsman.route;
  exports io.pointsman.spi;

  // Jackson binds the request and response model by reflection.
  opens io.pointsman.model to com.fasterxml.jackson.databind;
  opens io.pointsman.model.anthropic to com.fasterxml.jackson.databind;
}
