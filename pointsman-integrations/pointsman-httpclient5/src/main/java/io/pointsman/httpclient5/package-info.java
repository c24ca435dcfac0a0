/**
 * The provider adapters' HTTP transport on Apache HttpClient 5 classic
 * ({@link io.pointsman.httpclient5.ApacheHttpTransport}): each attempt is sent and read on the
 * calling thread over a pooled keep-alive connection, with no hand-off to other threads.
 */
package io.pointsman.httpclient5;
