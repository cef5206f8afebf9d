package io.flightsql.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.flightsql.spark.server.CallRecorder;
import io.flightsql.spark.server.DuckDbFlightSqlServer;
import io.flightsql.spark.server.DuckDbFlightSqlServerBuilder;
import io.flightsql.spark.server.RecordedCall;
import io.flightsql.spark.testing.ArrowLeakCheckExtension;
import io.flightsql.spark.testing.LogCapture;
import io.flightsql.spark.testing.SparkSessionExtension;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.sql.DataFrameReader;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Long-running queries and endpoints that expire, end to end against the embedded DuckDB server:
 * planning by PollFlightInfo (or GetFlightInfo where the server has no PollFlightInfo), option
 * queryTimeout, cancellation of planning, and the renewal of expiring endpoints. Each test starts a
 * server of its own, with a {@link CallRecorder} to check what the connector sent.
 */
class LongQueryTest {
  private static final int ROWS = 1000;
  private static final String QUERY = "SELECT id FROM numbers";

  @RegisterExtension static final SparkSessionExtension spark = SparkSessionExtension.local();

  private final List<DuckDbFlightSqlServer> servers = new ArrayList<>();
  private CallRecorder recorder;

  /**
   * Checks for leaks while the test's servers still run, before closing them: a stream the
   * connector failed to close would be ended by the server going away and hide the leak.
   */
  @AfterEach
  void checkLeaksThenStopServers() throws InterruptedException {
    try {
      ArrowLeakCheckExtension.assertNoneLeft("while the test's servers still run");
    } finally {
      servers.forEach(DuckDbFlightSqlServer::close);
    }
  }

  private DuckDbFlightSqlServer start(DuckDbFlightSqlServerBuilder builder) throws Exception {
    recorder = new CallRecorder();
    DuckDbFlightSqlServer server =
        builder
            .lineitemRows(0)
            .batchRows(100)
            .middleware(CallRecorder.KEY, recorder)
            .actionObserver(recorder::actionStarted)
            .start();
    servers.add(server);
    server.execute("CREATE TABLE numbers AS SELECT range AS id FROM range(" + ROWS + ")");
    return server;
  }

  private static DataFrameReader read(DuckDbFlightSqlServer server) {
    return spark
        .session()
        .read()
        .format("flightsql")
        .option("uri", server.uri())
        .option("query", QUERY);
  }

  private long calls(String method) {
    return recorder.calls().stream().map(RecordedCall::method).filter(method::equals).count();
  }

  /** The sum 0 + 1 + ... + (ROWS - 1), which every complete read of the table adds up to. */
  private static final long SUM = (long) ROWS * (ROWS - 1) / 2;

  private static long sum(List<Row> rows) {
    return rows.stream().mapToLong(r -> r.getLong(0)).sum();
  }

  @Test
  void aSlowQueryIsPolledWithProgressLoggedUntilItIsPlanned() throws Exception {
    DuckDbFlightSqlServer server =
        start(DuckDbFlightSqlServer.builder().planningDelay(Duration.ofSeconds(11)));
    List<Row> rows;
    String log;
    try (LogCapture logs = LogCapture.start("io.grpc.netty.NettyServerHandler")) {
      rows = read(server).load().collectAsList();
      log = logs.text();
    }
    assertThat(rows).hasSize(ROWS);
    assertThat(sum(rows)).isEqualTo(SUM);
    assertThat(calls("PollFlightInfo")).as("polls").isGreaterThan(2);
    assertThat(log)
        .containsPattern(
            "Query on grpc://127\\.0\\.0\\.1:\\d+ still being planned after 1\\d\\.\\d s \\(server"
                + " progress \\d+%\\)")
        .containsPattern("Query on grpc://127\\.0\\.0\\.1:\\d+ planned in 1\\d\\.\\d s");
  }

  @Test
  void aServerWithoutPollFlightInfoIsAskedOncePerJvm() throws Exception {
    DuckDbFlightSqlServer server = start(DuckDbFlightSqlServer.builder().pollFlightInfo(false));
    assertThat(sum(read(server).load().collectAsList())).isEqualTo(SUM);
    assertThat(sum(read(server).load().collectAsList())).isEqualTo(SUM);
    assertThat(calls("PollFlightInfo")).isEqualTo(1);
    assertThat(calls("GetFlightInfo")).isGreaterThanOrEqualTo(2);
  }

