package io.flightsql.spark.read;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.flightsql.spark.server.DuckDbFlightSqlServer;
import io.flightsql.spark.testing.SparkTestSupport;
import java.util.List;
import java.util.stream.Collectors;
import org.apache.spark.TaskContext;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A server whose tickets can be read once (the embedded server without {@code TicketReuse}, as Sail
 * and Deephaven are), with two endpoints per query: a partition Spark reads again (the same planned
 * RDD twice, a sort's sampling pass) is planned again and read exactly where the query orders its
 * rows or has one endpoint; otherwise the task fails saying why and what to do.
 */
class SingleUseTicketsTest {
  private static DuckDbFlightSqlServer server;
  private static SparkSession spark;

  @BeforeAll
  static void start() throws Exception {
    server =
        DuckDbFlightSqlServer.builder()
            .port(0)
            .lineitemRows(0)
            .endpoints(2)
            .batchRows(100)
            .without("TicketReuse")
            .start();
    server.execute("CREATE TABLE once AS SELECT i AS id FROM range(1000) r(i)");
    // local[2,2]: a failed task is tried once more, as on a cluster.
    spark =
        SparkSession.builder()
            .master("local[2,2]")
            .appName("SingleUseTicketsTest")
            .config("spark.ui.enabled", "false")
            .config("spark.sql.shuffle.partitions", "2")
            .getOrCreate();
  }

  @AfterAll
  static void stop() {
    if (spark != null) {
      spark.stop();
    }
    if (server != null) {
      server.close();
    }
  }

  @AfterEach
  void noLeaks() throws InterruptedException {
    SparkTestSupport.assertNoArrowMemoryLeft();
  }

  private static Dataset<Row> query(String sql) {
    return spark.read().format("flightsql").option("uri", server.uri()).option("query", sql).load();
  }

  private static long sum(List<Row> rows) {
    return rows.stream().mapToLong(r -> r.getLong(0)).sum();
  }

  @Test
  void anOrderedQueryIsPlannedAgainAndReadExactlyEachTime() {
    JavaRDD<Row> planned = query("SELECT id FROM once ORDER BY id").javaRDD();
    assertThat(planned.getNumPartitions()).isEqualTo(2);
    for (int read = 0; read < 3; read++) {
      List<Row> rows = planned.collect();
      assertThat(rows).hasSize(1000);
      assertThat(sum(rows)).isEqualTo(999L * 1000 / 2);
      assertThat(rows.get(0).getLong(0)).isZero();
    }
  }

  @Test
  void aSortSamplesAnOrderedQueryAndSortsItExactly() {
    String partitions = spark.conf().get("spark.sql.shuffle.partitions");
    spark.conf().set("spark.sql.shuffle.partitions", "3");
    try {
      List<Long> ids =
          query("SELECT id FROM once ORDER BY id")
              .orderBy(org.apache.spark.sql.functions.col("id").desc())
              .collectAsList()
              .stream()
              .map(r -> r.getLong(0))
              .collect(Collectors.toList());
      assertThat(ids).hasSize(1000).startsWith(999L, 998L).endsWith(0L);
    } finally {
      spark.conf().set("spark.sql.shuffle.partitions", partitions);
    }
  }

  @Test
  void anUnorderedQueryOfSeveralEndpointsReadAgainFailsNamingTheFixes() {
    JavaRDD<Row> planned = query("SELECT id FROM once").javaRDD();
    assertThat(planned.collect()).hasSize(1000);
    assertThatThrownBy(planned::collect)
        .hasMessageContaining("NOT_FOUND")
        .hasMessageContaining("this server reads each ticket once")
        .hasMessageContaining("cache() the DataFrame")
        .hasMessageContaining("ORDER BY");
  }

  /**
   * Spark runs a second action on the same DataFrame with the partitions it planned for the first:
   * exact again for an ordered query, a clear error for an unordered one of several endpoints.
   */
  @Test
  void twoActionsOnOneDataFrame() {
    Dataset<Row> ordered = query("SELECT id FROM once ORDER BY id");
    assertThat(sum(ordered.collectAsList())).isEqualTo(999L * 1000 / 2);
    assertThat(sum(ordered.collectAsList())).isEqualTo(999L * 1000 / 2);

    Dataset<Row> unordered = query("SELECT id FROM once");
    assertThat(sum(unordered.collectAsList())).isEqualTo(999L * 1000 / 2);
    assertThatThrownBy(unordered::collectAsList).hasMessageContaining("cache() the DataFrame");
    // cache() reads the server once, and every later action reads the cache.
    Dataset<Row> cached = query("SELECT id FROM once").cache();
    assertThat(sum(cached.collectAsList())).isEqualTo(999L * 1000 / 2);
    assertThat(sum(cached.collectAsList())).isEqualTo(999L * 1000 / 2);
    cached.unpersist();
  }

  /** A task that fails after reading its partition is retried, and the retry reads it again. */
  @Test
  void aRetriedTaskReadsItsOrderedPartitionAgain() {
    List<Long> ids =
        query("SELECT id FROM once ORDER BY id")
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
    assertThat(ids.stream().mapToLong(Long::longValue).sum()).isEqualTo(999L * 1000 / 2);
  }

  @Test
  void orderByIsFoundAtTheTopLevelOnly() {
    assertThat(SqlText.endsWithOrderBy("SELECT id FROM t ORDER BY id LIMIT 5")).isTrue();
    assertThat(SqlText.endsWithOrderBy("select * from (select id from t order by id) s")).isFalse();
    assertThat(SqlText.endsWithOrderBy("SELECT 'ORDER BY x' AS s FROM t")).isFalse();
    assertThat(SqlText.endsWithOrderBy("SELECT a FROM t ORDER BY a UNION SELECT b FROM u"))
        .isFalse();
    assertThat(SqlText.endsWithOrderBy("SELECT a FROM t -- ORDER BY a\n")).isFalse();
    assertThat(SqlText.endsWithOrderBy("SELECT \"order by\" FROM t ORDER\nBY 1")).isTrue();
  }
}
