/**
 * Spring Boot auto-configuration of a durable Pointsman gateway: {@link
 * io.pointsman.spring.boot.PointsmanAutoConfiguration} builds it from {@link
 * io.pointsman.spring.boot.PointsmanProperties} ({@code pointsman.*}), backs off for every bean
 * the application defines, registers the Micrometer meters and the Actuator health indicator,
 * closes the gateway after the web server drained, and supplies the caller's virtual key
 * ({@link io.pointsman.spring.boot.CallerKeys}).
 */
package io.pointsman.spring.boot;
