package io.flightsql.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.flightsql.spark.server.DuckDbFlightSqlServer;
import io.flightsql.spark.testing.ArrowLeakCheckExtension;
import io.flightsql.spark.testing.SparkSessionExtension;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.sql.DataFrameReader;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A server that goes away and comes back on the same port, as a restarted server does: planning
 * calls are retried on UNAVAILABLE (option {@code maxRetries}), and a partition whose DoGet finds
 * the server gone before any row reached Spark is read once more in the same task. Spark runs
 * {@code local[2]}, which never retries a task, so what is retried here is the connector's doing.
 */
@ExtendWith(ArrowLeakCheckExtension.class)
class FlightSqlRestartTest {
  private static final int ROWS = 2000;

  @TempDir static Path dir;

  private static Path data;

  @RegisterExtension static final SparkSessionExtension spark = SparkSessionExtension.local();

  private DuckDbFlightSqlServer server;
  private int port;

  @BeforeAll
  static void data() throws IOException {
    data = dir.resolve("t.sql");
    Files.writeString(data, "CREATE TABLE t AS SELECT i AS id FROM range(" + ROWS + ") r(i);\n");
  }

  @BeforeEach
  void start() throws IOException {
    server = start(0);
    port = server.port();
  }

  @AfterEach
  void stop() {
    if (server != null) {
      server.close();
    }
  }

  private static DuckDbFlightSqlServer start(int port) throws IOException {
    return DuckDbFlightSqlServer.builder()
        .port(port)
        .lineitemRows(0)
        .endpoints(2)
        .batchRows(256)
        .data(data)
        .start();
  }

  /** Stops the server now and starts it again on the same port after {@code millis}. */
  private CompletableFuture<DuckDbFlightSqlServer> restartAfter(long millis) {
    server.close();
    server = null;
    return CompletableFuture.supplyAsync(
        () -> {
          try {
            TimeUnit.MILLISECONDS.sleep(millis);
            return start(port);
          } catch (IOException | InterruptedException e) {
            throw new IllegalStateException(e);
          }
        });
  }

  private DataFrameReader read(String uri) {
    return spark.session().read().format("flightsql").option("uri", uri).option("dbtable", "t");
  }

  private static void assertExact(List<Row> rows) {
    assertThat(rows).hasSize(ROWS);
    assertThat(rows.stream().mapToLong(r -> r.getLong(0)).sum())
        .isEqualTo((long) ROWS * (ROWS - 1) / 2);
  }

  @Test
  void planningWaitsForARestartingServer() throws Exception {
    String uri = server.uri();
    CompletableFuture<DuckDbFlightSqlServer> restarted = restartAfter(300);
    long start = System.nanoTime();
    List<Row> rows = read(uri).load().collectAsList();
    server = restarted.get(30, TimeUnit.SECONDS);
    System.out.printf(
        "Server down for 300 ms at planning: exact result after %d ms%n",
        TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
    assertExact(rows);
  }

  @Test
  void withoutRetriesPlanningFailsAtOnceWithUnavailable() {
    String uri = server.uri();
    server.close();
    server = null;
    assertThatThrownBy(() -> read(uri).option("maxRetries", "0").load())
        .hasMessageContaining("failed for " + uri)
        .hasMessageContaining("UNAVAILABLE");
  }

  @Test
  void aPartitionIsReadOnceMoreWhenTheServerRestartsBetweenPlanningAndReading() throws Exception {
    JavaRDD<Row> planned = read(server.uri()).load().javaRDD();
    // javaRDD() has planned the partitions (GetFlightInfo); now the server goes away.
    CompletableFuture<DuckDbFlightSqlServer> restarted = restartAfter(300);
    long start = System.nanoTime();
    List<Row> rows = planned.collect();
    server = restarted.get(30, TimeUnit.SECONDS);
    System.out.printf(
        "Server restarted between planning and reading: exact result after %d ms%n",
        TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
    assertExact(rows);
  }

  /**
   * A call that failed to connect leaves this JVM's channel in gRPC's reconnect back-off (up to two
   * minutes, every call failing at once meanwhile). A server started afterwards on that port is
   * reachable at once, even by reads that retry nothing.
   */
  @Test
  void aServerBackOnThePortIsReachableAtOnceWithoutRetries() throws Exception {
    String uri = server.uri();
    assertExact(read(uri).option("maxRetries", "0").load().collectAsList());
    server.close();
    server = null;
    for (int i = 0; i < 3; i++) {
      // Each refused connection doubles the back-off: 1 s, then about 1.6 s, then 2.6 s.
      assertThatThrownBy(() -> read(uri).option("maxRetries", "0").load())
          .hasMessageContaining("UNAVAILABLE");
    }
    server = start(port);
    long start = System.nanoTime();
    assertExact(read(uri).option("maxRetries", "0").load().collectAsList());
    System.out.printf(
        "Server back on the port after a back-off: read without retries in %d ms%n",
        TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
  }
}
