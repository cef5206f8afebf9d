package io.flightsql.spark;

import static org.assertj.core.api.Assertions.assertThat;

import io.flightsql.spark.testing.ArrowLeakCheckExtension;
import io.flightsql.spark.testing.EmbeddedServerExtension;
import io.flightsql.spark.testing.SparkSessionExtension;
import io.flightsql.spark.testing.SqlUiMetrics;
import io.flightsql.spark.testing.StageMetrics;
import java.util.Map;
import org.apache.spark.sql.api.java.UDF1;
import org.apache.spark.sql.types.DataTypes;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The metrics an operator reads in the Spark UI's SQL tab to tell whether the server or Spark is
 * the slow side: record batches received, time waiting for the server and time Spark spent
 * consuming on reads; Arrow bytes sent and time waiting for the server on writes.
 */
@ExtendWith(ArrowLeakCheckExtension.class)
class OperatorMetricsTest {
  private static final int ROWS = 1000;
  private static final String BATCHES = "record batches received from the Flight SQL server";
  private static final String WAIT = "time waiting for the Flight SQL server";
  private static final String SPARK = "time Spark spent consuming the received batches";
  private static final String ROWS_IN = "rows received from the Flight SQL server";
  private static final String BYTES_OUT = "Arrow bytes sent to the Flight SQL server";
  private static final String ROWS_OUT = "rows written to the Flight SQL server";

  @RegisterExtension
  @Order(1)
  static final EmbeddedServerExtension duckDb =
      EmbeddedServerExtension.duckDb(server -> server.endpoints(2).lineitemRows(0).batchRows(100));

  @RegisterExtension
  @Order(2)
  static final SparkSessionExtension spark = SparkSessionExtension.local();

  @BeforeAll
  static void numbers() {
    duckDb.server().execute("CREATE TABLE numbers AS SELECT range AS id FROM range(" + ROWS + ")");
  }

  /** Spark's side made slow on purpose: 2 ms per row, in the scan's own stage. */
  private static final class SlowIdentity implements UDF1<Long, Long> {
    private static final long serialVersionUID = 1L;

    @Override
    public Long call(Long id) throws InterruptedException {
      Thread.sleep(2);
      return id;
    }
  }

  @Test
  void readsShowBatchesAndWhereTheTimeWent() throws Exception {
    spark.session().udf().register("slow_identity", new SlowIdentity(), DataTypes.LongType);
    long start = System.nanoTime();
    long sum =
        spark
            .session()
            .read()
            .format("flightsql")
            .option("uri", duckDb.uri())
            .option("query", "SELECT id FROM numbers")
            .load()
            .selectExpr("sum(slow_identity(id))")
            .first()
            .getLong(0);
    long wallMillis = (System.nanoTime() - start) / 1_000_000;
    assertThat(sum).isEqualTo((long) ROWS * (ROWS - 1) / 2);

    Map<String, String> shown = SqlUiMetrics.latest(spark.session(), ROWS_IN, BATCHES, WAIT, SPARK);
    assertThat(SqlUiMetrics.number(shown.get(ROWS_IN))).isEqualTo(ROWS);
    // Two endpoints of 500 rows, in batches of at most 100 rows.
    assertThat(SqlUiMetrics.number(shown.get(BATCHES))).isEqualTo(10);
    assertThat(shown.get(WAIT)).endsWith(" ms");
    assertThat(shown.get(SPARK)).endsWith(" ms");
    // Spark slept at least 2 ms per row; two tasks ran side by side within the action's time.
    assertThat(SqlUiMetrics.number(shown.get(SPARK))).isBetween(2L * ROWS, 2 * wallMillis);
    assertThat(SqlUiMetrics.number(shown.get(WAIT))).isBetween(0L, 2 * wallMillis);
  }

  /**
   * A DataFrame write shows its rows and Arrow bytes as the tasks' output (the stage page's
   * "Output" column), and the same figures with the time waiting for the server as named
   * accumulators of its stage.
   */
  @Test
  void dataFrameWritesShowTheirOutputAndTimeWaitingForTheServer() throws Exception {
    long start = System.nanoTime();
    try (StageMetrics stages = StageMetrics.record(spark.session())) {
      spark
          .session()
          .range(0, 12_345, 1, 3)
          .toDF()
          .write()
          .format("flightsql")
          .option("uri", duckDb.uri())
          .option("dbtable", "metered")
          .option("batchSize", "1000")
          .save();
      long wallMillis = (System.nanoTime() - start) / 1_000_000;

      assertThat(stages.outputRecords()).isEqualTo(12_345);
      // 8 bytes per BIGINT, and a validity bitmap (padded to 8 bytes) per batch of at most 1000.
      assertThat(stages.outputBytes())
          .isBetween(8L * 12_345, 8L * 12_345 + 12_345 / 8 + 16 * 8 * 3);
      assertThat(stages.accumulator(ROWS_OUT)).contains(12_345L);
      assertThat(stages.accumulator(BYTES_OUT)).contains(stages.outputBytes());
      assertThat(stages.accumulator(WAIT + " (ms)").orElse(-1L)).isBetween(0L, 3 * wallMillis);
    }
  }

  /** A catalog write shows the same figures on its write node in the SQL tab. */
  @Test
  void catalogWritesShowBytesSentAndTimeWaitingForTheServer() throws Exception {
    duckDb.server().execute("CREATE TABLE metered_by_catalog (id BIGINT)");
    spark.session().conf().set("spark.sql.catalog.metered", "io.flightsql.spark.FlightSqlCatalog");
    spark.session().conf().set("spark.sql.catalog.metered.uri", duckDb.uri());
    spark.session().conf().set("spark.sql.catalog.metered.batchSize", "1000");
    long start = System.nanoTime();
    spark.session().range(0, 12_345, 1, 3).toDF().createOrReplaceTempView("metered_rows");
    spark
        .session()
        .sql("INSERT INTO metered.memory.main.metered_by_catalog SELECT id FROM metered_rows");
    long wallMillis = (System.nanoTime() - start) / 1_000_000;

    Map<String, String> shown = SqlUiMetrics.latest(spark.session(), ROWS_OUT, BYTES_OUT, WAIT);
    assertThat(SqlUiMetrics.number(shown.get(ROWS_OUT))).isEqualTo(12_345);
    assertThat(SqlUiMetrics.number(shown.get(BYTES_OUT)))
        .isBetween(8L * 12_345, 8L * 12_345 + 12_345 / 8 + 16 * 8 * 3);
    assertThat(shown.get(WAIT)).endsWith(" ms");
    assertThat(SqlUiMetrics.number(shown.get(WAIT))).isBetween(0L, 3 * wallMillis);
  }
}
