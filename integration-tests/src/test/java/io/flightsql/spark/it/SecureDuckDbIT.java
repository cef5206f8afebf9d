package io.flightsql.spark.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.flightsql.spark.server.CallRecorder;
import io.flightsql.spark.server.DuckDbFlightSqlServer;
import io.flightsql.spark.server.DuckDbFlightSqlServerBuilder;
import io.flightsql.spark.server.RecordedCall;
import io.flightsql.spark.server.TestCertificates;
import io.flightsql.spark.servers.FreePorts;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The shaded connector (TLS on the JDK's engine, gRPC and Netty relocated) against the embedded
 * DuckDB server with mutual TLS, a token, a header and cookie sessions; and endpoint locations:
 * failover past a dead address, and a plaintext location behind a TLS uri refused.
 */
@ExtendWith(ArrowLeakCheckExtension.class)
class SecureDuckDbIT {
  private static final String TOKEN = "it-Secr3t-token";
  private static final String RANGE = "SELECT * FROM range(0, 1000) t(id)";

  @TempDir static Path directory;
  private static TestCertificates certificates;

  @RegisterExtension static final SparkSessionExtension spark = SparkSessionExtension.local();

  @BeforeAll
  static void start() {
    certificates = TestCertificates.create(directory);
  }

  private static DuckDbFlightSqlServerBuilder server() {
    return DuckDbFlightSqlServer.builder()
        .host(FreePorts.LOOPBACK)
        .port(0)
        .endpoints(2)
        .lineitemRows(0);
  }

  private static long count(String uri, Map<String, String> options) {
    return spark
        .session()
        .read()
        .format("flightsql")
        .option("uri", uri)
        .options(options)
        .option("query", RANGE)
        .load()
        .count();
  }

  @Test
  void mutualTlsTokenHeaderAndSessionCookiesOnReadsAndWrites() throws Exception {
    CallRecorder recorder = new CallRecorder();
    try (DuckDbFlightSqlServer server =
        server()
            .middleware(CallRecorder.KEY, recorder)
            .actionObserver(recorder::actionStarted)
            .tls(certificates.serverCertificate(), certificates.serverKey())
            .clientCertificates(certificates.caCertificate())
            .bearerToken(TOKEN)
            .sessions(true)
            .start()) {
      Map<String, String> options = new HashMap<>();
      options.put("tlsRootCerts", certificates.caCertificate().toString());
      options.put("clientCertificate", certificates.clientCertificate().toString());
      options.put("clientKey", certificates.clientKey().toString());
      options.put("token", TOKEN);
      options.put("header.x-tenant", "acme");
      // Two endpoints whose tickets belong to the planning session: executors need its cookie.
      assertThat(count(server.uri(), options)).isEqualTo(1000);
      spark
          .session()
          .range(0, 10)
          .toDF("id")
          .write()
          .format("flightsql")
          .option("uri", server.uri())
          .options(options)
          .option("dbtable", "secure_written")
          .mode("overwrite")
          .save();
      assertThat(
              spark
                  .session()
                  .read()
                  .format("flightsql")
                  .option("uri", server.uri())
                  .options(options)
                  .option("dbtable", "secure_written")
                  .load()
                  .count())
          .isEqualTo(10);
      for (RecordedCall call : recorder.calls()) {
        assertThat(call.header("authorization")).as(call.method()).isEqualTo("Bearer " + TOKEN);
        assertThat(call.header("x-tenant")).as(call.method()).isEqualTo("acme");
      }
      List<RecordedCall> doGets =
          recorder.calls().stream()
              .filter(c -> c.method().equals("DoGet"))
              .collect(Collectors.toList());
      assertThat(doGets).isNotEmpty();
      assertThat(doGets)
          .allSatisfy(c -> assertThat(c.header("cookie")).startsWith("flightsql_session="));

      Map<String, String> noClientCertificate = new HashMap<>(options);
      noClientCertificate.remove("clientCertificate");
      noClientCertificate.remove("clientKey");
      assertThatThrownBy(() -> count(server.uri(), noClientCertificate))
          .hasMessageContaining("'clientCertificate' and 'clientKey'");
    }
  }

  @Test
  void endpointsFailOverPastADeadLocationAndRefuseAPlaintextOneBehindTls() throws Exception {
    int deadPort;
    try (ServerSocket socket = new ServerSocket(0)) {
      deadPort = socket.getLocalPort();
    }
    CallRecorder firstCalls = new CallRecorder();
    CallRecorder secondCalls = new CallRecorder();
    try (DuckDbFlightSqlServer second = server().middleware(CallRecorder.KEY, secondCalls).start();
        DuckDbFlightSqlServer first =
            server()
                .middleware(CallRecorder.KEY, firstCalls)
                .endpointLocations(List.of("grpc+tcp://127.0.0.1:" + deadPort, second.uri()))
                .start();
        DuckDbFlightSqlServer tls =
            server()
                .tls(certificates.serverCertificate(), certificates.serverKey())
                .endpointLocations(List.of(second.uri()))
                .start()) {
      // Every row is read (not a pushed-down COUNT(*)), so the rows come through the failover.
      assertThat(count(first.uri(), Map.of("pushDownAggregate", "false"))).isEqualTo(1000);
      // The one DoGet the first server sees is GetSqlInfo's (for the pushdown dialect), whose
      // endpoint has no locations; the query's endpoints are read from the second server.
      assertThat(firstCalls.calls().stream().filter(c -> c.method().equals("DoGet")).count())
          .isEqualTo(1);
      assertThat(secondCalls.calls()).anyMatch(c -> c.method().equals("DoGet"));

      Map<String, String> trust = Map.of("tlsRootCerts", certificates.caCertificate().toString());
      assertThatThrownBy(() -> count(tls.uri(), trust))
          .hasMessageContaining("DoGet refused for " + second.uri())
          .hasMessageContaining("'allowInsecureLocations'");
    }
  }
}
