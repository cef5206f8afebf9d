package io.flightsql.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.flightsql.spark.server.DuckDbFlightSqlServer;
import io.flightsql.spark.testing.ArrowLeakCheckExtension;
import io.flightsql.spark.testing.EmbeddedServerExtension;
import io.flightsql.spark.testing.FailingJob;
import io.flightsql.spark.testing.LogCapture;
import io.flightsql.spark.testing.PlainFlightSql;
import io.flightsql.spark.testing.SparkSessionExtension;
import io.flightsql.spark.testing.TaskEnds;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.apache.spark.TaskContext;
import org.apache.spark.sql.DataFrameWriter;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.api.java.UDF1;
import org.apache.spark.sql.types.DataTypes;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Writes whose job fails in its last task, after the other tasks finished, on the embedded DuckDB
 * server with transactions and without them. With the default options the table is left exactly as
 * it was (rows and definition), another client reads it at once, no transaction stays open on the
 * server and no staging table is left; the failure reaches the caller within a bound. Spark runs
 * {@code local[2]}, which does not retry a failed task.
 */
@ExtendWith(ArrowLeakCheckExtension.class)
class FailedWriteTest {
  private static final Duration BOUND = Duration.ofMinutes(2);
  private static final int PARTITIONS = 4;
  private static final long ROWS_PER_PARTITION = 5_000;

  @RegisterExtension
  @Order(1)
  static final EmbeddedServerExtension duckDb =
      EmbeddedServerExtension.duckDb(server -> server.port(0).lineitemRows(0));

  @RegisterExtension
  @Order(2)
  static final EmbeddedServerExtension noTransactions =
      EmbeddedServerExtension.duckDb(
          server -> server.port(0).lineitemRows(0).without("Transactions"));

  @RegisterExtension
  @Order(3)
  static final SparkSessionExtension spark = SparkSessionExtension.local();

  private static int tables;

  @BeforeAll
  static void failingFunctionAndCatalog() {
    SparkSession session = spark.session();
    session
        .udf()
        .register(
            "fail_in_last_task",
            new FailInLastTask(PARTITIONS, ROWS_PER_PARTITION, ROWS_PER_PARTITION / 2),
            DataTypes.LongType);
    session.conf().set("spark.sql.catalog.flight", "io.flightsql.spark.FlightSqlCatalog");
    session.conf().set("spark.sql.catalog.flight.uri", duckDb.uri());
    session.conf().set("spark.sql.catalog.flight.batchSize", "500");
  }

  /** Throws in the last partition once half its rows went by, so batches of it were sent. */
  public static final class FailInLastTask implements UDF1<Long, Long> {
    private static final long serialVersionUID = 1L;
    private final int lastPartition;
    private final long failingId;

    FailInLastTask(int partitions, long rowsPerPartition, long after) {
      this.lastPartition = partitions - 1;
      this.failingId = lastPartition * rowsPerPartition + after;
    }

    @Override
    public Long call(Long id) {
      if (TaskContext.get().partitionId() == lastPartition && id == failingId) {
        throw new IllegalStateException("injected failure in the last task, at row " + id);
      }
      return id;
    }
  }

  /**
   * 20,000 new rows in four tasks, of which the last fails half way. Its {@code id} is a BIGINT,
   * where the table's is an INTEGER: a replaced table would change type.
   */
  private static Dataset<Row> failingInLastTask() {
    return spark
        .session()
        .range(0, PARTITIONS * ROWS_PER_PARTITION, 1, PARTITIONS)
        .selectExpr("fail_in_last_task(id) AS id", "'new' AS note");
  }

  /** A table of 500 rows ({@code id}, {@code note}) on {@code on}, with a default on a column. */
  private static String tableOf500(DuckDbFlightSqlServer on) {
    String table = "kept_" + (++tables);
    on.execute("CREATE TABLE " + table + " (id INTEGER NOT NULL, note VARCHAR DEFAULT 'x')");
    on.execute("INSERT INTO " + table + " SELECT range, 'old' FROM range(500)");
    return table;
  }

  private static DataFrameWriter<Row> writer(
      DuckDbFlightSqlServer on, Dataset<Row> df, String table) {
    return df.write()
        .format("flightsql")
        .option("uri", on.uri())
        .option("dbtable", table)
        .option("batchSize", "500");
  }

  /** Runs the write, which must fail with the injected failure, then waits for every task. */
  private static void failsInItsLastTask(Runnable write) throws Exception {
    try (TaskEnds tasks = TaskEnds.listen(spark.session())) {
      Throwable failure = FailingJob.failureOf(write, BOUND);
      assertThat(failure).hasStackTraceContaining("injected failure in the last task");
      tasks.awaitAllEnded(BOUND);
    }
  }

