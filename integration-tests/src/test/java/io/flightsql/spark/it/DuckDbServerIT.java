package io.flightsql.spark.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.flightsql.spark.server.DuckDbFlightSqlServer;
import io.flightsql.spark.servers.FreePorts;
import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.Statement;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.junit.jupiter.api.Test;

/**
 * The contract against the project's embedded DuckDB server, started in this JVM with two endpoints
 * per query, plus what only DuckDB can check: every type of {@code types_demo} read value for value
 * against DuckDB's own JDBC answer, and aggregates over {@code lineitem}.
 */
class DuckDbServerIT extends FlightSqlContractSuite
    implements DifferentialFuzzContract,
        FailedWriteContract,
        OptimizerContract,
        StreamingContract,
        AggregateContract {
  private static final long LINEITEM_ROWS = 20_000;

  private DuckDbFlightSqlServer server;

  @Override
  public String fuzzDialect() {
    return "duckdb";
  }

  @Override
  protected ServerQuirks startServer() throws Exception {
    server =
        DuckDbFlightSqlServer.builder()
            .host(FreePorts.LOOPBACK)
            .port(0)
            .endpoints(2)
            .lineitemRows(LINEITEM_ROWS)
            .start();
    return new DuckDbQuirks(server);
  }

  @Override
  protected void stopServer() {
    if (server != null) {
      server.close();
    }
  }

  @Test
  void readsEveryTypeOfTypesDemoAsDuckDbAnswersOverJdbc() throws Exception {
    Dataset<Row> types = flightsql().option("dbtable", "types_demo").load();

    List<List<Object>> sparkRows = values(types.orderBy("id").collectAsList());

    List<List<Object>> jdbcRows = jdbcRows("SELECT * FROM types_demo ORDER BY id");
    assertThat(jdbcRows).hasSizeGreaterThanOrEqualTo(10);
    assertThat(sparkRows).hasSameSizeAs(jdbcRows);
    for (int r = 0; r < jdbcRows.size(); r++) {
      for (int c = 0; c < jdbcRows.get(r).size(); c++) {
        Object spark = sparkRows.get(r).get(c);
        Object duckdb = jdbcRows.get(r).get(c);
        String where = "row " + r + ", column " + types.schema().fields()[c].name();
        if (duckdb instanceof byte[]) {
          assertThat((byte[]) spark).as(where).isEqualTo((byte[]) duckdb);
        } else {
          assertThat(spark).as(where).isEqualTo(duckdb);
        }
      }
    }
    assertThat(sparkRows)
        .anySatisfy(row -> assertThat(row.subList(1, row.size())).containsOnlyNulls());
  }

  @Test
  void mapsTypesDemoColumnsToSparkTypes() {
    List<String> schema = describe(flightsql().option("dbtable", "types_demo").load().schema());

    assertThat(schema)
        .containsExactly(
            "id: int",
            "c_tinyint: tinyint",
            "c_smallint: smallint",
            "c_int: int",
            "c_bigint: bigint",
            "c_float: float",
            "c_double: double",
            "c_dec_short: decimal(10,2)",
            "c_dec_long: decimal(38,10)",
            "c_varchar: string",
            "c_blob: binary",
            "c_bool: boolean",
            "c_date: date",
            "c_ts: timestamp_ntz",
            "c_tstz: timestamp");
  }

  @Test
  void aggregatesLineitemLikeDuckDbItself() throws Exception {
    Dataset<Row> lineitem = flightsql().option("dbtable", "lineitem").load();
    lineitem.createOrReplaceTempView("lineitem");
    try {
      Row spark =
          spark()
              .sql(
                  "SELECT count(*), sum(l_quantity), sum(l_extendedprice), count(DISTINCT"
                      + " l_returnflag), min(l_shipdate), max(l_orderkey) FROM lineitem")
              .first();

      List<Object> duckdb =
          jdbcRows(
                  "SELECT count(*), sum(l_quantity), sum(l_extendedprice), count(DISTINCT"
                      + " l_returnflag), min(l_shipdate), max(l_orderkey) FROM lineitem")
              .get(0);
      assertThat(spark.getLong(0)).isEqualTo(LINEITEM_ROWS).isEqualTo(duckdb.get(0));
      assertThat(spark.getDecimal(1)).isEqualByComparingTo((BigDecimal) duckdb.get(1));
      assertThat(spark.getDecimal(2)).isEqualByComparingTo((BigDecimal) duckdb.get(2));
      assertThat(spark.getLong(3)).isEqualTo(duckdb.get(3));
      assertThat(spark.get(4)).isEqualTo(duckdb.get(4));
      assertThat(spark.getLong(5)).isEqualTo(duckdb.get(5));
    } finally {
      spark().catalog().dropTempView("lineitem");
    }
  }

  @Test
  void readsOnePartitionPerEndpoint() {
    Dataset<Row> lineitem = flightsql().option("dbtable", "lineitem").load();

    assertThat(lineitem.rdd().getNumPartitions()).isEqualTo(2);
    assertThat(lineitem.count()).isEqualTo(LINEITEM_ROWS);
  }

  /** The rows of a query over DuckDB's JDBC driver, each value as Spark would return it. */
  private List<List<Object>> jdbcRows(String sql) throws Exception {
    List<List<Object>> rows = new ArrayList<>();
    try (Connection connection = server.newConnection();
        Statement statement = connection.createStatement();
        ResultSet resultSet = statement.executeQuery(sql)) {
      ResultSetMetaData meta = resultSet.getMetaData();
      while (resultSet.next()) {
        List<Object> row = new ArrayList<>();
        for (int c = 1; c <= meta.getColumnCount(); c++) {
          row.add(asSpark(resultSet, c, meta.getColumnTypeName(c)));
        }
        rows.add(row);
      }
    }
    return rows;
  }

  /** One JDBC value as the Java type Spark uses for the column (java.time for dates and times). */
  private static Object asSpark(ResultSet resultSet, int column, String duckDbType)
      throws Exception {
    Object value;
    String type = duckDbType.toUpperCase(Locale.ROOT);
    if (type.equals("DATE")) {
      value = resultSet.getObject(column, LocalDate.class);
    } else if (type.equals("TIMESTAMP")) {
      value = resultSet.getObject(column, LocalDateTime.class);
    } else if (type.equals("TIMESTAMP WITH TIME ZONE")) {
      OffsetDateTime time = resultSet.getObject(column, OffsetDateTime.class);
      value = time == null ? null : time.toInstant();
    } else if (type.equals("BLOB")) {
      value = resultSet.getBytes(column);
    } else if (type.equals("HUGEINT")) {
      // count(*) and sums of integers: Spark answers with a long.
      BigDecimal big = resultSet.getBigDecimal(column);
      value = big == null ? null : big.longValueExact();
    } else {
      value = resultSet.getObject(column);
    }
    return resultSet.wasNull() ? null : value;
  }

  /** DuckDB keeps names as written, and maps SQL types one to one. */
  private static final class DuckDbQuirks extends ServerQuirks {
    @Override
    List<String> writeMethods() {
      return List.of("ingest", "prepared");
    }

    @Override
    boolean transactions() {
      return true;
    }

    @Override
    String catalogNamespace() {
      return "memory.main";
    }

    @Override
    String secondSchema() {
      return "names_second";
    }

    private final DuckDbFlightSqlServer server;

    DuckDbQuirks(DuckDbFlightSqlServer server) {
      this.server = server;
    }

    @Override
    String name() {
      return "DuckDB";
    }

    @Override
    String uri() {
      return server.uri();
    }

    @Override
    List<NumericColumn> numericColumns() {
      return standardNumericColumns(true, "INTEGER", "c_real", "REAL", 30);
    }

    @Override
    String ddlType(ContractColumn column) {
      return byColumn(column, "INTEGER", "VARCHAR", "DOUBLE", "TIMESTAMP");
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
      return "Parser Error: syntax error at or near";
    }

    @Override
    boolean rowCountsInFlightInfo() {
      return true;
    }
  }
}
