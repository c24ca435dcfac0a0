/**
 * The HTTP transport SPI of the provider adapters: how an attempt's request goes out and its
 * response comes back. The adapters use the JDK's {@code java.net.http.HttpClient} unless given
 * another {@link io.pointsman.provider.http.HttpTransport} (for example
 * {@code pointsman-httpclient5}); the timeouts, body caps, stream back-pressure and error mapping
 * stay the adapters' own whichever transport carries the bytes.
 */
package io.pointsman.provider.http;