  /**
   * The table has its 500 rows and its columns, as another client reads them at once; the server
   * has no transaction open and no staging table of the write.
   */
  private static void assertAsItWas(DuckDbFlightSqlServer on, String table) {
    List<String> expected = new ArrayList<>();
    for (int i = 0; i < 500; i++) {
      expected.add(i + "|old");
    }
    assertThat(PlainFlightSql.rows(on.uri(), "SELECT id, note FROM " + table + " ORDER BY id", 60))
        .isEqualTo(expected);
    assertThat(
            PlainFlightSql.rows(
                on.uri(),
                "SELECT column_name, data_type FROM information_schema.columns"
                    + " WHERE table_name = '"
                    + table
                    + "' ORDER BY ordinal_position",
                60))
        .containsExactly("id|INTEGER", "note|VARCHAR");
    assertNothingLeft(on, table);
  }

  private static void assertNothingLeft(DuckDbFlightSqlServer on, String table) {
    assertThat(on.openTransactions()).as("transactions open on the server").isZero();
    assertThat(
            PlainFlightSql.rows(
                on.uri(),
                "SELECT table_name FROM duckdb_tables() WHERE table_name LIKE '"
                    + table
                    + "_flightsql_%'",
                60))
        .as("staging tables left")
        .isEmpty();
  }

  @ParameterizedTest(name = "truncate={0}")
  @ValueSource(booleans = {false, true})
  void anOverwriteThatFailsInItsLastTaskLeavesTheTableAsItWas(boolean truncate) throws Exception {
    String table = tableOf500(duckDb.server());
    failsInItsLastTask(
        () ->
            writer(duckDb.server(), failingInLastTask(), table)
                .mode("overwrite")
                .option("truncate", String.valueOf(truncate))
                .save());
    assertAsItWas(duckDb.server(), table);
  }

  @ParameterizedTest(name = "writeMethod={0}")
  @ValueSource(strings = {"ingest", "prepared"})
  void anAppendThatFailsInItsLastTaskAddsNothing(String method) throws Exception {
    String table = tableOf500(duckDb.server());
    failsInItsLastTask(
        () ->
            writer(duckDb.server(), failingInLastTask().selectExpr("id"), table)
                .option("writeMethod", method)
                .mode("append")
                .save());
    assertAsItWas(duckDb.server(), table);
  }

  @Test
  void aCatalogInsertOverwriteThatFailsInItsLastTaskLeavesTheTableAsItWas() throws Exception {
    String table = tableOf500(duckDb.server());
    failingInLastTask().createOrReplaceTempView("failing_rows");
    failsInItsLastTask(
        () ->
            spark
                .session()
                .sql(
                    "INSERT OVERWRITE flight.memory.main."
                        + table
                        + " SELECT CAST(id AS INT), note FROM failing_rows"));
    assertAsItWas(duckDb.server(), table);
  }

  @Test
  void aNewTableWhoseJobFailsIsNeverCreated() throws Exception {
    failsInItsLastTask(() -> writer(duckDb.server(), failingInLastTask(), "never_made").save());
    assertThat(
            PlainFlightSql.rows(
                duckDb.uri(),
                "SELECT count(*) FROM duckdb_tables() WHERE table_name = 'never_made'",
                60))
        .containsExactly("0");
    assertNothingLeft(duckDb.server(), "never_made");
  }

  /**
   * Option {@code atomic=false} keeps the old behaviour, which docs/writing.md describes: the table
   * is replaced before the tasks run, and the tasks that finished keep their rows.
   */
  @Test
  void withAtomicFalseAFailedOverwriteKeepsTheRowsOfTheTasksThatFinished() throws Exception {
    String table = tableOf500(duckDb.server());
    failsInItsLastTask(
        () ->
            writer(duckDb.server(), failingInLastTask(), table)
                .option("atomic", "false")
                .mode("overwrite")
                .save());
    List<String> counts =
        PlainFlightSql.rows(
            duckDb.uri(), "SELECT count(*), count(*) FILTER (note = 'old') FROM " + table, 60);
    assertThat(counts.get(0)).endsWith("|0");
    long rows = Long.parseLong(counts.get(0).split("\\|")[0]);
    assertThat(rows % ROWS_PER_PARTITION).isZero();
    assertThat(rows).isBetween(ROWS_PER_PARTITION, (PARTITIONS - 1) * ROWS_PER_PARTITION);
    assertThat(duckDb.server().openTransactions()).isZero();
  }

  /** Partition 0 holds its transaction open until Spark kills it; partition 1 then fails. */
  public static final class HoldThenFail implements UDF1<Long, Long> {
    private static final long serialVersionUID = 1L;
    static volatile CountDownLatch batchesSent;

    @Override
    public Long call(Long id) throws InterruptedException {
      TaskContext task = TaskContext.get();
      if (task.partitionId() == 0 && id == 1_000) {
        // Two batches of 500 rows went out inside the task's transaction.
        batchesSent.countDown();
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
        while (!task.isInterrupted() && System.nanoTime() < deadline) {
          LockSupport.parkNanos(10_000_000L);
        }
      }
      if (task.partitionId() == 1 && id == 10_000) {
        if (!batchesSent.await(2, TimeUnit.MINUTES)) {
          throw new IllegalStateException("partition 0 never sent its batches");
        }
        throw new IllegalStateException("injected failure in the last task, at row " + id);
      }
      return id;
    }
  }

