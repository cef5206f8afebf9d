package io.flightsql.spark.read;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.flightsql.spark.client.transport.FlightSqlConnectorException;
import io.flightsql.spark.client.transport.FlightUri;
import io.flightsql.spark.client.transport.SessionState;
import io.flightsql.spark.config.FlightSqlReadConfig;
import io.flightsql.spark.testing.ArrowLeakCheckExtension;
import io.flightsql.spark.testing.EmbeddedServerExtension;
import java.util.Map;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The reader of an aggregate without GROUP BY fails, naming the query, when the server answers with
 * other than one row, against the embedded DuckDB server answering queries that have none or two:
 * shown as they are, they would be an empty result or an extra row.
 */
@ExtendWith(ArrowLeakCheckExtension.class)
class AggregateRowCheckTest {
  @RegisterExtension
  static final EmbeddedServerExtension duckDb =
      EmbeddedServerExtension.duckDb(server -> server.port(0).endpoints(1).lineitemRows(10));

  private static final StructType ONE_BIGINT = new StructType().add("n", DataTypes.LongType, true);

  private static long rows(String sql, boolean oneRow) {
    FlightSqlReadConfig config =
        FlightSqlReadConfig.from(Map.of("uri", duckDb.uri(), "query", sql));
    FlightSqlInputPartition partition =
        FlightSqlInputPartition.query(0, sql, FlightUri.parse(duckDb.uri()), SessionState.empty());
    long rows = 0;
    try (FlightSqlPartitionReader reader =
        new FlightSqlPartitionReader(partition, ONE_BIGINT, config, oneRow)) {
      while (reader.next()) {
        rows += reader.get().numRows();
      }
    }
    return rows;
  }

  @Test
  void oneRowIsRead() {
    assertThat(rows("SELECT CAST(COUNT(*) AS BIGINT) AS n FROM lineitem", true)).isEqualTo(1);
  }

  @Test
  void noRowFailsTheRead() {
    String sql = "SELECT CAST(1 AS BIGINT) AS n WHERE 1 = 0";
    assertThat(rows(sql, false)).isZero();
    assertThatThrownBy(() -> rows(sql, true))
        .isInstanceOf(FlightSqlConnectorException.class)
        .hasMessageStartingWith("[flightsql] An aggregate without GROUP BY has exactly one row")
        .hasMessageContaining("with 0 rows: " + sql)
        .hasMessageContaining("'pushDownAggregate'");
  }

  @Test
  void twoRowsFailTheRead() {
    String sql = "SELECT CAST(1 AS BIGINT) AS n UNION ALL SELECT CAST(2 AS BIGINT)";
    assertThatThrownBy(() -> rows(sql, true))
        .isInstanceOf(FlightSqlConnectorException.class)
        .hasMessageContaining("with 2 or more rows");
  }
}
