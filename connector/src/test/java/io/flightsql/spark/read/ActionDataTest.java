package io.flightsql.spark.read;

import static org.assertj.core.api.Assertions.assertThat;

import io.flightsql.spark.server.DuckDbFlightSqlServer;
import io.flightsql.spark.server.DuckDbFlightSqlServerBuilder;
import io.flightsql.spark.testing.ArrowLeakCheckExtension;
import io.flightsql.spark.testing.SparkSessionExtension;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A read returns the rows of its own action: nothing the schema inference ran, nor an earlier
 * action or an EXPLAIN, serves a later action. On the embedded DuckDB server as three kinds of
 * server, rows inserted by another client in between: one that runs the query when a ticket is read
 * (the default); one that gives the schema only with the data (as arrow-go's SQLite example); one
 * that computes the result when it plans the query and lets each ticket be read once.
 */
@ExtendWith(ArrowLeakCheckExtension.class)
class ActionDataTest {
  @RegisterExtension
  @Order(1)
  static final SparkSessionExtension spark = SparkSessionExtension.local();

  private static DuckDbFlightSqlServer server(String kind) throws Exception {
    DuckDbFlightSqlServerBuilder builder =
        DuckDbFlightSqlServer.builder().port(0).lineitemRows(0).endpoints(1);
    switch (kind) {
      case "schemaWithTheData":
        builder.without("GetSchema", "SchemaBeforeData");
        break;
      case "resultAtPlanning":
        builder.without("QueryPerEndpoint", "TicketReuse");
        break;
      default:
        break;
    }
    DuckDbFlightSqlServer server = builder.start();
    server.execute("CREATE TABLE st (id INTEGER)");
    server.execute("INSERT INTO st VALUES (1), (2), (3)");
    return server;
  }

  private static Dataset<Row> read(DuckDbFlightSqlServer server) {
    return spark
        .session()
        .read()
        .format("flightsql")
        .option("uri", server.uri())
        .option("query", "SELECT id FROM st")
        .load();
  }

  @ParameterizedTest
  @ValueSource(strings = {"queryAtRead", "schemaWithTheData", "resultAtPlanning"})
  void aReadSeesRowsInsertedAfterItsSchemaWasInferred(String kind) throws Exception {
    try (DuckDbFlightSqlServer server = server(kind)) {
      Dataset<Row> df = read(server);
      server.execute("INSERT INTO st VALUES (4), (5)");
      assertThat(df.collectAsList()).hasSize(5);
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"queryAtRead", "schemaWithTheData", "resultAtPlanning"})
  void aSecondActionSeesRowsInsertedAfterTheFirst(String kind) throws Exception {
    try (DuckDbFlightSqlServer server = server(kind)) {
      Dataset<Row> df = read(server);
      assertThat(df.collectAsList()).hasSize(3);
      server.execute("INSERT INTO st VALUES (4), (5)");
      assertThat(df.collectAsList()).hasSize(5);
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"queryAtRead", "schemaWithTheData", "resultAtPlanning"})
  void anActionAfterAnExplainSeesRowsInsertedInBetween(String kind) throws Exception {
    try (DuckDbFlightSqlServer server = server(kind)) {
      Dataset<Row> df = read(server);
      df.explain(true);
      server.execute("INSERT INTO st VALUES (4), (5)");
      assertThat(df.collectAsList()).hasSize(5);
    }
  }
}