  /**
   * Spark 4 interrupts the running tasks of a failed job, and gRPC refuses a call on an interrupted
   * thread: the rollback of a task killed in its transaction must still reach the server, or the
   * transaction stays open with its locks (forever on arrow-go's SQLite example).
   */
  @ParameterizedTest(name = "writeMethod={0}")
  @ValueSource(strings = {"ingest", "prepared"})
  void aTaskKilledInItsTransactionRollsItBack(String method) throws Exception {
    HoldThenFail.batchesSent = new CountDownLatch(1);
    spark.session().udf().register("hold_then_fail", new HoldThenFail(), DataTypes.LongType);
    Dataset<Row> rows =
        spark.session().range(0, 20_000, 1, 2).selectExpr("hold_then_fail(id) AS id");
    failsInItsLastTask(
        () ->
            writer(duckDb.server(), rows, "killed_" + method)
                .option("atomic", "false")
                .option("writeMethod", method)
                .save());
    assertThat(duckDb.server().openTransactions()).as("transactions open on the server").isZero();
    assertThat(duckDb.server().openPreparedStatements()).as("prepared statements open").isZero();
    // Partition 0 was rolled back; partition 1 never committed.
    assertThat(PlainFlightSql.rows(duckDb.uri(), "SELECT count(*) FROM killed_" + method, 60))
        .containsExactly("0");
  }

  @ParameterizedTest(name = "truncate={0}")
  @ValueSource(booleans = {false, true})
  void withoutTransactionsAFailedOverwriteLeavesTheTableAsItWas(boolean truncate) throws Exception {
    String table = tableOf500(noTransactions.server());
    failsInItsLastTask(
        () ->
            writer(noTransactions.server(), failingInLastTask(), table)
                .mode("overwrite")
                .option("truncate", String.valueOf(truncate))
                .save());
    assertAsItWas(noTransactions.server(), table);
  }

  @Test
  void withoutTransactionsAFailedAppendAddsNothing() throws Exception {
    String table = tableOf500(noTransactions.server());
    failsInItsLastTask(
        () ->
            writer(noTransactions.server(), failingInLastTask().selectExpr("id"), table)
                .mode("append")
                .save());
    assertAsItWas(noTransactions.server(), table);
  }

  /**
   * Without transactions an overwrite fills a new table and renames it into place at the job's
   * commit; the first such write warns once, naming the risk and option {@code atomic}.
   */
  @Test
  void withoutTransactionsAnOverwriteSwapsTheTablesAtTheCommitAndSaysSo() throws Exception {
    // A server of its own: the warning is given once per server and JVM.
    try (DuckDbFlightSqlServer fresh =
        DuckDbFlightSqlServer.builder().port(0).lineitemRows(0).without("Transactions").start()) {
      swapsAndSaysSo(fresh);
    }
  }

  private static void swapsAndSaysSo(DuckDbFlightSqlServer withoutTransactions) throws Exception {
    String table = tableOf500(withoutTransactions);
    Dataset<Row> rows =
        spark.session().range(0, 3_000, 1, 3).selectExpr("id", "CAST(id * 2 AS STRING) AS label");
    String log;
    try (LogCapture capture = LogCapture.start()) {
      writer(withoutTransactions, rows, table).mode("overwrite").save();
      writer(withoutTransactions, rows, table).mode("overwrite").save();
      log = capture.text();
    }
    assertThat(log)
        .contains(withoutTransactions.uri() + " reports no transactions")
        .contains("fills a new table, renames the old one away and the new one into place")
        .contains("Option 'atomic' set to 'true' refuses such servers");
    assertThat(log.split("reports no transactions", -1)).as("warned once").hasSize(2);
    assertThat(
            PlainFlightSql.rows(
                withoutTransactions.uri(),
                "SELECT count(*), sum(id), min(label) FROM " + table,
                60))
        .containsExactly("3000|4498500|0");
    assertThat(
            PlainFlightSql.rows(
                withoutTransactions.uri(),
                "SELECT column_name FROM information_schema.columns WHERE table_name = '"
                    + table
                    + "' ORDER BY ordinal_position",
                60))
        .containsExactly("id", "label");
    assertNothingLeft(withoutTransactions, table);
    assertThat(
            PlainFlightSql.rows(
                withoutTransactions.uri(),
                "SELECT count(*) FROM duckdb_tables() WHERE table_name LIKE '%_flightsql_old_%'",
                60))
        .containsExactly("0");
  }

  @Test
  void atomicTrueRefusesAServerWithoutTransactionsBeforeAnyTask() {
    String table = tableOf500(noTransactions.server());
    assertThatThrownBy(
            () ->
                writer(noTransactions.server(), failingInLastTask(), table)
                    .option("atomic", "true")
                    .mode("append")
                    .save())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith(
            "Option 'atomic' is 'true', which needs a server with transactions, and "
                + noTransactions.uri()
                + " reports none");
    assertAsItWas(noTransactions.server(), table);
  }
}
