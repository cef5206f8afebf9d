package io.flightsql.spark.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.spark.TaskContext;
import org.apache.spark.sql.DataFrameWriter;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.api.java.UDF1;
import org.apache.spark.sql.types.DataTypes;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * What a write whose job fails in its last task leaves on a server that takes writes, with the
 * connector's default options: the table exactly as it was (its rows and its columns), which
 * another client reads at once, so no transaction holds a lock; no staging table; and the failure
 * reported within a bound. Servers with transactions get there with one commit transaction, servers
 * without (Derby) by renaming staged rows into place at the commit. Mixed into a {@link
 * FlightSqlContractSuite} of a server whose {@link ServerQuirks#writeMethods()} is not empty; its
 * {@code local[2]} session does not retry a failed task.
 */
interface FailedWriteContract {
  Duration BOUND = Duration.ofMinutes(2);
  int PARTITIONS = 4;
  long ROWS_PER_PARTITION = 5_000;

  ServerQuirks quirks();

  SparkSession spark();

  /** Table names of this JVM's failed writes, one per test. */
  final class Names {
    private static final AtomicInteger NEXT = new AtomicInteger();

    private Names() {}

    static String next(String kind) {
      return kind + "_" + NEXT.incrementAndGet();
    }
  }

  /** Throws in the last partition once half its rows went by, so batches of it were sent. */
  final class FailInLastTask implements UDF1<Long, Long> {
    private static final long serialVersionUID = 1L;

    @Override
    public Long call(Long id) {
      long failing = (PARTITIONS - 1) * ROWS_PER_PARTITION + ROWS_PER_PARTITION / 2;
      if (TaskContext.get().partitionId() == PARTITIONS - 1 && id == failing) {
        throw new IllegalStateException("injected failure in the last task, at row " + id);
      }
      return id;
    }
  }

  /**
   * A table of 500 rows: {@code id} (NOT NULL), {@code note} {@code 'old'}, and {@code extra}, a
   * column that an overwrite replacing the table would not keep.
   */
  private String tableOf500(String kind) {
    String table = Names.next(kind);
    quirks()
        .executeUpdate(
            "CREATE TABLE "
                + table
                + " (id "
                + quirks().ddlType(ContractColumn.ID)
                + " NOT NULL, note "
                + quirks().ddlType(ContractColumn.NAME)
                + ", extra "
                + quirks().ddlType(ContractColumn.NAME)
                + ")");
    StringBuilder insert = new StringBuilder("INSERT INTO " + table + " (id, note) VALUES ");
    for (int i = 0; i < 500; i++) {
      insert.append(i > 0 ? ", " : "").append('(').append(i).append(", 'old')");
    }
    quirks().executeUpdate(insert.toString());
    return table;
  }

  /**
   * 20,000 new rows in four tasks, of which the last fails half way; columns named as the server
   * reports names, as users of the server write them.
   */
  private Dataset<Row> failingInLastTask() {
    spark().udf().register("fail_in_last_task", new FailInLastTask(), DataTypes.LongType);
    return spark()
        .range(0, PARTITIONS * ROWS_PER_PARTITION, 1, PARTITIONS)
        .selectExpr(
            "fail_in_last_task(id) AS " + quirks().reportedName("id"),
            "'new' AS " + quirks().reportedName("note"));
  }

  private DataFrameWriter<Row> writer(Dataset<Row> rows, String table) {
    return rows.write()
        .format("flightsql")
        .option("uri", quirks().uri())
        .options(quirks().options())
        .option("dbtable", table)
        .option("batchSize", "500");
  }

  private void failsInItsLastTask(Runnable write) throws Exception {
    Throwable failure = FailedJobs.failureOf(spark(), write, BOUND);
    assertThat(failure).hasStackTraceContaining("injected failure in the last task");
  }

  /**
   * The table has its 500 rows and its three columns, as another client reads them at once; that
   * client can also create and drop a table at once, so no transaction holds a lock; no staging
   * table of the write is left.
   */
  private void assertAsItWas(String table) {
    List<String> expected = new ArrayList<>();
    for (int i = 0; i < 500; i++) {
      expected.add(i + "|old");
    }
    String uri = quirks().uri();
    assertThat(FlightSqlUpdates.rows(uri, "SELECT id, note FROM " + table + " ORDER BY id", BOUND))
        .isEqualTo(expected);
    assertThat(FlightSqlUpdates.columnNames(uri, "SELECT * FROM " + table, BOUND))
        .containsExactly(
            quirks().reportedName("id"),
            quirks().reportedName("note"),
            quirks().reportedName("extra"));
    String probe = Names.next("probe");
    FlightSqlUpdates.execute(
        uri, "CREATE TABLE " + probe + " (id " + quirks().ddlType(ContractColumn.ID) + ")", BOUND);
    FlightSqlUpdates.execute(uri, "DROP TABLE " + probe, BOUND);
    assertThat(
            FlightSqlUpdates.tablesStartingWith(
                uri, quirks().reportedName(table) + "_flightsql_", BOUND))
        .as("staging tables left")
        .isEmpty();
  }

  @ParameterizedTest(name = "truncate={0}")
  @Timeout(value = 10, unit = TimeUnit.MINUTES) // a few waits of at most BOUND each
  @ValueSource(booleans = {false, true})
  default void anOverwriteThatFailsInItsLastTaskLeavesTheTableAsItWas(boolean truncate)
      throws Exception {
    Assumptions.assumeFalse(quirks().writeMethods().isEmpty(), quirks() + " takes no writes");
    String table = tableOf500("overwritten");
    failsInItsLastTask(
        () ->
            writer(failingInLastTask(), table)
                .mode("overwrite")
                .option("truncate", String.valueOf(truncate))
                .save());
    assertAsItWas(table);
  }

  @Test
  @Timeout(value = 10, unit = TimeUnit.MINUTES) // a few waits of at most BOUND each
  default void anAppendThatFailsInItsLastTaskAddsNothing() throws Exception {
    Assumptions.assumeFalse(quirks().writeMethods().isEmpty(), quirks() + " takes no writes");
    String table = tableOf500("appended");
    failsInItsLastTask(() -> writer(failingInLastTask(), table).mode("append").save());
    assertAsItWas(table);
  }

  @Test
  @Timeout(value = 10, unit = TimeUnit.MINUTES) // a few waits of at most BOUND each
  default void aCatalogInsertOverwriteThatFailsInItsLastTaskLeavesTheTableAsItWas()
      throws Exception {
    Assumptions.assumeFalse(quirks().writeMethods().isEmpty(), quirks() + " takes no writes");
    Assumptions.assumeTrue(quirks().catalogNamespace() != null, "no catalog namespace");
    String table = tableOf500("catalog_overwritten");
    new CatalogStatements(spark(), "failing", quirks().uri());
    spark().conf().set("spark.sql.catalog.failing.batchSize", "500");
    failingInLastTask().createOrReplaceTempView("failing_rows");
    failsInItsLastTask(
        () ->
            spark()
                .sql(
                    "INSERT OVERWRITE failing."
                        + quirks().catalogNamespace()
                        + "."
                        + table
                        + " SELECT CAST(id AS INT), note, CAST(NULL AS STRING) FROM failing_rows"));
    assertAsItWas(table);
  }

  /**
   * An overwrite that succeeds replaces the table: the DataFrame's columns and rows, nothing of the
   * old ones, and no staging table left; the replacement keeps the table's name as the server
   * spells it.
   */
  @Test
  @Timeout(value = 10, unit = TimeUnit.MINUTES) // a few waits of at most BOUND each
  default void anOverwriteReplacesTheTableAndLeavesNoStagingTable() {
    Assumptions.assumeFalse(quirks().writeMethods().isEmpty(), quirks() + " takes no writes");
    String table = tableOf500("replaced");
    Dataset<Row> rows =
        spark()
            .range(0, 3_000, 1, 3)
            .selectExpr(
                "id AS " + quirks().reportedName("id"),
                "CAST(id * 2 AS STRING) AS " + quirks().reportedName("label"));
    writer(rows, table).mode("overwrite").save();
    String uri = quirks().uri();
    assertThat(FlightSqlUpdates.columnNames(uri, "SELECT * FROM " + table, BOUND))
        .containsExactly(quirks().reportedName("id"), quirks().reportedName("label"));
    assertThat(FlightSqlUpdates.rows(uri, "SELECT count(*), sum(id) FROM " + table, BOUND))
        .containsExactly("3000|4498500");
    assertThat(
            FlightSqlUpdates.tablesStartingWith(
                uri, quirks().reportedName(table) + "_flightsql_", BOUND))
        .isEmpty();
  }

  /**
   * Partition 1 fails once partition 0 has produced its last row: partition 0 is then most likely
   * committing, its rows executed by the server inside its transaction, when Spark kills it.
   */
  final class FailWhenOtherCommits implements UDF1<Long, Long> {
    private static final long serialVersionUID = 1L;
    static final long ROWS = 400_000;
    static volatile CountDownLatch lastRowOfPartition0;

    @Override
    public Long call(Long id) throws InterruptedException {
      TaskContext task = TaskContext.get();
      if (task.partitionId() == 0 && id == ROWS - 1) {
        lastRowOfPartition0.countDown();
      }
      if (task.partitionId() == 1 && id == ROWS + 10) {
        if (!lastRowOfPartition0.await(BOUND.toMillis(), TimeUnit.MILLISECONDS)) {
          throw new IllegalStateException("partition 0 never reached its last row");
        }
        throw new IllegalStateException("injected failure in the last task, at row " + id);
      }
      return id;
    }
  }

  /**
   * With option {@code atomic=false} each task writes into the table in a transaction of its own.
   * Spark 4 interrupts a failed job's running tasks, and a killed task's rollback must still reach
   * the server: on a server with one writer a transaction left open blocks every other client. The
   * killed task either committed first or left nothing.
   */
  @Test
  @Timeout(value = 10, unit = TimeUnit.MINUTES) // a few waits of at most BOUND each
  default void aTaskKilledInItsTransactionEndsIt() throws Exception {
    Assumptions.assumeTrue(quirks().transactions(), quirks() + " has no transactions");
    FailWhenOtherCommits.lastRowOfPartition0 = new CountDownLatch(1);
    spark()
        .udf()
        .register("fail_when_other_commits", new FailWhenOtherCommits(), DataTypes.LongType);
    String table = tableOf500("killed");
    Dataset<Row> rows =
        spark()
            .range(0, 2 * FailWhenOtherCommits.ROWS, 1, 2)
            .selectExpr(
                "fail_when_other_commits(id) AS " + quirks().reportedName("id"),
                "'new' AS " + quirks().reportedName("note"));
    failsInItsLastTask(
        () ->
            writer(rows, table)
                .option("atomic", "false")
                .option("batchSize", "10000")
                .mode("append")
                .save());
    String uri = quirks().uri();
    String probe = Names.next("probe");
    FlightSqlUpdates.execute(
        uri, "CREATE TABLE " + probe + " (id " + quirks().ddlType(ContractColumn.ID) + ")", BOUND);
    FlightSqlUpdates.execute(uri, "DROP TABLE " + probe, BOUND);
    assertThat(FlightSqlUpdates.rows(uri, "SELECT count(*) FROM " + table, BOUND))
        .containsAnyOf("500", String.valueOf(500 + FailWhenOtherCommits.ROWS));
  }
}
