package io.flightsql.spark.it;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.wait.strategy.Wait;
import org.testcontainers.junit.jupiter.Container;
import org.testcontainers.junit.jupiter.Testcontainers;

/**
 * The contract against GizmoSQL (DuckDB behind a C++ Flight SQL server), from its published image
 * as its README starts it: TLS with the image's own certificate, a password login, and the contract
 * table made by {@code INIT_SQL_COMMANDS}. Skipped without a Docker engine, as on the project's
 * build machines, where it has never run.
 */
@Testcontainers(disabledWithoutDocker = true)
class GizmoSqlDockerIT extends FlightSqlContractSuite {
  private static final int PORT = 31337;
  private static final String PASSWORD = "contract_password";

  /** The rows of {@link FlightSqlContractSuite#ROWS}, made when the server starts. */
  private static final String INIT_SQL =
      "CREATE TABLE "
          + TABLE
          + " (id INTEGER, name VARCHAR, score DOUBLE, seen_at TIMESTAMP);"
          + " INSERT INTO "
          + TABLE
          + " VALUES (1, 'alice', 1.5, TIMESTAMP '2024-01-02 03:04:05'),"
          + " (2, 'bob', NULL, TIMESTAMP '1999-12-31 23:59:59'),"
          + " (3, NULL, -2.25, NULL),"
          + " (4, 'Zo\u00eb \u2713', 0.0, TIMESTAMP '1970-01-01 00:00:00'),"
          + " (5, 'it''s', 1.0e10, TIMESTAMP '2038-01-19 03:14:08');";

  @Container
  static final GenericContainer<?> SERVER =
      new GenericContainer<>("gizmodata/gizmosql:latest")
          .withEnv("TLS_ENABLED", "1")
          .withEnv("GIZMOSQL_PASSWORD", PASSWORD)
          .withEnv("INIT_SQL_COMMANDS", INIT_SQL)
          .withExposedPorts(PORT)
          .waitingFor(Wait.forListeningPort().withStartupTimeout(Duration.ofMinutes(2)));

  @Override
  protected ServerQuirks startServer() {
    return new GizmoSqlQuirks("grpc+tls://" + SERVER.getHost() + ":" + SERVER.getMappedPort(PORT));
  }

  /** DuckDB's SQL and types, behind TLS and a password; the table is made at start-up. */
  private static final class GizmoSqlQuirks extends ServerQuirks {
    private final String uri;

    GizmoSqlQuirks(String uri) {
      this.uri = uri;
    }

    @Override
    String name() {
      return "GizmoSQL";
    }

    @Override
    String uri() {
      return uri;
    }

    @Override
    Map<String, String> options() {
      return Map.of(
          "username", "gizmosql_username",
          "password", PASSWORD,
          "disableCertificateVerification", "true");
    }

    /** INIT_SQL_COMMANDS made it. */
    @Override
    void createTable(String name, List<List<String>> rows) {}

    /** The writes need DDL through a client with TLS and a login; not written yet. */
    @Override
    List<String> writeMethods() {
      return List.of();
    }

    @Override
    String ddlType(ContractColumn column) {
      throw new UnsupportedOperationException("The table is made by INIT_SQL_COMMANDS");
    }

    @Override
    DataType sparkType(ContractColumn column) {
      return byColumn(
          column,
          DataTypes.IntegerType,
          DataTypes.StringType,
          DataTypes.DoubleType,
          DataTypes.TimestampNTZType);
    }

    @Override
    String syntaxErrorText() {
      return "syntax error";
    }
  }
}
