package io.flightsql.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.flightsql.spark.server.CallRecorder;
import io.flightsql.spark.testing.ArrowLeakCheckExtension;
import io.flightsql.spark.testing.EmbeddedServerExtension;
import io.flightsql.spark.testing.SparkSessionExtension;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.spark.api.java.function.ForeachFunction;
import org.apache.spark.api.java.function.MapFunction;
import org.apache.spark.sql.DataFrameReader;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Streams that stall, streams that are slow, and reads Spark stops half-way, against the embedded
 * DuckDB server made to pause before each record batch: a stall fails within {@code
 * streamIdleTimeout} naming the option, a slow but steady stream is never cut, and a task killed
 * mid-read cancels its DoGet, which the server sees while most of the stream is still to send. No
 * Arrow memory is left.
 */
@ExtendWith(ArrowLeakCheckExtension.class)
class FlightSqlStallTest {
  private static final long ROWS = 3000;

  /** The slow server's table: 1,000 batches of 100 rows, 300 s at its pace. */
  private static final long SLOW_ROWS = 100_000;

  /** The ids of half the slow table: fewer bytes sent than this means most rows were not. */
  private static final long HALF_THE_SLOW_STREAM_BYTES = SLOW_ROWS * Long.BYTES / 2;

  /**
   * How long to wait for the server to see a cancellation: far above the milliseconds it takes, far
   * below the 300 s the whole slow stream takes.
   */
  private static final long CANCELLATION_DEADLINE_SECONDS = 60;

  private static final CallRecorder SLOW_CALLS = new CallRecorder();

  /** When the slow server saw each DoGet cancelled, in System.nanoTime(). */
  private static final List<Long> CANCELLED = new CopyOnWriteArrayList<>();

  /** Sends a batch of 500 rows every 700 ms: 3 batches per endpoint, 2.1 s per stream. */
  @RegisterExtension
  @Order(1)
  static final EmbeddedServerExtension steady =
      EmbeddedServerExtension.duckDb(
          server ->
              server
                  .lineitemRows(0)
                  .endpoints(2)
                  .batchRows(500)
                  .batchDelay(Duration.ofMillis(700)));

  /** Sends a batch of 100 rows every 300 ms, one endpoint, for reads Spark stops early. */
  @RegisterExtension
  @Order(2)
  static final EmbeddedServerExtension slow =
      EmbeddedServerExtension.duckDb(
          server ->
              server
                  .lineitemRows(0)
                  .endpoints(1)
                  .batchRows(100)
                  .batchDelay(Duration.ofMillis(300))
                  .doGetCancellationObserver(() -> CANCELLED.add(System.nanoTime()))
                  .middleware(CallRecorder.KEY, SLOW_CALLS));

  @RegisterExtension
  @Order(3)
  static final SparkSessionExtension spark = SparkSessionExtension.local();

  @BeforeAll
  static void tablesAndWarmUp() {
    steady.server().execute("CREATE TABLE t AS SELECT i AS id FROM range(" + ROWS + ") r(i)");
    slow.server().execute("CREATE TABLE t AS SELECT i AS id FROM range(" + SLOW_ROWS + ") r(i)");
    // A first job loads and compiles much of Spark, which on a busy machine takes seconds: the
    // measures below are of a warm executor, as a long-running application has.
    read(slow).load().limit(1).collectAsList();
  }

  @BeforeEach
  void forgetCancellations() {
    CANCELLED.clear();
    SLOW_CALLS.clear();
  }

  private static DataFrameReader read(EmbeddedServerExtension server) {
    return spark
        .session()
        .read()
        .format("flightsql")
        .option("uri", server.uri())
        .option("dbtable", "t")
        // Spark, not the server, must stop these reads early.
        .option("pushDownLimit", "false")
        .option("pushDownAggregate", "false")
        .option("pushDownPredicate", "false");
  }

  @Test
  void aSlowButSteadyStreamIsNeverCut() {
    long start = System.nanoTime();
    List<Row> rows = read(steady).option("streamIdleTimeout", "1500ms").load().collectAsList();
    long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    System.out.printf(
        "Slow but steady stream: %d rows in %d ms, with streamIdleTimeout=1500ms%n",
        rows.size(), millis);
    assertThat(rows).hasSize((int) ROWS);
    assertThat(rows.stream().mapToLong(r -> r.getLong(0)).sum()).isEqualTo(ROWS * (ROWS - 1) / 2);
  }

