package io.flightsql.spark.it;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.count;
import static org.apache.spark.sql.functions.countDistinct;
import static org.apache.spark.sql.functions.length;
import static org.apache.spark.sql.functions.sum;
import static org.assertj.core.api.Assertions.assertThat;

import io.flightsql.spark.client.transport.Allocators;
import io.flightsql.spark.server.CallRecorder;
import io.flightsql.spark.server.DuckDbFlightSqlServer;
import io.flightsql.spark.servers.FreePorts;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.sql.DataFrameReader;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Network faults between Spark (the shaded jar) and the embedded DuckDB server, injected by
 * Toxiproxy: resets, stalls, latency and bandwidth limits, a server stopped and restarted, resets
 * during writes, and 64 scans at once. Each case asserts what the user gets (the rows, or the
 * error's text), that no Arrow memory is left, and prints what the user saw and how long it took.
 *
 * <p>Spark runs {@code local[2,4]}: two cores, and a failed task tried up to four times, as on a
 * cluster. The server's endpoints have no location, so partitions are read through the proxy too.
 */
@ExtendWith(ArrowLeakCheckExtension.class)
class ToxiproxyIT {
  @RegisterExtension
  @Order(1)
  static final ToxiproxyExtension TOXIPROXY = new ToxiproxyExtension();

  @RegisterExtension
  @Order(2)
  static final SparkSessionExtension spark = SparkSessionExtension.local("local[2,4]");

  private static final int ROWS = 50_000;
  private static final long ID_SUM = (long) ROWS * (ROWS - 1) / 2;
  private static final int STALL_ROWS = 20_000;

  /**
   * How long reads here may bring nothing. Above what a bandwidth limit of 300 KB/s makes a stream
   * wait for its first message when the other partition's stream, on the same connection, has
   * filled the proxy's pipe with up to a gRPC flow-control window (1 MiB) of its own data.
   */
  private static final String IDLE_TIMEOUT = "5s";

  /** The stall case's: short, so that its four task attempts are quick. */
  private static final String STALL_TIMEOUT = "2s";

  private static Path data;
  private static DuckDbFlightSqlServer server;
  private static int serverPort;
  private static final AtomicInteger PROXIES = new AtomicInteger();
  private static final CallRecorder CALLS = new CallRecorder();

  /** This test's proxy and its URI. */
  private String proxy;

  private String uri;

  @BeforeAll
  static void start() throws Exception {
    data = TestPaths.buildDir().resolve("toxiproxy-it.sql");
    Files.writeString(
        data,
        "CREATE TABLE t AS SELECT i AS id, 'row-' || i AS s FROM range("
            + ROWS
            + ") r(i);\n"
            + "CREATE TABLE t_small AS SELECT * FROM t WHERE id < 5000;\n"
            + "CREATE TABLE w_atomic (id BIGINT, s VARCHAR);\n"
            + "CREATE TABLE w_plain (id BIGINT, s VARCHAR);\n"
            + "CREATE TABLE w_stall (id BIGINT, s VARCHAR);\n");
    server = startServer(0);
    serverPort = server.port();
    // The first job loads much of Spark; the figures below are of a warm application.
    spark
        .session()
        .read()
        .format("flightsql")
        .option("uri", server.uri())
        .option("dbtable", "t_small")
        .load()
        .collectAsList();
  }

  @AfterAll
  static void stop() {
    if (server != null) {
      server.close();
    }
  }

  private static DuckDbFlightSqlServer startServer(int port) throws IOException {
    return DuckDbFlightSqlServer.builder()
        .host(FreePorts.LOOPBACK)
        .port(port)
        .lineitemRows(0)
        .endpoints(2)
        .batchRows(2048)
        .data(data)
        .middleware(CallRecorder.KEY, CALLS)
        .start();
  }

  /** A proxy of its own for each test: gRPC channels are per address, so none is shared. */
  @BeforeEach
  void proxy() {
    proxy = "flight" + PROXIES.incrementAndGet();
    uri = "grpc://" + FreePorts.LOOPBACK + ":" + TOXIPROXY.createProxy(proxy, serverPort);
  }

  @AfterEach
  void heal() {
    TOXIPROXY.reset();
  }

  private DataFrameReader read() {
    return spark
        .session()
        .read()
        .format("flightsql")
        .option("uri", uri)
        .option("dbtable", "t")
        .option("streamIdleTimeout", IDLE_TIMEOUT)
        // Spark reads every row and sums them itself.
        .option("pushDownAggregate", "false");
  }

  /**
   * count, sum(id), count(distinct id), sum(length(s)) of a read of {@code t}, computed by Spark.
   */
  private Row totals(DataFrameReader reader) {
    return reader
        .load()
        .agg(count("*"), sum("id"), countDistinct("id"), sum(length(col("s"))))
        .collectAsList()
        .get(0);
  }

  private static void assertExact(Row totals) {
    assertThat(totals.getLong(0)).as("rows").isEqualTo(ROWS);
    assertThat(totals.getLong(1)).as("sum of ids").isEqualTo(ID_SUM);
    assertThat(totals.getLong(2)).as("distinct ids").isEqualTo(ROWS);
    assertThat(totals.getLong(3)).as("characters of s").isEqualTo(expectedChars());
  }

  private static long expectedChars() {
    long chars = 0;
    for (int i = 0; i < ROWS; i++) {
      chars += 4 + Integer.toString(i).length();
    }
    return chars;
  }

  private static void report(String fault, String userSees, long startNanos) {
    System.out.printf(
        "FAULT %-45s | %6d ms | %s%n",
        fault, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos), userSees);
  }

  private static void sleep(long millis) throws InterruptedException {
    TimeUnit.MILLISECONDS.sleep(millis);
  }

  /** Limits the server-to-client bandwidth, so that a read of {@code t} takes a few seconds. */
  private void slowDown(long kilobytesPerSecond) {
    TOXIPROXY.addToxic(
        proxy, "slow", "bandwidth", "downstream", Map.of("rate", kilobytesPerSecond));
  }

  @Test
  void aResetMidReadGivesTheExactResultAfterTheTaskRetry() throws Exception {
    slowDown(300);
    long start = System.nanoTime();
    CompletableFuture<Row> result = CompletableFuture.supplyAsync(() -> totals(read()));
    sleep(1500);
    TOXIPROXY.addToxic(proxy, "reset", "reset_peer", "downstream", Map.of("timeout", 0L));
    sleep(300);
    TOXIPROXY.removeToxic(proxy, "reset");
    Row totals = result.get(120, TimeUnit.SECONDS);
    report("connection reset mid-read", "exact result (task retried)", start);
    assertExact(totals);
  }

  @Test
  void aStallMidReadFailsTheJobNamingStreamIdleTimeout() throws Exception {
    slowDown(300);
    long start = System.nanoTime();
    CompletableFuture<Row> result =
        CompletableFuture.supplyAsync(
            () -> totals(read().option("streamIdleTimeout", STALL_TIMEOUT)));
    sleep(1500);
    // Stops every byte from the server; the connection stays open.
    TOXIPROXY.addToxic(proxy, "stall", "timeout", "downstream", Map.of("timeout", 0L));
    long stalled = System.nanoTime();
    ExecutionException failure =
        org.junit.jupiter.api.Assertions.assertThrows(
            ExecutionException.class, () -> result.get(120, TimeUnit.SECONDS));
    String message = String.valueOf(failure.getCause().getMessage());
    report(
        "stall mid-read (streamIdleTimeout=" + STALL_TIMEOUT + ", 4 task attempts)",
        "job fails: " + message.substring(0, Math.min(400, message.length())),
        stalled);
    assertThat(message)
        .contains("[flightsql] DoGet failed for " + uri)
        .contains("TIMED_OUT")
        .contains("(option 'streamIdleTimeout')")
        .contains("partition");
    System.out.printf(
        "Stall mid-read: the job failed %d ms after it began%n",
        TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
  }

  @Test
  void latencyAndBandwidthLimitsAreSlowButNotCut() {
    TOXIPROXY.addToxic(proxy, "lag", "latency", "downstream", Map.of("latency", 50L));
    TOXIPROXY.addToxic(proxy, "lag-up", "latency", "upstream", Map.of("latency", 50L));
    slowDown(400);
    long start = System.nanoTime();
    Row totals = totals(read());
    report(
        "latency 50 ms each way + 400 KB/s",
        "exact result, not cut (streamIdleTimeout=" + IDLE_TIMEOUT + ")",
        start);
    assertExact(totals);
  }

  @Test
  void aServerRestartedBetweenPlanningAndReadingIsReadAgain() throws Exception {
    JavaRDD<Row> planned = read().load().javaRDD();
    long start = System.nanoTime();
    CompletableFuture<DuckDbFlightSqlServer> restarted = restart(200);
    List<Row> rows = planned.collect();
    server = restarted.get(60, TimeUnit.SECONDS);
    report("server restarted between planning and reading", "exact result", start);
    assertThat(rows).hasSize(ROWS);
    assertThat(rows.stream().mapToLong(r -> r.getLong(0)).sum()).isEqualTo(ID_SUM);
  }

  @Test
  void aServerStoppedAndRestartedMidReadGivesTheExactResult() throws Exception {
    slowDown(300);
    long start = System.nanoTime();
    CALLS.clear();
    CompletableFuture<Row> result = CompletableFuture.supplyAsync(() -> totals(read()));
    awaitCall("DoGet");
    sleep(500);
    CompletableFuture<DuckDbFlightSqlServer> restarted = restart(0);
    server = restarted.get(60, TimeUnit.SECONDS);
    Row totals = result.get(120, TimeUnit.SECONDS);
    report("server stopped and restarted mid-read", "exact result (tasks retried)", start);
    assertExact(totals);
  }

  /** Waits until the server has a call of {@code method} under way: a read or upload has begun. */
  private static void awaitCall(String method) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (CALLS.calls().stream().noneMatch(c -> c.method().equals(method))
        && System.nanoTime() < deadline) {
      sleep(10);
    }
  }

  /** Stops the server, and starts it again on the same port after {@code millis}. */
  private static CompletableFuture<DuckDbFlightSqlServer> restart(long millis) {
    DuckDbFlightSqlServer old = server;
    return CompletableFuture.supplyAsync(
        () -> {
          try {
            old.close();
            sleep(millis);
            return startServer(serverPort);
          } catch (IOException | InterruptedException e) {
            throw new IllegalStateException(e);
          }
        });
  }

  @Test
  void aResetMidWriteWithAtomicLeavesExactlyTheDataFrameOrNothing() throws Exception {
    String outcome = writeWithAReset("w_atomic", true);
    long[] counts = counts("w_atomic");
    if (outcome.startsWith("failed")) {
      assertThat(counts[0]).as("rows after a failed atomic write").isZero();
    } else {
      assertThat(counts).as("rows, distinct ids, sum of ids").containsExactly(ROWS, ROWS, ID_SUM);
    }
  }

  @Test
  void aResetMidWriteWithoutAtomicAtMostDuplicatesTheRowsOfRetriedTasks() throws Exception {
    String outcome = writeWithAReset("w_plain", false);
    long[] counts = counts("w_plain");
    System.out.printf(
        "Without atomic: %d rows, %d distinct ids, %d duplicates (%s)%n",
        counts[0], counts[1], counts[0] - counts[1], outcome);
    if (!outcome.startsWith("failed")) {
      assertThat(counts[1]).as("distinct ids: no row lost").isEqualTo(ROWS);
    }
    // Each of the 4 tasks has ROWS / 4 rows and at most 4 attempts.
    assertThat(maxCopies("w_plain")).as("copies of one row").isLessThanOrEqualTo(4);
  }

  private String writeWithAReset(String table, boolean atomic) throws Exception {
    TOXIPROXY.addToxic(proxy, "slow-up", "bandwidth", "upstream", Map.of("rate", 300L));
    Dataset<Row> frame =
        spark
            .session()
            .range(0, ROWS, 1, 4)
            .selectExpr("id", "concat('row-', CAST(id AS STRING)) AS s");
    long start = System.nanoTime();
    CompletableFuture<Void> write =
        CompletableFuture.runAsync(
            () ->
                frame
                    .write()
                    .format("flightsql")
                    .option("uri", uri)
                    .option("dbtable", table)
                    .option("atomic", String.valueOf(atomic))
                    .option("streamIdleTimeout", IDLE_TIMEOUT)
                    .option("batchSize", "2048")
                    .mode("append")
                    .save());
    sleep(1500);
    TOXIPROXY.addToxic(proxy, "reset", "reset_peer", "upstream", Map.of("timeout", 0L));
    sleep(300);
    TOXIPROXY.removeToxic(proxy, "reset");
    String outcome;
    try {
      write.get(120, TimeUnit.SECONDS);
      outcome = "succeeded";
    } catch (ExecutionException e) {
      outcome = "failed: " + e.getCause().getMessage();
    }
    long[] counts = counts(table);
    report(
        "reset mid-write, atomic=" + atomic,
        "write "
            + outcome.substring(0, Math.min(300, outcome.length()))
            + "; table has "
            + counts[0]
            + " rows, "
            + counts[1]
            + " distinct",
        start);
    return outcome;
  }

  @Test
  void aStallMidWriteFailsTheTaskWithinStreamIdleTimeoutAndTheRetryWritesItOnce() throws Exception {
    // 20,000 rows at 100 KB/s: uploads of several seconds, for the stall to fall into.
    TOXIPROXY.addToxic(proxy, "slow-up", "bandwidth", "upstream", Map.of("rate", 100L));
    List<String> failures = new java.util.concurrent.CopyOnWriteArrayList<>();
    org.apache.spark.scheduler.SparkListener listener =
        new org.apache.spark.scheduler.SparkListener() {
          @Override
          public void onTaskEnd(org.apache.spark.scheduler.SparkListenerTaskEnd end) {
            if (end.reason() instanceof org.apache.spark.ExceptionFailure failure) {
              failures.add(failure.toErrorString());
            }
          }
        };
    spark.session().sparkContext().addSparkListener(listener);
    CALLS.clear();
    long start = System.nanoTime();
    try {
      CompletableFuture<Void> write =
          CompletableFuture.runAsync(
              () ->
                  spark
                      .session()
                      .range(0, STALL_ROWS, 1, 4)
                      .selectExpr("id", "concat('row-', CAST(id AS STRING)) AS s")
                      .write()
                      .format("flightsql")
                      .option("uri", uri)
                      .option("dbtable", "w_stall")
                      .option("atomic", "true")
                      .option("streamIdleTimeout", STALL_TIMEOUT)
                      .option("batchSize", "2048")
                      .mode("append")
                      .save());
      awaitCall("DoPut");
      sleep(300);
      // Stops every byte to the server; the connection stays open.
      TOXIPROXY.addToxic(proxy, "stall", "timeout", "upstream", Map.of("timeout", 0L));
      long stalled = System.nanoTime();
      long deadline = stalled + TimeUnit.SECONDS.toNanos(60);
      while (failures.isEmpty() && !write.isDone() && System.nanoTime() < deadline) {
        sleep(10);
      }
      long failedAfter = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - stalled);
      TOXIPROXY.removeToxic(proxy, "stall");
      TOXIPROXY.removeToxic(proxy, "slow-up");
      write.get(120, TimeUnit.SECONDS);
      String first = failures.isEmpty() ? "(none)" : failures.get(0);
      report(
          "stall mid-write (streamIdleTimeout=" + STALL_TIMEOUT + "), atomic=true",
          "task failed "
              + failedAfter
              + " ms into the stall: "
              + first.substring(0, Math.min(400, first.length()))
              + "; retry wrote the rows once",
          start);
      // The upload (DoPut) or, when it had sent everything, the transaction's end.
      assertThat(first).contains("failed for " + uri).contains("'streamIdleTimeout'");
      assertThat(counts("w_stall"))
          .containsExactly(STALL_ROWS, STALL_ROWS, (long) STALL_ROWS * (STALL_ROWS - 1) / 2);
    } finally {
      spark.session().sparkContext().removeSparkListener(listener);
    }
  }

  /** count, count(distinct id), sum(id) of a table, asked of DuckDB directly. */
  private static long[] counts(String table) throws Exception {
    try (Connection connection = server.newConnection();
        Statement statement = connection.createStatement();
        ResultSet rows =
            statement.executeQuery(
                "SELECT count(*), count(DISTINCT id), coalesce(sum(id), 0) FROM " + table)) {
      rows.next();
      return new long[] {rows.getLong(1), rows.getLong(2), rows.getLong(3)};
    }
  }

  private static long maxCopies(String table) throws Exception {
    try (Connection connection = server.newConnection();
        Statement statement = connection.createStatement();
        ResultSet rows =
            statement.executeQuery(
                "SELECT coalesce(max(n), 0) FROM (SELECT count(*) AS n FROM "
                    + table
                    + " GROUP BY id)")) {
      rows.next();
      return rows.getLong(1);
    }
  }

  @Test
  void sixtyFourConcurrentScansAreAllExactInBoundedMemory() throws Exception {
    TOXIPROXY.addToxic(proxy, "lag", "latency", "downstream", Map.of("latency", 20L));
    AtomicLong most = new AtomicLong();
    ExecutorService scans = Executors.newFixedThreadPool(64);
    Thread sampler =
        new Thread(
            () -> {
              while (!Thread.currentThread().isInterrupted()) {
                most.accumulateAndGet(Allocators.allocatedBytes(), Math::max);
                try {
                  sleep(5);
                } catch (InterruptedException e) {
                  return;
                }
              }
            });
    long start = System.nanoTime();
    sampler.start();
    try {
      List<Future<Row>> results = new ArrayList<>();
      for (int i = 0; i < 64; i++) {
        results.add(
            scans.submit(
                () ->
                    read()
                        .option("dbtable", "t_small")
                        .load()
                        .agg(count("*"), sum("id"))
                        .collectAsList()
                        .get(0)));
      }
      for (Future<Row> result : results) {
        Row totals = result.get(300, TimeUnit.SECONDS);
        assertThat(totals.getLong(0)).as("rows").isEqualTo(5000);
        assertThat(totals.getLong(1)).as("sum of ids").isEqualTo(5000L * 4999 / 2);
      }
    } finally {
      sampler.interrupt();
      scans.shutdownNow();
    }
    report(
        "64 concurrent scans (latency 20 ms)",
        "all exact; at most " + most.get() / 1024 + " KiB of Arrow memory at once",
        start);
    // Two executor cores read at most two streams at once, with planning beside them.
    assertThat(most.get()).as("most Arrow bytes held at once").isLessThan(256L * 1024 * 1024);
  }
}
