package io.flightsql.spark.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.flightsql.spark.server.CallRecorder;
import io.flightsql.spark.server.DuckDbFlightSqlServer;
import io.flightsql.spark.server.DuckDbFlightSqlServerBuilder;
import io.flightsql.spark.servers.ExternalCommand;
import io.flightsql.spark.servers.FreePorts;
import io.flightsql.spark.servers.GoSqliteServer;
import io.flightsql.spark.servers.LoopbackProcess;
import java.net.URI;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.apache.spark.sql.DataFrameReader;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Links that go silent, through Toxiproxy, between Spark (the shaded jar) and real servers: a
 * {@code timeout} toxic with timeout 0 in both directions drops every byte and keeps the connection
 * open, as a network partition or a stuck proxy does, while planning (a polling server and a
 * GetFlightInfo-only one), schema inference, a metadata call and a write's commit; and a server
 * killed behind the proxy, which leaves the client's connection half-open. Each case asserts that
 * the wait ended, with an error naming the option that bounded it, and prints what the user saw and
 * after how long. The bounds are set small to fire quickly ({@code streamIdleTimeout=3s}, {@code
 * keepAliveTime=10s}, {@code connectTimeout=5s}); docs/operations.md gives the defaults. A query
 * planned for longer than those, on a healthy link, still completes under the defaults.
 */
@ExtendWith(ArrowLeakCheckExtension.class)
class BlackHoleIT {
  @RegisterExtension
  @Order(1)
  static final ToxiproxyExtension TOXIPROXY = new ToxiproxyExtension();

  @RegisterExtension
  @Order(2)
  static final GoSqliteServerExtension SQLITE = new GoSqliteServerExtension();

  @RegisterExtension
  @Order(3)
  static final SparkSessionExtension spark = SparkSessionExtension.local("local[2,4]");

  private static final int ROWS = 1000;

  /** Far above every bound here: a case that reaches it has waited without one. */
  private static final long GENEROUS_SECONDS = 240;

  private static final AtomicInteger PROXIES = new AtomicInteger();

  private String proxy;

  @AfterEach
  void heal() {
    TOXIPROXY.reset();
  }

  /** A proxy of its own to {@code port}: channels are per address, so none is shared. */
  private String proxyTo(int port) {
    proxy = "hole" + PROXIES.incrementAndGet();
    return "grpc://" + FreePorts.LOOPBACK + ":" + TOXIPROXY.createProxy(proxy, port);
  }

  /** From now on nothing crosses the proxy either way, and its connections stay open. */
  private void blackHole() {
    TOXIPROXY.addToxic(proxy, "hole-down", "timeout", "downstream", Map.of("timeout", 0L));
    TOXIPROXY.addToxic(proxy, "hole-up", "timeout", "upstream", Map.of("timeout", 0L));
  }

  /**
   * arrow-go SQLite's {@code intTable}, read with its schema given: the read plans the query
   * itself, and so learns which planning calls the server has.
   */
  private static List<Row> sqliteIntTable(DataFrameReader reader) {
    return reader
        .schema("id BIGINT, keyName STRING, value BIGINT, foreignId BIGINT")
        .option("dbtable", "intTable")
        .load()
        .collectAsList();
  }

  private static DataFrameReader read(String uri) {
    return spark
        .session()
        .read()
        .format("flightsql")
        .option("uri", uri)
        .option("streamIdleTimeout", "3s")
        .option("keepAliveTime", "10s")
        .option("connectTimeout", "5s");
  }

  private static DuckDbFlightSqlServerBuilder duckDb() {
    return DuckDbFlightSqlServer.builder().host(FreePorts.LOOPBACK).lineitemRows(0);
  }

  private static DuckDbFlightSqlServer withNumbers(DuckDbFlightSqlServer server) {
    server.execute("CREATE TABLE numbers AS SELECT range AS id FROM range(" + ROWS + ")");
    return server;
  }