  @Test
  void aStreamSilentForStreamIdleTimeoutFailsTheTaskNamingTheOptionTheServerAndThePartition() {
    long start = System.nanoTime();
    // The server waits 700 ms before each batch; 300 ms of silence is enough to give up.
    assertThatThrownBy(
            () -> read(steady).option("streamIdleTimeout", "300ms").load().collectAsList())
        .satisfies(
            e -> {
              System.out.printf(
                  "Stalled stream: failed after %d ms with: %s%n",
                  TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start), e.getMessage());
            })
        .hasMessageContaining("[flightsql] DoGet failed for " + steady.uri())
        .hasMessageContaining("TIMED_OUT")
        .hasMessageContaining("the server sent nothing for 300 ms (option 'streamIdleTimeout')")
        .hasMessageContaining("while reading partition ")
        .hasMessageContaining("(endpoint ");
  }

  @Test
  void aCancelledJobCancelsItsDoGetMidStream() throws Exception {
    long sentBefore = slow.server().bytesSent();
    ExecutorService runner = Executors.newSingleThreadExecutor();
    try {
      Future<?> job =
          runner.submit(
              () -> {
                spark.session().sparkContext().setJobGroup("stall-test", "to be cancelled", true);
                try {
                  read(slow).load().foreach((ForeachFunction<Row>) row -> {});
                } finally {
                  spark.session().sparkContext().clearJobGroup();
                }
              });
      awaitStreamMidWay();
      // Only cancellations from now on are this job's.
      CANCELLED.clear();
      long cancelled = System.nanoTime();
      System.out.println("Cancelling job group at " + java.time.Instant.now());
      spark.session().sparkContext().cancelJobGroup("stall-test");
      assertThatThrownBy(() -> job.get(30, TimeUnit.SECONDS)).hasMessageContaining("cancel");
      assertServerSawTheStreamCancelledWithMostRowsUnsent(cancelled, sentBefore, "a cancelled job");
    } finally {
      runner.shutdownNow();
    }
  }

  @Test
  void aLimitReachedCancelsTheRestOfTheStream() throws Exception {
    long sentBefore = slow.server().bytesSent();
    List<Row> rows = read(slow).load().limit(150).collectAsList();
    long done = System.nanoTime();
    assertThat(rows).hasSize(150);
    assertServerSawTheStreamCancelledWithMostRowsUnsent(done, sentBefore, "limit(150) reached");
  }

  @Test
  void anotherTaskFailingCancelsTheDoGet() throws Exception {
    long sentBefore = slow.server().bytesSent();
    Dataset<Row> failing =
        spark
            .session()
            .range(0, 1, 1, 1)
            .map(
                (MapFunction<Long, Long>)
                    x -> {
                      Thread.sleep(1500);
                      throw new IllegalStateException("another task failed");
                    },
                Encoders.LONG())
            .toDF("id");
    assertThatThrownBy(
            () -> read(slow).load().union(failing).foreach((ForeachFunction<Row>) row -> {}))
        .hasMessageContaining("another task failed");
    long failed = System.nanoTime();
    assertServerSawTheStreamCancelledWithMostRowsUnsent(failed, sentBefore, "another task failing");
  }

  /**
   * Waits until the slow server streams and has sent three more batches, so that the job is
   * cancelled mid-read.
   */
  private static void awaitStreamMidWay() throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(CANCELLATION_DEADLINE_SECONDS);
    while (SLOW_CALLS.calls().stream().noneMatch(c -> c.method().equals("DoGet"))
        && System.nanoTime() < deadline) {
      Thread.sleep(20);
    }
    assertThat(SLOW_CALLS.calls())
        .as("calls to the slow server")
        .anyMatch(c -> c.method().equals("DoGet"));
    long streaming = slow.server().bytesSent();
    while (slow.server().bytesSent() - streaming < 3 * 100 * Long.BYTES
        && System.nanoTime() < deadline) {
      Thread.sleep(20);
    }
    assertThat(slow.server().bytesSent() - streaming)
        .as("bytes the slow server sent once its DoGet began")
        .isGreaterThanOrEqualTo(3 * 100 * Long.BYTES);
  }

  /**
   * The server saw the DoGet cancelled while most of its rows were still to send: the cancellation
   * came within a deadline far shorter than the whole stream, and the server had sent less than
   * half of the stream's ids since {@code sentBefore}. The latency from {@code since} (an action's
   * end or the cancel; the task may be killed before the action returns) is printed, not asserted.
   */
  private static void assertServerSawTheStreamCancelledWithMostRowsUnsent(
      long since, long sentBefore, String what) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(CANCELLATION_DEADLINE_SECONDS);
    while (CANCELLED.isEmpty() && System.nanoTime() < deadline) {
      Thread.sleep(5);
    }
    assertThat(CANCELLED)
        .as(
            "DoGet cancellations the slow server saw within %d s after %s",
            CANCELLATION_DEADLINE_SECONDS, what)
        .isNotEmpty();
    long millis = TimeUnit.NANOSECONDS.toMillis(CANCELLED.get(0) - since);
    long sent = slow.server().bytesSent() - sentBefore;
    System.out.printf(
        "Server saw the DoGet cancelled %d ms after %s, having sent %d bytes of the stream%n",
        millis, what, sent);
    assertThat(sent)
        .as("bytes the slow server sent until it saw the cancellation after %s", what)
        .isLessThan(HALF_THE_SLOW_STREAM_BYTES);
  }
}
