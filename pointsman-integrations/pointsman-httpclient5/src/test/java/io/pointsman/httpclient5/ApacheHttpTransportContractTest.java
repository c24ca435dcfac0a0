package io.pointsman.httpclient5;

import io.pointsman.provider.HttpTimeouts;
import io.pointsman.provider.http.HttpTransport;

/** The transport contract over Apache HttpClient 5 classic. */
class ApacheHttpTransportContractTest extends TransportContract {
  @Override
  HttpTransport transport(HttpTimeouts timeouts) {
    return ApacheHttpTransport.builder().connectTimeout(timeouts.connect()).build();
  }
}