  /**
   * Runs {@code action}, which must fail, and returns the messages of its failure and causes; the
   * wait is bounded far above what any case needs, and reported.
   */
  private static String failureOf(String fault, Supplier<?> action, long sinceNanos)
      throws Exception {
    CompletableFuture<?> run = CompletableFuture.supplyAsync(action);
    return failureOf(fault, run, sinceNanos);
  }

  private static String failureOf(String fault, CompletableFuture<?> run, long sinceNanos)
      throws Exception {
    try {
      run.get(GENEROUS_SECONDS, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      StringBuilder messages = new StringBuilder();
      for (Throwable t = e.getCause(); t != null; t = t.getCause()) {
        messages.append(t.getMessage()).append('\n');
      }
      String seen = messages.toString();
      System.out.printf(
          "BLACK HOLE %-45s | %6d ms | %s%n",
          fault,
          TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - sinceNanos),
          seen.substring(0, Math.min(500, seen.length())).replace('\n', ' '));
      return seen;
    }
    throw new AssertionError(fault + ": the action succeeded through a black hole");
  }

  private static void awaitCalls(CallRecorder calls, String method, int count)
      throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(GENEROUS_SECONDS);
    while (calls.calls().stream().filter(c -> c.method().equals(method)).count() < count
        && System.nanoTime() < deadline) {
      TimeUnit.MILLISECONDS.sleep(20);
    }
  }

  @Test
  void whilePlanningOnAPollingServerThePollFailsNamingStreamIdleTimeout() throws Exception {
    CallRecorder calls = new CallRecorder();
    try (DuckDbFlightSqlServer server =
        withNumbers(
            duckDb()
                .planningDelay(Duration.ofMinutes(5))
                .middleware(CallRecorder.KEY, calls)
                .start())) {
      String uri = proxyTo(server.port());
      CompletableFuture<List<Row>> planned =
          CompletableFuture.supplyAsync(
              () -> read(uri).option("query", "SELECT id FROM numbers").load().collectAsList());
      awaitCalls(calls, "PollFlightInfo", 2);
      long start = System.nanoTime();
      blackHole();
      String seen = failureOf("planning, polling server (DuckDB)", planned, start);
      assertThat(seen)
          .contains(
              "[flightsql] PollFlightInfo failed for "
                  + uri
                  + ": TIMED_OUT: no answer within option 'streamIdleTimeout' (3 s)");
    }
  }

  @Test
  void whilePlanningOnAGetFlightInfoServerKeepaliveEndsTheCallNamingKeepAliveTime()
      throws Exception {
    String uri = proxyTo(URI.create(SQLITE.uri()).getPort());
    // Learns the server (with the schema given, the read plans the query itself and learns that
    // the server has no PollFlightInfo) and opens the connection the black hole then swallows.
    assertThat(sqliteIntTable(read(uri))).hasSize(4);
    long start = System.nanoTime();
    blackHole();
    String seen =
        failureOf(
            "planning, GetFlightInfo-only server (SQLite)", () -> sqliteIntTable(read(uri)), start);
    assertThat(seen)
        .contains("[flightsql] GetFlightInfo failed for " + uri + ": UNAVAILABLE: ")
        .contains("the first try failed with UNAVAILABLE: Keepalive failed")
        .contains("went silent for option 'keepAliveTime'")
        .contains("no connection within option 'connectTimeout' (5 s)");
  }

  @Test
  void duringSchemaInferenceGetSchemaFailsNamingStreamIdleTimeout() throws Exception {
    try (DuckDbFlightSqlServer server = withNumbers(duckDb().start())) {
      String uri = proxyTo(server.port());
      assertThat(read(uri).option("dbtable", "numbers").load().count()).isEqualTo(ROWS);
      long start = System.nanoTime();
      blackHole();
      String seen =
          failureOf(
              "schema inference (DuckDB)",
              () -> read(uri).option("query", "SELECT id * 2 AS twice FROM numbers").load(),
              start);
      assertThat(seen)
          .contains(
              "[flightsql] GetSchema failed for "
                  + uri
                  + ": TIMED_OUT: no answer within option 'streamIdleTimeout' (3 s)");
    }
  }

  @Test
  void duringAMetadataCallOfTheCatalogTheCallFailsNamingStreamIdleTimeout() throws Exception {
    try (DuckDbFlightSqlServer server = withNumbers(duckDb().start())) {
      String uri = proxyTo(server.port());
      CatalogStatements catalog = new CatalogStatements(spark.session(), proxy, uri);
      spark.session().conf().set("spark.sql.catalog." + proxy + ".streamIdleTimeout", "3s");
      spark.session().conf().set("spark.sql.catalog." + proxy + ".keepAliveTime", "10s");
      assertThat(catalog.rows("SHOW TABLES IN " + proxy + ".memory.main"))
          .contains("memory.main|numbers|false");
      long start = System.nanoTime();
      blackHole();
      String seen =
          failureOf(
              "metadata call (catalog, DuckDB)",
              () -> catalog.rows("SHOW TABLES IN " + proxy + ".memory.main"),
              start);
      assertThat(seen)
          .containsPattern(
              "\\[flightsql\\] (GetFlightInfo\\()?Get\\w+\\)? failed for "
                  + uri.replace(".", "\\.")
                  + ": TIMED_OUT: no answer within option 'streamIdleTimeout' \\(3 s\\)");
    }
  }

  @Test
  void duringAWritesCommitTheCommitFailsNamingStreamIdleTimeoutAndItsUnknownOutcome()
      throws Exception {
    CountDownLatch commitReached = new CountDownLatch(1);
    CountDownLatch holeMade = new CountDownLatch(1);
    AtomicBoolean first = new AtomicBoolean(true);
    List<String> taskFailures = new CopyOnWriteArrayList<>();
    org.apache.spark.scheduler.SparkListener listener =
        new org.apache.spark.scheduler.SparkListener() {
          @Override
          public void onTaskEnd(org.apache.spark.scheduler.SparkListenerTaskEnd end) {
            if (end.reason() instanceof org.apache.spark.ExceptionFailure failure) {
              taskFailures.add(failure.toErrorString());
            }
          }
        };
    try (DuckDbFlightSqlServer server =
        duckDb()
            .actionObserver(
                (context, action) -> {
                  // The first commit waits, on the server, until its answer has nowhere to go.
                  if (action.equals("EndTransaction") && first.compareAndSet(true, false)) {
                    commitReached.countDown();
                    try {
                      holeMade.await(GENEROUS_SECONDS, TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                      Thread.currentThread().interrupt();
                    }
                  }
                })
            .start()) {
      server.execute("CREATE TABLE w_commit (id BIGINT, s VARCHAR)");
      String uri = proxyTo(server.port());
      spark.session().sparkContext().addSparkListener(listener);
      CompletableFuture<Void> write =
          CompletableFuture.runAsync(
              () ->
                  spark
                      .session()
                      .range(0, ROWS, 1, 1)
                      .selectExpr("id", "concat('row-', CAST(id AS STRING)) AS s")
                      .write()
                      .format("flightsql")
                      .option("uri", uri)
                      .option("dbtable", "w_commit")
                      .option("atomic", "true")
                      .option("streamIdleTimeout", "3s")
                      .option("keepAliveTime", "10s")
                      .option("connectTimeout", "5s")
                      .mode("append")
                      .save());
      assertThat(commitReached.await(GENEROUS_SECONDS, TimeUnit.SECONDS))
          .as("a commit reached the server")
          .isTrue();
      long start = System.nanoTime();
      blackHole();
      holeMade.countDown();
      String seen = failureOf("a write's commit (DuckDB, atomic)", write, start);
      TOXIPROXY.reset();
      // The tasks filled their staging tables; the commit that failed is the job's, on the driver.
      assertThat(seen)
          .contains("[flightsql] EndTransaction(COMMIT) failed for " + uri)
          .contains("TIMED_OUT: no answer within option 'streamIdleTimeout' (3 s)");
      assertThat(taskFailures).as("task failures").isEmpty();
      // The server got the COMMIT before the link went silent: it may have carried it out.
      assertThat(seen)
          .contains(
              "The server's answer to the job's COMMIT was lost, so whether the server carried it"
                  + " out is unknown: \"memory\".\"main\".\"w_commit\" has either all of the job's rows or none of them."
                  + " Read it before running the job again");
      assertThat(rowsOf(server, "w_commit")).as("rows in the target").isIn(0L, (long) ROWS);
    } finally {
      spark.session().sparkContext().removeSparkListener(listener);
    }
  }

  private static long rowsOf(DuckDbFlightSqlServer server, String table) throws Exception {
    try (Connection connection = server.newConnection();
        Statement statement = connection.createStatement();
        ResultSet rows = statement.executeQuery("SELECT count(*) FROM " + table)) {
      rows.next();
      return rows.getLong(1);
    }
  }

  @Test
  void afterTheServerIsKilledBehindTheProxyKeepaliveFindsTheHalfOpenConnection() throws Exception {
    Path log = TestPaths.buildDir().resolve("sqlite-killed.log");
    LoopbackProcess sqlite =
        LoopbackProcess.start(
            "sqlite_flightsql_server (to be killed)",
            GoSqliteServer.binary(),
            log,
            3,
            Duration.ofSeconds(30));
    try {
      String uri = proxyTo(sqlite.port());
      // With the schema given, the read plans the query itself and learns the server's calls.
      assertThat(sqliteIntTable(read(uri))).hasSize(4);
      // The proxy keeps the client's connection open and silent, as a host that vanished
      // without a reset does: what the client sends is dropped, and the end of the server's
      // side is held back (a timeout toxic would pass it on).
      TOXIPROXY.addToxic(proxy, "drop-up", "timeout", "upstream", Map.of("timeout", 0L));
      TOXIPROXY.addToxic(
          proxy, "hold-close", "slow_close", "downstream", Map.of("delay", 600_000L));
      sqlite.process().destroyForcibly().waitFor(30, TimeUnit.SECONDS);
      long start = System.nanoTime();
      String seen =
          failureOf(
              "half-open after a server kill (SQLite)",
              () -> sqliteIntTable(read(uri).option("streamIdleTimeout", "2m")),
              start);
      assertThat(seen)
          .contains("[flightsql] GetFlightInfo failed for " + uri + ": UNAVAILABLE: ")
          .contains("the first try failed with UNAVAILABLE: Keepalive failed")
          .contains("went silent for option 'keepAliveTime'");
    } finally {
      ExternalCommand.destroyTree(sqlite.process().toHandle());
    }
  }

  @Test
  void aQueryPlannedForLongerThanStreamIdleTimeoutCompletesWithTheDefaultKeepalive()
      throws Exception {
    try (DuckDbFlightSqlServer server =
        withNumbers(duckDb().pollFlightInfo(false).planningDelay(Duration.ofSeconds(20)).start())) {
      String uri = proxyTo(server.port());
      long start = System.nanoTime();
      List<Row> rows =
          spark
              .session()
              .read()
              .format("flightsql")
              .option("uri", uri)
              .option("query", "SELECT id FROM numbers")
              .option("streamIdleTimeout", "3s")
              .load()
              .collectAsList();
      System.out.printf(
          "BLACK HOLE %-45s | %6d ms | %s%n",
          "none: planned for 20 s, streamIdleTimeout=3s",
          TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start),
          rows.size() + " rows");
      assertThat(rows).hasSize(ROWS);
      assertThat(rows.stream().mapToLong(r -> r.getLong(0)).sum())
          .isEqualTo((long) ROWS * (ROWS - 1) / 2);
    }
  }
}