  @Test
  void queryTimeoutCancelsAPolledQueryOnTheServer() throws Exception {
    DuckDbFlightSqlServer server =
        start(DuckDbFlightSqlServer.builder().planningDelay(Duration.ofMinutes(5)));
    assertThatThrownBy(() -> read(server).option("queryTimeout", "1s").load().collectAsList())
        .satisfies(
            e ->
                assertThat(messages(e))
                    .contains(
                        "Planning failed for grpc://127.0.0.1:",
                        "TIMED_OUT: the query was not planned within option 'queryTimeout' (1000"
                            + " ms); CancelFlightInfo answered CANCELLED. Raise 'queryTimeout', or"
                            + " leave it unset for no limit. Query: SELECT id FROM numbers"));
    assertThat(server.cancelledQueries()).isEqualTo(1);
    assertThat(calls("DoAction:CancelFlightInfo")).isEqualTo(1);
  }

  @Test
  void queryTimeoutCancelsGetFlightInfoWhereTheServerDoesNotPoll() throws Exception {
    DuckDbFlightSqlServer server =
        start(
            DuckDbFlightSqlServer.builder()
                .pollFlightInfo(false)
                .planningDelay(Duration.ofMinutes(5)));
    assertThatThrownBy(() -> read(server).option("queryTimeout", "1s").load().collectAsList())
        .satisfies(
            e ->
                assertThat(messages(e))
                    .contains(
                        "TIMED_OUT: the query was not planned within option 'queryTimeout' (1000"
                            + " ms); GetFlightInfo passed its deadline and was cancelled."));
    assertThat(calls("DoAction:CancelFlightInfo")).isZero();
  }

  @Test
  void cancellingTheJobGroupWhilePlanningCancelsTheQueryOnTheServer() throws Exception {
    DuckDbFlightSqlServer server =
        start(DuckDbFlightSqlServer.builder().planningDelay(Duration.ofMinutes(5)));
    ExecutorService pool = Executors.newSingleThreadExecutor();
    try {
      Future<List<Row>> job =
          pool.submit(
              () -> {
                spark
                    .session()
                    .sparkContext()
                    .setJobGroup("long-query", "a query that plans for minutes", true);
                try {
                  return read(server).load().collectAsList();
                } finally {
                  spark.session().sparkContext().clearJobGroup();
                }
              });
      waitFor(() -> calls("PollFlightInfo") >= 2, "the query being polled");
      spark.session().sparkContext().cancelJobGroupAndFutureJobs("long-query");
      assertThatThrownBy(() -> job.get(30, TimeUnit.SECONDS))
          .satisfies(
              e ->
                  assertThat(messages(e))
                      .contains(
                          "CANCELLED: planning was cancelled after",
                          "the Spark job group 'long-query' was cancelled; CancelFlightInfo"
                              + " answered CANCELLED"));
    } finally {
      pool.shutdownNow();
    }
    assertThat(server.cancelledQueries()).isEqualTo(1);
    assertThat(calls("DoAction:CancelFlightInfo")).isEqualTo(1);
  }

  @Test
  void interruptingThePlanningThreadCancelsTheQueryOnTheServer() throws Exception {
    DuckDbFlightSqlServer server =
        start(DuckDbFlightSqlServer.builder().planningDelay(Duration.ofMinutes(5)));
    AtomicReference<Thread> reader = new AtomicReference<>();
    ExecutorService pool =
        Executors.newSingleThreadExecutor(
            task -> {
              Thread thread = new Thread(task, "long-query-reader");
              reader.set(thread);
              return thread;
            });
    try {
      AtomicReference<Throwable> failure = new AtomicReference<>();
      Future<List<Row>> job =
          pool.submit(
              () -> {
                try {
                  return read(server).load().collectAsList();
                } catch (Throwable t) {
                  failure.set(t);
                  throw t;
                }
              });
      waitFor(() -> calls("PollFlightInfo") >= 2, "the query being polled");
      job.cancel(true);
      waitFor(
          () -> server.cancelledQueries() == 1,
          () ->
              "CancelFlightInfo on the server; the read "
                  + (failure.get() != null
                      ? "failed: " + trace(failure.get())
                      : job.isDone() ? "ended without failing" : "has not ended")
                  + "; the interrupted reader is at\n"
                  + stack(reader));
    } finally {
      pool.shutdownNow();
    }
    assertThat(calls("DoAction:CancelFlightInfo")).isEqualTo(1);
  }

  @Test
  void endpointsFarFromTheirExpirationAreReadAsPlanned() throws Exception {
    DuckDbFlightSqlServer server =
        start(
            DuckDbFlightSqlServer.builder()
                .endpoints(2)
                .endpointExpiration(Duration.ofMinutes(10)));
    assertThat(sum(read(server).load().collectAsList())).isEqualTo(SUM);
    assertThat(calls("DoAction:RenewFlightEndpoint")).isZero();
  }

