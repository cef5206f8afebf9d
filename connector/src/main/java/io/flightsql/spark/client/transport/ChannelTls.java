package io.flightsql.spark.client.transport;

import io.grpc.netty.GrpcSslContexts;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.util.InsecureTrustManagerFactory;
import java.io.ByteArrayInputStream;
import javax.net.ssl.SSLException;

/**
 * The TLS context of a channel, from options {@code tlsRootCerts}, {@code
 * disableCertificateVerification}, {@code clientCertificate} and {@code clientKey}.
 */
final class ChannelTls {
  private ChannelTls() {}

  /**
   * @throws IllegalArgumentException naming the options when their material cannot be used
   */
  static SslContext context(ConnectionSettings settings) {
    SslContextBuilder ssl = GrpcSslContexts.forClient();
    if (settings.skipCertificateVerification()) {
      ssl.trustManager(InsecureTrustManagerFactory.INSTANCE);
    } else if (settings.rootCertificates() != null) {
      try {
        ssl.trustManager(new ByteArrayInputStream(settings.rootCertificates()));
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(
            "Option 'tlsRootCerts' names a file without usable PEM certificates: " + e.getMessage(),
            e);
      }
    }
    if (settings.clientCertificate() != null) {
      try {
        ssl.keyManager(
            new ByteArrayInputStream(settings.clientCertificate()),
            new ByteArrayInputStream(settings.clientKey()));
      } catch (IllegalArgumentException e) {
        // The message of the PEM parser names the problem, never the key's content.
        throw new IllegalArgumentException(
            "Options 'clientCertificate' and 'clientKey' do not hold a PEM certificate chain and"
                + " a PKCS#8 PEM private key: "
                + e.getMessage(),
            e);
      }
    }
    try {
      return ssl.build();
    } catch (SSLException e) {
      throw new IllegalArgumentException(
          "The TLS settings (options 'tlsRootCerts', 'clientCertificate', 'clientKey') cannot be"
              + " used: "
              + e.getMessage(),
          e);
    }
  }
}
