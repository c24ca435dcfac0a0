package io.pointsman.httpclient5;

import io.pointsman.provider.HttpTimeouts;
import io.pointsman.provider.http.HttpTransport;
import io.pointsman.provider.http.JdkHttpTransport;
import java.net.http.HttpClient;

/**
 * The transport contract over the JDK client behind the SPI (a lambda, so that the adapter
 * takes the same pulled path as for any other transport), for comparison.
 */
class JdkHttpTransportContractTest extends TransportContract {
  @Override
  HttpTransport transport(HttpTimeouts timeouts) {
    JdkHttpTransport jdk = JdkHttpTransport.of(HttpClient.newBuilder()
        .version(HttpClient.Version.HTTP_1_1).connectTimeout(timeouts.connect())
        .followRedirects(HttpClient.Redirect.NEVER).build());
    return jdk::send;
  }
}
