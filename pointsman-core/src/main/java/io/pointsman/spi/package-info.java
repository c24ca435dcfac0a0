/**
 * The stage SPIs of the request lifecycle, one interface per stage, the accounting SPI that
 * carries the durability protocol, and the custom-stage SPI ({@link io.pointsman.spi.Stage}).
 *
 * <p>Every built-in stage has an in-memory default in core; a host replaces any of them through
 * {@link io.pointsman.Gateway.Builder}.
 */
package io.pointsman.spi;