  @Test
  void expiredEndpointsAreRenewedBeforeTheyAreRead() throws Exception {
    DuckDbFlightSqlServer server =
        start(
            DuckDbFlightSqlServer.builder().endpoints(2).endpointExpiration(Duration.ofSeconds(1)));
    JavaRDD<Row> planned = read(server).load().javaRDD();
    long plans = recorder.calls().size();
    Thread.sleep(1500);
    assertThat(sum(planned.collect())).isEqualTo(SUM);
    assertThat(recorder.calls().subList(0, (int) plans))
        .as("planned before the wait")
        .extracting(RecordedCall::method)
        .contains("PollFlightInfo");
    assertThat(calls("DoAction:RenewFlightEndpoint")).isEqualTo(2);
  }

  @Test
  void withoutRenewalAnExpiredSingleEndpointQueryRunsAgain() throws Exception {
    DuckDbFlightSqlServer server =
        start(
            DuckDbFlightSqlServer.builder()
                .endpoints(1)
                .endpointExpiration(Duration.ofSeconds(1))
                .renewEndpoints(false));
    JavaRDD<Row> planned = read(server).load().javaRDD();
    Thread.sleep(1500);
    String log;
    List<Row> rows;
    try (LogCapture logs = LogCapture.start("io.grpc.netty.NettyServerHandler")) {
      rows = planned.collect();
      log = logs.text();
    }
    assertThat(sum(rows)).isEqualTo(SUM);
    assertThat(rows).hasSize(ROWS);
    assertThat(calls("DoAction:RenewFlightEndpoint")).isEqualTo(1);
    assertThat(log)
        .contains(
            "endpoint expired at",
            "the server does not renew endpoints (RenewFlightEndpoint is UNIMPLEMENTED); running"
                + " the query again");
  }

  @Test
  void withoutRenewalAnExpiredEndpointOfSeveralFailsSayingWhatExpired() throws Exception {
    DuckDbFlightSqlServer server =
        start(
            DuckDbFlightSqlServer.builder()
                .endpoints(2)
                .endpointExpiration(Duration.ofSeconds(1))
                .renewEndpoints(false));
    JavaRDD<Row> planned = read(server).load().javaRDD();
    Thread.sleep(1500);
    assertThatThrownBy(planned::collect)
        .satisfies(
            e ->
                assertThat(messages(e))
                    .containsPattern(
                        "DoGet failed for grpc://127\\.0\\.0\\.1:\\d+: NOT_FOUND: the endpoint of"
                            + " partition \\d \\(one of 2\\) expired at \\S+Z, \\d\\.\\d s after"
                            + " planning, and is read \\d+\\.\\d s after planning; the server does"
                            + " not renew endpoints \\(RenewFlightEndpoint is UNIMPLEMENTED\\), and"
                            + " a query with several endpoints cannot be run again for one of"
                            + " them\\."));
  }

  /**
   * A query refused by a server already seen to poll fails with PollFlightInfo's error and the
   * server's message, and is not run a second time as GetFlightInfo.
   */
  @Test
  void aQueryRefusedByAServerThatPollsIsRunOnce() throws Exception {
    DuckDbFlightSqlServer server = start(DuckDbFlightSqlServer.builder());
    assertThat(read(server).load().collectAsList()).hasSize(ROWS);
    Dataset<Row> refused =
        spark
            .session()
            .read()
            .format("flightsql")
            .option("uri", server.uri())
            .option("dbtable", "numbers")
            .option("predicates", "[\"id < 3\", \"no_such_column = 1\"]")
            .load();
    recorder.clear();
    assertThatThrownBy(refused::collectAsList)
        .satisfies(
            e ->
                assertThat(messages(e))
                    .contains("PollFlightInfo failed for grpc://", "no_such_column")
                    .doesNotContain("GetFlightInfo failed"));
    assertThat(calls("PollFlightInfo")).isGreaterThanOrEqualTo(2);
  }

  /** Waits, up to 30 s, for something the test needs to have happened. */
  private static void waitFor(BooleanSupplier condition, String what) throws InterruptedException {
    waitFor(condition, () -> what);
  }

  private static void waitFor(BooleanSupplier condition, Supplier<String> what)
      throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("Timed out waiting for " + what.get());
      }
      Thread.sleep(20);
    }
  }

  private static String trace(Throwable t) {
    StringWriter out = new StringWriter();
    t.printStackTrace(new PrintWriter(out));
    return out.toString();
  }

  /** Where a thread is now, one frame a line. */
  private static String stack(AtomicReference<Thread> thread) {
    Thread t = thread.get();
    if (t == null) {
      return "(not started)";
    }
    StringBuilder out = new StringBuilder(t.getState() + ", interrupted " + t.isInterrupted());
    for (StackTraceElement frame : t.getStackTrace()) {
      out.append("\n  at ").append(frame);
    }
    return out.toString();
  }

  /** The messages of an exception and its causes, one a line. */
  private static String messages(Throwable e) {
    StringBuilder out = new StringBuilder();
    for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
      out.append(t.getMessage()).append('\n');
    }
    return out.toString();
  }
}
