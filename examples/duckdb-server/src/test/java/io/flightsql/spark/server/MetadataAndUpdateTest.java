package io.flightsql.spark.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.FlightStatusCode;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.flight.sql.FlightSqlProducer;
import org.apache.arrow.flight.sql.impl.FlightSql.SqlInfo;
import org.apache.arrow.flight.sql.impl.FlightSql.SqlSupportedTransaction;
import org.apache.arrow.vector.UInt4Vector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.DenseUnionVector;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** GetSchema, GetSqlInfo, the catalog commands and statement updates, on one shared server. */
@SuppressWarnings("try") // Arrow's FlightStream and FlightSqlClient close() declare Exception
class MetadataAndUpdateTest {

  private static DuckDbFlightSqlServer server;
  private static TestClient client;

  @BeforeAll
  static void start() throws Exception {
    server = DuckDbFlightSqlServer.builder().lineitemRows(1_000).start();
    client = new TestClient(server);
  }

  @AfterAll
  static void stop() throws Exception {
    client.close();
    server.close();
  }

  @Test
  void uriAndPortNameTheListeningServer() {
    assertThat(server.port()).isPositive();
    assertThat(server.uri()).isEqualTo("grpc://127.0.0.1:" + server.port());
  }

  @Test
  void getSchemaEqualsTheFlightInfoSchema() {
    String sql = "SELECT l_orderkey, l_extendedprice, l_comment FROM lineitem WHERE l_tax > 0";

    Schema schema = client.sql.getExecuteSchema(sql).getSchema();

    assertThat(schema).isEqualTo(TestClient.schema(client.sql.execute(sql)));
    assertThat(schema.getFields())
        .extracting(f -> f.getName() + ": " + f.getType())
        .containsExactly(
            "l_orderkey: Int(64, true)", "l_extendedprice: Decimal(15, 2, 128)", "l_comment: Utf8");
  }

  @Test
  void sqlInfoDescribesTheServer() throws Exception {
    FlightInfo info =
        client.sql.getSqlInfo(
            SqlInfo.FLIGHT_SQL_SERVER_NAME,
            SqlInfo.FLIGHT_SQL_SERVER_VERSION,
            SqlInfo.FLIGHT_SQL_SERVER_ARROW_VERSION,
            SqlInfo.FLIGHT_SQL_SERVER_READ_ONLY,
            SqlInfo.FLIGHT_SQL_SERVER_SQL,
            SqlInfo.FLIGHT_SQL_SERVER_SUBSTRAIT,
            SqlInfo.FLIGHT_SQL_SERVER_TRANSACTION,
            SqlInfo.FLIGHT_SQL_SERVER_BULK_INGESTION,
            SqlInfo.FLIGHT_SQL_SERVER_INGEST_TRANSACTIONS_SUPPORTED,
            SqlInfo.SQL_TRANSACTIONS_SUPPORTED,
            SqlInfo.SQL_IDENTIFIER_QUOTE_CHAR,
            SqlInfo.SQL_DDL_TABLE,
            SqlInfo.SQL_KEYWORDS);

    Map<Integer, Object> values = new HashMap<>();
    try (FlightStream stream = client.sql.getStream(info.getEndpoints().get(0).getTicket())) {
      while (stream.next()) {
        VectorSchemaRoot root = stream.getRoot();
        UInt4Vector names = (UInt4Vector) root.getVector("info_name");
        DenseUnionVector value = (DenseUnionVector) root.getVector("value");
        for (int row = 0; row < root.getRowCount(); row++) {
          Object object = value.getObject(row);
          values.put(names.get(row), object instanceof List<?> list ? List.copyOf(list) : object);
        }
      }
    }

    assertThat(values.get(SqlInfo.FLIGHT_SQL_SERVER_NAME_VALUE))
        .hasToString("spark-flightsql DuckDB server");
    assertThat(values.get(SqlInfo.FLIGHT_SQL_SERVER_VERSION_VALUE).toString()).startsWith("v1.");
    assertThat(values.get(SqlInfo.FLIGHT_SQL_SERVER_ARROW_VERSION_VALUE)).hasToString("18.3.0");
    assertThat(values.get(SqlInfo.SQL_IDENTIFIER_QUOTE_CHAR_VALUE)).hasToString("\"");
    assertThat(values.get(SqlInfo.FLIGHT_SQL_SERVER_READ_ONLY_VALUE)).isEqualTo(false);
    assertThat(values.get(SqlInfo.FLIGHT_SQL_SERVER_SQL_VALUE)).isEqualTo(true);
    assertThat(values.get(SqlInfo.FLIGHT_SQL_SERVER_SUBSTRAIT_VALUE)).isEqualTo(false);
    assertThat(values.get(SqlInfo.FLIGHT_SQL_SERVER_BULK_INGESTION_VALUE)).isEqualTo(true);
    assertThat(values.get(SqlInfo.FLIGHT_SQL_SERVER_INGEST_TRANSACTIONS_SUPPORTED_VALUE))
        .isEqualTo(true);
    assertThat(values.get(SqlInfo.SQL_TRANSACTIONS_SUPPORTED_VALUE)).isEqualTo(true);
    assertThat(values.get(SqlInfo.SQL_DDL_TABLE_VALUE)).isEqualTo(true);
    assertThat(values.get(SqlInfo.FLIGHT_SQL_SERVER_TRANSACTION_VALUE))
        .isEqualTo(SqlSupportedTransaction.SQL_SUPPORTED_TRANSACTION_TRANSACTION_VALUE);
    assertThat(values.get(SqlInfo.SQL_KEYWORDS_VALUE).toString()).contains("SELECT", "QUALIFY");
  }

