package io.flightsql.spark.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class FlightSqlReadConfigTest {
  private static Map<String, String> options(String... keyValues) {
    Map<String, String> map = new HashMap<>();
    for (int i = 0; i < keyValues.length; i += 2) {
      map.put(keyValues[i], keyValues[i + 1]);
    }
    return map;
  }

  @Test
  void readsUriAndQuery() {
    FlightSqlReadConfig config =
        FlightSqlReadConfig.from(options("uri", "grpc://127.0.0.1:31337", "query", "SELECT 1;; "));
    assertThat(config.uri().toString()).isEqualTo("grpc://127.0.0.1:31337");
    assertThat(config.uri().isTls()).isFalse();
    assertThat(config.query()).isEqualTo("SELECT 1");
    assertThat(config.table()).isEmpty();
  }

  @Test
  void dbtableBecomesSelectStarAndNamesIsCaseInsensitive() {
    FlightSqlReadConfig config =
        FlightSqlReadConfig.from(
            options("URI", "grpc+tls://db.example.com:443", "DbTable", "main.\"my table\""));
    assertThat(config.query()).isEqualTo("SELECT * FROM main.\"my table\"");
    assertThat(config.displayName()).isEqualTo("main.\"my table\"");
    assertThat(config.uri().isTls()).isTrue();
  }

  @Test
  void missingUriNamesTheOptionAndItsForm() {
    assertThatThrownBy(() -> FlightSqlReadConfig.from(options("query", "SELECT 1")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "Option 'uri' is required: expected grpc://host:port, grpc+tcp://host:port or"
                + " grpc+tls://host:port");
  }

  @Test
  void unsupportedSchemeIsRejectedWithTheValueAndTheExpectedForm() {
    assertThatThrownBy(
            () ->
                FlightSqlReadConfig.from(
                    options("uri", "http://localhost:8080", "query", "SELECT 1")))
        .hasMessage(
            "Invalid value 'http://localhost:8080' for option 'uri': expected grpc://host:port,"
                + " grpc+tcp://host:port or grpc+tls://host:port (scheme 'http' is not supported)");
  }

  @Test
  void missingPortIsRejected() {
    assertThatThrownBy(
            () -> FlightSqlReadConfig.from(options("uri", "grpc://localhost", "query", "x")))
        .hasMessageContaining("option 'uri'")
        .hasMessageContaining("the port is missing");
  }

  @Test
  void credentialsInTheUriAreRejectedWithoutBeingEchoed() {
    assertThatThrownBy(
            () ->
                FlightSqlReadConfig.from(
                    options("uri", "grpc://alice:s3cret@localhost:1234", "query", "SELECT 1")))
        .hasMessageContaining("credentials in the URI are not supported")
        .hasMessageNotContaining("s3cret")
        .hasMessageContaining("grpc://*****@localhost:1234");
  }

  @Test
  void queryAndDbtableTogetherAreRejected() {
    assertThatThrownBy(
            () ->
                FlightSqlReadConfig.from(
                    options("uri", "grpc://h:1", "query", "SELECT 1", "dbtable", "t")))
        .hasMessageStartingWith(
            "Options 'dbtable' and 'query' cannot be used together; use 'query' for ad-hoc SQL");
  }

  @Test
  void neitherQueryNorDbtableIsRejected() {
    assertThatThrownBy(() -> FlightSqlReadConfig.from(options("uri", "grpc://h:1", "query", "  ")))
        .hasMessageStartingWith("One of options 'query' or 'dbtable' is required");
  }

  @Test
  void survivesJavaSerialization() throws Exception {
    FlightSqlReadConfig config =
        FlightSqlReadConfig.from(options("uri", "grpc+tcp://[::1]:9", "dbtable", "t"));
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
      out.writeObject(config);
    }
    try (ObjectInputStream in =
        new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
      FlightSqlReadConfig copy = (FlightSqlReadConfig) in.readObject();
      assertThat(copy.uri()).isEqualTo(config.uri());
      assertThat(copy.uri().toString()).isEqualTo("grpc://[::1]:9");
      assertThat(copy.query()).isEqualTo("SELECT * FROM t");
    }
  }

  @Test
  void catalogAndSchemaQualifyAnUnqualifiedTableOnlyWithoutSessionDefaults() {
    FlightSqlReadConfig config =
        FlightSqlReadConfig.from(
            options(
                "uri", "grpc://h:1", "dbtable", "orders", "catalog", "sales", "schema", "q\"1"));
    assertThat(config.query(true)).isEqualTo("SELECT * FROM orders");
    assertThat(config.query(false)).isEqualTo("SELECT * FROM \"sales\".\"q\"\"1\".orders");
    FlightSqlReadConfig qualified =
        FlightSqlReadConfig.from(
            options("uri", "grpc://h:1", "dbtable", "main.orders", "schema", "other"));
    assertThat(qualified.query(false)).isEqualTo("SELECT * FROM main.orders");
    FlightSqlReadConfig query =
        FlightSqlReadConfig.from(options("uri", "grpc://h:1", "query", "SELECT 1", "schema", "s"));
    assertThat(query.query(false)).isEqualTo("SELECT 1");
  }

  @Test
  void pushdownSwitchesDefaultToTrueAndNameTheOptionWhenMisspelt() {
    FlightSqlReadConfig defaults =
        FlightSqlReadConfig.from(options("uri", "grpc://127.0.0.1:31337", "dbtable", "t"));
    assertThat(defaults.pushDownPredicate()).isTrue();
    assertThat(defaults.pushDownLimit()).isTrue();
    assertThat(defaults.pushDownOffset()).isTrue();
    assertThat(defaults.pushDownTopN()).isTrue();
    assertThat(defaults.pushDownAggregate()).isTrue();
    assertThat(defaults.dialect()).isEmpty();
    FlightSqlReadConfig off =
        FlightSqlReadConfig.from(
            options(
                "uri",
                "grpc://127.0.0.1:31337",
                "dbtable",
                "t",
                "pushdownpredicate",
                "FALSE",
                "pushDownTopN",
                "false",
                "dialect",
                "MySQL"));
    assertThat(off.pushDownPredicate()).isFalse();
    assertThat(off.pushDownTopN()).isFalse();
    assertThat(off.pushDownLimit()).isTrue();
    assertThat(off.dialect()).contains("mysql");
    assertThatThrownBy(
            () ->
                FlightSqlReadConfig.from(
                    options(
                        "uri", "grpc://127.0.0.1:31337", "dbtable", "t", "pushDownLimit", "yes")))
        .hasMessage("Invalid value 'yes' for option 'pushDownLimit': expected `true` or `false`");
    assertThatThrownBy(
            () ->
                FlightSqlReadConfig.from(
                    options("uri", "grpc://127.0.0.1:31337", "dbtable", "t", "dialect", "oracle")))
        .hasMessageStartingWith("Invalid value 'oracle' for option 'dialect': expected `auto`");
  }
}
