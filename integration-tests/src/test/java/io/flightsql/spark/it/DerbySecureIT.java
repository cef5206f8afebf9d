package io.flightsql.spark.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.flightsql.spark.server.TestCertificates;
import io.flightsql.spark.servers.DerbyExampleServer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The shaded connector against Arrow Java's Derby example server behind basic authentication and
 * TLS with a private CA: reads, a write, and the errors users see for a wrong password and an
 * untrusted certificate.
 */
@ExtendWith(ArrowLeakCheckExtension.class)
class DerbySecureIT {
  private static final String PASSWORD = "derby-Secr3t";

  @TempDir static Path directory;
  private static TestCertificates certificates;
  private static DerbyExampleServer server;

  @RegisterExtension static final SparkSessionExtension spark = SparkSessionExtension.local();

  @BeforeAll
  static void start() throws Exception {
    certificates = TestCertificates.create(directory);
    server =
        DerbyExampleServer.builder("derby-secure-it")
            .basicAuth("derby", PASSWORD)
            .tls(certificates.serverCertificate(), certificates.serverKey())
            .start();
  }

  @AfterAll
  static void stop() throws Exception {
    if (server != null) {
      server.close();
    }
  }

  private static Map<String, String> secure(String password) {
    Map<String, String> options = new HashMap<>();
    options.put("uri", server.uri());
    options.put("username", "derby");
    options.put("password", password);
    options.put("tlsRootCerts", certificates.caCertificate().toString());
    return options;
  }

  @Test
  void readsAndWritesWithBasicAuthOverTls() {
    assertThat(server.uri()).startsWith("grpc+tls://");
    List<Row> ints =
        spark
            .session()
            .read()
            .format("flightsql")
            .options(secure(PASSWORD))
            .option("dbtable", "intTable")
            .load()
            .collectAsList();
    assertThat(ints).hasSize(3);

    spark
        .session()
        .range(0, 5)
        .selectExpr("CAST(id AS INT) AS ID", "CONCAT('row ', CAST(id AS STRING)) AS NAME")
        // One task, as in the contract suite: with two tasks preparing INSERTs at once, the
        // example server answered the DoPut of one with NOT_FOUND (its prepared statement).
        .coalesce(1)
        .write()
        .format("flightsql")
        .options(secure(PASSWORD))
        .option("dbtable", "SECURE_COPY")
        .option("writeMethod", "prepared")
        .option("dialect", "derby")
        .mode("errorifexists")
        .save();
    List<Row> copy =
        new ArrayList<>(
            spark
                .session()
                .read()
                .format("flightsql")
                .options(secure(PASSWORD))
                .option("query", "SELECT ID, NAME FROM SECURE_COPY")
                .load()
                .collectAsList());
    copy.sort(Comparator.comparingInt(r -> r.getInt(0)));
    assertThat(copy).hasSize(5);
    assertThat(copy.get(4).getString(1)).isEqualTo("row 4");
  }

  @Test
  void aWrongPasswordAndAnUntrustedCertificateSayWhatToCheck() {
    assertThatThrownBy(
            () ->
                spark
                    .session()
                    .read()
                    .format("flightsql")
                    .options(secure("wrong-Secr3t"))
                    .option("dbtable", "intTable")
                    .load())
        .hasMessageContaining("UNAUTHENTICATED")
        .hasMessageContaining("Check the credentials: options 'username' and 'password'")
        .hasMessageNotContaining("wrong-Secr3t");
    Map<String, String> untrusted = secure(PASSWORD);
    untrusted.remove("tlsRootCerts");
    assertThatThrownBy(
            () ->
                spark
                    .session()
                    .read()
                    .format("flightsql")
                    .options(untrusted)
                    .option("dbtable", "intTable")
                    .load())
        .hasMessageContaining("'tlsRootCerts'")
        .hasMessageContaining("'disableCertificateVerification'");
  }
}