  @Test
  void catalogsAndSchemasAreDuckDbsUserDatabases() throws Exception {
    assertThat(client.rows(client.sql.getCatalogs())).containsExactly(List.of("memory"));
    assertThat(client.rows(client.sql.getSchemas(null, null)))
        .containsExactly(List.of("memory", "main"));
    assertThat(client.rows(client.sql.getSchemas("memory", "ma%")))
        .containsExactly(List.of("memory", "main"));
    assertThat(client.rows(client.sql.getSchemas("memory", "information%"))).isEmpty();
    assertThat(client.rows(client.sql.getSchemas("system", null))).isEmpty();
  }

  @Test
  void tablesAreListedWithFilters() throws Exception {
    List<List<String>> tables = client.rows(client.sql.getTables(null, null, null, null, false));
    assertThat(tables)
        .contains(
            List.of("memory", "main", "lineitem", "TABLE"),
            List.of("memory", "main", "types_demo", "TABLE"));

    assertThat(client.rows(client.sql.getTables("memory", "main", "types\\_%", null, false)))
        .containsExactly(List.of("memory", "main", "types_demo", "TABLE"));
    assertThat(client.rows(client.sql.getTables(null, null, "types%", List.of("VIEW"), false)))
        .isEmpty();
    assertThat(client.rows(client.sql.getTables("other", null, null, null, false))).isEmpty();
  }

  @Test
  void tablesCanCarryTheirArrowSchema() throws Exception {
    FlightInfo info = client.sql.getTables(null, "main", "lineitem", List.of("TABLE"), true);
    assertThat(TestClient.schema(info)).isEqualTo(FlightSqlProducer.Schemas.GET_TABLES_SCHEMA);

    Schema tableSchema;
    try (FlightStream stream = client.sql.getStream(info.getEndpoints().get(0).getTicket())) {
      assertThat(stream.next()).isTrue();
      VectorSchemaRoot root = stream.getRoot();
      assertThat(root.getRowCount()).isEqualTo(1);
      byte[] bytes = ((VarBinaryVector) root.getVector("table_schema")).get(0);
      tableSchema = Schema.deserializeMessage(ByteBuffer.wrap(bytes));
    }

    assertThat(tableSchema)
        .isEqualTo(TestClient.schema(client.sql.execute("SELECT * FROM lineitem")));
    assertThat(tableSchema.getFields()).hasSize(16);
  }

  @Test
  void tableTypesAreListed() throws Exception {
    assertThat(client.rows(client.sql.getTableTypes()))
        .containsExactly(List.of("LOCAL TEMPORARY"), List.of("TABLE"), List.of("VIEW"));
  }

  @Test
  void updatesCreateTablesAndCountRows() throws Exception {
    assertThat(client.sql.executeUpdate("CREATE TABLE updates_demo (id INTEGER, name VARCHAR)"))
        .isZero();
    assertThat(
            client.sql.executeUpdate(
                "INSERT INTO updates_demo VALUES (1, 'one'), (2, 'two'), (3, 'three')"))
        .isEqualTo(3);
    assertThat(client.sql.executeUpdate("UPDATE updates_demo SET name = upper(name) WHERE id > 1"))
        .isEqualTo(2);

    assertThat(client.rows(client.sql.execute("SELECT * FROM updates_demo ORDER BY id")))
        .containsExactly(List.of("1", "one"), List.of("2", "TWO"), List.of("3", "THREE"));
    assertThat(client.rows(client.sql.getTables(null, null, "updates_demo", null, false)))
        .containsExactly(List.of("memory", "main", "updates_demo", "TABLE"));
  }

  @Test
  void failedUpdatesAreInvalidArgumentWithDuckDbsMessage() {
    assertThatThrownBy(() -> client.sql.executeUpdate("INSERT INTO no_such_table VALUES (1)"))
        .isInstanceOfSatisfying(
            FlightRuntimeException.class,
            e -> assertThat(e.status().code()).isEqualTo(FlightStatusCode.INVALID_ARGUMENT))
        .hasMessageContaining("Table with name no_such_table does not exist");
  }

  @Test
  void executeAndNewConnectionReachTheServedDatabase() throws Exception {
    server.execute("CREATE VIEW execute_demo AS SELECT 7 AS seven");

    assertThat(client.rows(client.sql.execute("SELECT * FROM execute_demo")))
        .containsExactly(List.of("7"));
    assertThat(TestClient.jdbcRows(server, "SELECT seven + 1 FROM execute_demo"))
        .containsExactly(List.of("8"));
    assertThat(client.rows(client.sql.getTables(null, null, "execute\\_demo", null, false)))
        .containsExactly(List.of("memory", "main", "execute_demo", "VIEW"));
    assertThatThrownBy(() -> server.execute("CREATE VIEW execute_demo AS SELECT 1"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("already exists");
  }
}
