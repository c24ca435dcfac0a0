package io.pointsman.provider;

import io.pointsman.Clock;
import io.pointsman.provider.http.HttpTransport;
import io.pointsman.provider.http.JdkHttpTransport;
import io.pointsman.spi.Provider;

/**
 * {@link ProviderTransportTest} again over the pulled path, the one every transport other than
 * the JDK's default takes: the JDK client behind the {@link HttpTransport} SPI (a lambda, so
 * that the adapter cannot recognise it as the JDK's).
 */
class ProviderTransportPulledTest extends ProviderTransportTest {
  static HttpTransport pulled(HttpTimeouts timeouts) {
    JdkHttpTransport jdk = JdkHttpTransport.of(ProviderTransport.defaultClient(timeouts));
    return jdk::send;
  }

  @Override
  Provider openAi(HttpTimeouts timeouts) {
    return OpenAiProvider.builder().baseUri(server().uri()).timeouts(timeouts)
        .transport(pulled(timeouts)).build();
  }

  @Override
  ProviderTransport transport(int maxBody) {
    return new ProviderTransport("t", pulled(Fixtures.SHORT), Fixtures.SHORT, Clock.system(),
        maxBody);
  }
}
