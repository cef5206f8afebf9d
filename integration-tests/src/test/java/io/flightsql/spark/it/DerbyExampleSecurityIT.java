package io.flightsql.spark.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.flightsql.spark.server.TestCertificates;
import io.flightsql.spark.servers.DerbyExampleServer;
import java.io.ByteArrayInputStream;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.flight.CallOption;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.FlightStatusCode;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.flight.Location;
import org.apache.arrow.flight.grpc.CredentialCallOption;
import org.apache.arrow.flight.sql.FlightSqlClient;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VarCharVector;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Derby launcher's security options: Arrow's example server with basic authentication and TLS,
 * reached by Arrow's own Flight SQL client that trusts the test CA. (The connector's side of this
 * is tested with the connector.)
 */
@SuppressWarnings("try") // Arrow's FlightStream and FlightSqlClient close() declare Exception
class DerbyExampleSecurityIT {

  private static final String QUERY = "SELECT keyName FROM intTable ORDER BY id";

  @TempDir Path directory;

  @Test
  void servesClientsThatTrustItsCaAndAuthenticate() throws Exception {
    TestCertificates certificates = TestCertificates.create(directory);
    try (DerbyExampleServer server =
            DerbyExampleServer.builder("derby-security-it")
                .basicAuth("derby", "s3cret")
                .tls(certificates.serverCertificate(), certificates.serverKey())
                .start();
        BufferAllocator allocator = new RootAllocator();
        FlightClient flight =
            FlightClient.builder(allocator, new Location(URI.create(server.uri())))
                .trustedCertificates(
                    new ByteArrayInputStream(Files.readAllBytes(certificates.caCertificate())))
                .build();
        FlightSqlClient client = new FlightSqlClient(flight)) {
      assertThat(server.uri()).startsWith("grpc+tls://127.0.0.1:");

      assertThatThrownBy(() -> client.execute(QUERY))
          .isInstanceOfSatisfying(
              FlightRuntimeException.class,
              e -> assertThat(e.status().code()).isEqualTo(FlightStatusCode.UNAUTHENTICATED));
      assertThatThrownBy(() -> flight.authenticateBasicToken("derby", "wrong"))
          .isInstanceOfSatisfying(
              FlightRuntimeException.class,
              e -> assertThat(e.status().code()).isEqualTo(FlightStatusCode.UNAUTHENTICATED));

      CredentialCallOption bearer = flight.authenticateBasicToken("derby", "s3cret").orElseThrow();
      assertThat(keyNames(client, client.execute(QUERY, bearer), bearer))
          .containsExactly("one", "zero", "negative one");
    }
  }

  @Test
  void refusesClientsThatDoNotTrustItsCertificate() throws Exception {
    TestCertificates certificates = TestCertificates.create(directory);
    try (DerbyExampleServer server =
            DerbyExampleServer.builder("derby-security-it")
                .tls(certificates.serverCertificate(), certificates.serverKey())
                .start();
        BufferAllocator allocator = new RootAllocator();
        FlightSqlClient client =
            new FlightSqlClient(
                FlightClient.builder(allocator, new Location(URI.create(server.uri())))
                    .trustedCertificates(
                        new ByteArrayInputStream(
                            Files.readAllBytes(certificates.untrustedCaCertificate())))
                    .build())) {
      assertThatThrownBy(() -> client.execute(QUERY))
          .isInstanceOfSatisfying(
              FlightRuntimeException.class,
              e -> assertThat(e.status().code()).isEqualTo(FlightStatusCode.UNAVAILABLE));
    }
  }

  private static List<String> keyNames(FlightSqlClient client, FlightInfo info, CallOption option)
      throws Exception {
    List<String> names = new ArrayList<>();
    try (FlightStream stream = client.getStream(info.getEndpoints().get(0).getTicket(), option)) {
      while (stream.next()) {
        VarCharVector vector = (VarCharVector) stream.getRoot().getVector(0);
        for (int i = 0; i < stream.getRoot().getRowCount(); i++) {
          names.add(vector.getObject(i).toString());
        }
      }
    }
    return names;
  }
}
