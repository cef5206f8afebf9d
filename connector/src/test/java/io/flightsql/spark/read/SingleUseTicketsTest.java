package io.flightsql.spark.read;

import static org.apache.spark.sql.functions.col;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.flightsql.spark.server.DuckDbFlightSqlServer;
import io.flightsql.spark.testing.ArrowLeakCheckExtension;
import io.flightsql.spark.testing.EmbeddedServerExtension;
import io.flightsql.spark.testing.SparkSessionExtension;
import java.util.List;
import java.util.stream.Collectors;
import org.apache.spark.TaskContext;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Servers whose tickets can be read once (the embedded server without {@code TicketReuse}, as Sail
 * and Deephaven are), and a partition Spark reads again (the same planned RDD twice, a second
 * action on one DataFrame, a sort's sampling pass, a retried task). Where the query had one
 * endpoint, the connector runs it again and reads the same rows; where it had several, running it
 * again could split its rows differently among the endpoints (ties in an ORDER BY, rows changed in
 * between), so the read fails saying why and what to do, and never returns other rows.
 */
@ExtendWith(ArrowLeakCheckExtension.class)
class SingleUseTicketsTest {
  private static final long SUM = 999L * 1000 / 2;

  /** Two endpoints per query, each a slice of a result computed once and held until read. */
  @RegisterExtension
  @Order(1)
  static final EmbeddedServerExtension several =
      EmbeddedServerExtension.duckDb(
          server ->
              server
                  .port(0)
                  .lineitemRows(0)
                  .endpoints(2)
                  .batchRows(100)
                  .without("TicketReuse", "QueryPerEndpoint"));

  /** One endpoint per query. */
  @RegisterExtension
  @Order(2)
  static final EmbeddedServerExtension one =
      EmbeddedServerExtension.duckDb(
          server ->
              server.port(0).lineitemRows(0).endpoints(1).batchRows(100).without("TicketReuse"));

  // local[2,2]: a failed task is tried once more, as on a cluster.
  @RegisterExtension
  @Order(3)
  static final SparkSessionExtension spark =
      SparkSessionExtension.local()
          .master("local[2,2]")
          .config("spark.sql.shuffle.partitions", "3");

  @BeforeAll
  static void tables() {
    for (DuckDbFlightSqlServer server : List.of(several.server(), one.server())) {
      server.execute("CREATE TABLE once AS SELECT i AS id FROM range(1000) r(i)");
      // Ten rows share each key: ORDER BY k leaves the order within a key to the server.
      server.execute("CREATE TABLE ties AS SELECT i % 100 AS k, i AS id FROM range(1000) r(i)");
    }
  }

  private static Dataset<Row> query(DuckDbFlightSqlServer server, String sql) {
    return spark
        .session()
        .read()
        .format("flightsql")
        .option("uri", server.uri())
        .option("query", sql)
        .load();
  }

  private static List<Long> ids(List<Row> rows, int column) {
    return rows.stream().map(r -> r.getLong(column)).sorted().collect(Collectors.toList());
  }

  private static long sum(List<Row> rows, int column) {
    return rows.stream().mapToLong(r -> r.getLong(column)).sum();
  }

  /** What a second read of a query of several endpoints says, whatever made Spark read again. */
  private static void failsSayingWhy(Throwable e) {
    assertThat(e)
        .hasMessageContaining("DoGet failed for grpc://127.0.0.1:")
        .hasMessageContaining("NOT_FOUND: The ticket's result is gone")
        .hasMessageContaining("the query's 2 endpoints are not planned again")
        .hasMessageContaining("ties in an ORDER BY, rows changed since")
        .hasMessageContaining("cache() the DataFrame")
        .hasMessageContaining("options 'partitionColumn' or 'predicates'")
        .hasMessageNotContaining("end the query with ORDER BY");
  }

  @Test
  void anOrderedQueryOfSeveralEndpointsWithTiesReadAgainFailsInsteadOfSplittingItAnew() {
    JavaRDD<Row> planned = query(several.server(), "SELECT k, id FROM ties ORDER BY k").javaRDD();
    assertThat(planned.getNumPartitions()).isEqualTo(2);
    List<Row> first = planned.collect();
    assertThat(ids(first, 1)).hasSize(1000).doesNotHaveDuplicates();
    assertThat(sum(first, 1)).isEqualTo(SUM);
    assertThatThrownBy(planned::collect).satisfies(SingleUseTicketsTest::failsSayingWhy);
  }

  /** Rows changed between two reads: a second read never mixes the old split with new rows. */
  @Test
  void rowsChangedBetweenTwoActionsOnOneDataFrameAreNeverMixedIn() {
    several.server().execute("CREATE TABLE growing AS SELECT i AS id FROM range(1000) r(i)");
    Dataset<Row> ordered = query(several.server(), "SELECT id FROM growing ORDER BY id");
    assertThat(sum(ordered.collectAsList(), 0)).isEqualTo(SUM);
    several.server().execute("INSERT INTO growing SELECT i AS id FROM range(1000, 1500) r(i)");
    assertThatThrownBy(ordered::collectAsList).satisfies(SingleUseTicketsTest::failsSayingWhy);
  }

  @Test
  void aSortSamplesItsInputAndFailsOnAQueryOfSeveralEndpointsUnlessCached() {
    Dataset<Row> ordered = query(several.server(), "SELECT k, id FROM ties ORDER BY k");
    assertThatThrownBy(() -> ordered.orderBy(col("id").desc()).collectAsList())
        .satisfies(SingleUseTicketsTest::failsSayingWhy);

    // cache() reads the server once, and every later job reads the cache.
    Dataset<Row> cached = query(several.server(), "SELECT k, id FROM ties ORDER BY k").cache();
    try {
      List<Long> sorted =
          cached.orderBy(col("id").desc()).collectAsList().stream()
              .map(r -> r.getLong(1))
              .collect(Collectors.toList());
      assertThat(sorted).hasSize(1000).startsWith(999L, 998L).endsWith(0L);
      assertThat(sum(cached.collectAsList(), 1)).isEqualTo(SUM);
    } finally {
      cached.unpersist(true);
    }
  }

  /** Client partitions each run their own query, so reading them again reads the same rows. */
  @Test
  void clientPartitionsOfSeveralEndpointsReadAgainGiveTheSameRows() {
    JavaRDD<Row> planned =
        spark
            .session()
            .read()
            .format("flightsql")
            .option("uri", several.uri())
            .option("dbtable", "ties")
            .option("partitionColumn", "id")
            .option("lowerBound", "0")
            .option("upperBound", "1000")
            .option("numPartitions", "2")
            .load()
            .javaRDD();
    List<Long> first = ids(planned.collect(), 1);
    assertThat(first).hasSize(1000).doesNotHaveDuplicates();
    assertThat(ids(planned.collect(), 1)).isEqualTo(first);
  }

  @Test
  void aQueryOfOneEndpointIsRunAgainAndReadExactlyEachTime() {
    JavaRDD<Row> planned = query(one.server(), "SELECT k, id FROM ties ORDER BY k").javaRDD();
    assertThat(planned.getNumPartitions()).isEqualTo(1);
    List<Long> first = ids(planned.collect(), 1);
    assertThat(first).hasSize(1000).doesNotHaveDuplicates();
    for (int read = 0; read < 2; read++) {
      assertThat(ids(planned.collect(), 1)).isEqualTo(first);
    }
    List<Long> sorted =
        query(one.server(), "SELECT id FROM once")
            .orderBy(col("id").desc())
            .collectAsList()
            .stream()
            .map(r -> r.getLong(0))
            .collect(Collectors.toList());
    assertThat(sorted).hasSize(1000).startsWith(999L, 998L).endsWith(0L);
  }

  /** A task that fails after reading its partition is retried, and the retry reads it again. */
  @Test
  void aRetriedTaskReadsItsOneEndpointAgain() {
    List<Long> ids =
        query(one.server(), "SELECT id FROM once")
            .javaRDD()
            .map(
                row -> {
                  if (TaskContext.get().attemptNumber() == 0 && row.getLong(0) == 999) {
                    throw new IllegalStateException("the first attempt of this task fails");
                  }
                  return row.getLong(0);
                })
            .collect();
    assertThat(ids).hasSize(1000);
    assertThat(ids.stream().mapToLong(Long::longValue).sum()).isEqualTo(SUM);
  }

  /** The same retry on a query of several endpoints fails the job, which loses and doubles none. */
  @Test
  void aRetriedTaskOfAQueryOfSeveralEndpointsFailsTheJob() {
    JavaRDD<Long> failing =
        query(several.server(), "SELECT id FROM once")
            .javaRDD()
            .map(
                row -> {
                  if (TaskContext.get().attemptNumber() == 0 && row.getLong(0) == 999) {
                    throw new IllegalStateException("the first attempt of this task fails");
                  }
                  return row.getLong(0);
                });
    assertThatThrownBy(failing::collect).satisfies(SingleUseTicketsTest::failsSayingWhy);
  }
}
