package io.flightsql.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.flightsql.spark.server.DuckDbFlightSqlServer;
import io.flightsql.spark.testing.ArrowLeakCheckExtension;
import io.flightsql.spark.testing.EmbeddedServerExtension;
import io.flightsql.spark.testing.LogCapture;
import io.flightsql.spark.testing.SparkSessionExtension;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.apache.spark.api.java.function.VoidFunction2;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.streaming.DataStreamReader;
import org.apache.spark.sql.streaming.DataStreamWriter;
import org.apache.spark.sql.streaming.StreamingQuery;
import org.apache.spark.sql.streaming.StreamingQueryProgress;
import org.apache.spark.sql.streaming.Trigger;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Structured Streaming from and to the embedded DuckDB server (which has transactions): the
 * source's offsets, admission control, {@code Trigger.AvailableNow}, {@code startingOffsets},
 * {@code offsetLag}, an epoch that Spark runs again, what a query's progress shows, and the errors
 * of options that cannot work. Each query runs with {@code Trigger.AvailableNow}, which ends when
 * it has read what there was when it started: no test waits for time to pass.
 */
@ExtendWith(ArrowLeakCheckExtension.class)
class StreamingTest {
  @RegisterExtension
  @Order(1)
  static final EmbeddedServerExtension duckDb =
      EmbeddedServerExtension.duckDb(server -> server.port(0).lineitemRows(0));

  /** A server that reports no transactions, as Arrow's Derby example does. */
  @RegisterExtension
  @Order(2)
  static final EmbeddedServerExtension withoutTransactions =
      EmbeddedServerExtension.duckDb(
          server -> server.port(0).lineitemRows(0).without("Transactions"));

  @RegisterExtension
  @Order(3)
  static final SparkSessionExtension spark = SparkSessionExtension.local();

  @TempDir Path dir;

  private static DuckDbFlightSqlServer server() {
    return duckDb.server();
  }

  private DataStreamReader source(String uri, String table, String... options) {
    DataStreamReader reader =
        spark
            .session()
            .readStream()
            .format("flightsql")
            .option("uri", uri)
            .option("dbtable", table);
    for (int i = 0; i < options.length; i += 2) {
      reader = reader.option(options[i], options[i + 1]);
    }
    return reader;
  }

  private DataStreamWriter<Row> sink(Dataset<Row> rows, String uri, String table, String name) {
    return rows.writeStream()
        .format("flightsql")
        .option("uri", uri)
        .option("dbtable", table)
        .option("checkpointLocation", dir.resolve(name).toString())
        .trigger(Trigger.AvailableNow());
  }

  /** Runs a query to its end, which {@code Trigger.AvailableNow} reaches by itself. */
  private static StreamingQuery ran(DataStreamWriter<Row> writer) throws Exception {
    StreamingQuery query = writer.start();
    query.awaitTermination();
    return query;
  }

  /** Runs a copy of {@code table} to {@code <table>_copy} by its {@code id}, to its end. */
  private StreamingQuery copied(String table, String... options) throws Exception {
    String[] all = new String[options.length + 2];
    all[0] = "offsetColumn";
    all[1] = "id";
    System.arraycopy(options, 0, all, 2, options.length);
    return ran(sink(source(duckDb.uri(), table, all).load(), duckDb.uri(), table + "_copy", table));
  }

  private static List<Long> rowsPerBatch(StreamingQuery query) {
    List<Long> rows = new ArrayList<>();
    for (StreamingQueryProgress progress : query.recentProgress()) {
      if (progress.numInputRows() > 0) {
        rows.add(progress.numInputRows());
      }
    }
    return rows;
  }

  private static List<String> column(DuckDbFlightSqlServer server, String sql) throws Exception {
    List<String> values = new ArrayList<>();
    try (Connection connection = server.newConnection();
        Statement statement = connection.createStatement();
        ResultSet result = statement.executeQuery(sql)) {
      while (result.next()) {
        values.add(result.getString(1));
      }
    }
    return values;
  }

  /** The copy equals the source, row for row: nothing lost, nothing twice. */
  private static void assertSameRows(String source, String copy) throws Exception {
    String sql = "SELECT CAST(id AS VARCHAR) || ':' || v FROM %s ORDER BY 1";
    List<String> expected = column(server(), String.format(sql, source));
    assertThat(expected).isNotEmpty();
    assertThat(column(server(), String.format(sql, copy))).containsExactlyElementsOf(expected);
  }

  @Test
  void copiesWhatTheSourceGainsBetweenRunsExactly() throws Exception {
    server().execute("CREATE TABLE grows AS SELECT i AS id, 'v' || i AS v FROM range(1, 101) t(i)");
    StreamingQuery first = copied("grows");
    assertThat(rowsPerBatch(first)).containsExactly(100L);
    assertSameRows("grows", "grows_copy");

    server().execute("INSERT INTO grows SELECT i, 'v' || i FROM range(101, 151) t(i)");
    StreamingQuery second = copied("grows");
    assertThat(rowsPerBatch(second)).containsExactly(50L);
    assertSameRows("grows", "grows_copy");
    StreamingQueryProgress last = second.lastProgress();
    assertThat(last.sources()[0].endOffset())
        .isEqualTo("{\"offsetColumn\":\"id\",\"type\":\"bigint\",\"value\":\"150\"}");
    assertThat(last.sources()[0].description())
        .isEqualTo("FlightSqlMicroBatchStream[grows by id (bigint)]");
    assertThat(last.sink().description()).isEqualTo("flightsql:grows_copy");
    // One mark per epoch the query committed.
    assertThat(
            column(
                server(),
                "SELECT epoch_id || ' ' || table_name FROM flightsql_stream_commits"
                    + " WHERE query_id = '"
                    + second.id()
                    + "' ORDER BY epoch_id"))
        .containsExactly("0 grows_copy", "1 grows_copy");
  }

  /**
   * An existing table takes a stream's rows by column name, in its own order, case ignored, as a
   * batch append does; a column it has and the stream lacks stays NULL.
   */
  @Test
  void writesToAnExistingTableByColumnName() throws Exception {
    server().execute("CREATE TABLE named AS SELECT i AS id, 'v' || i AS v FROM range(1, 6) t(i)");
    server().execute("CREATE TABLE named_copy (note VARCHAR, V VARCHAR, ID BIGINT)");
    copied("named");
    assertThat(
            column(
                server(),
                "SELECT ID || ':' || V || ':' || coalesce(note, '-') FROM named_copy ORDER BY ID"))
        .containsExactly("1:v1:-", "2:v2:-", "3:v3:-", "4:v4:-", "5:v5:-");
  }

  /**
   * Groups of rows sharing an offset: with at most 4 rows a batch, a batch ends before a group that
   * would pass the limit, and a group of 6 is read whole, alone; the first batch of a source whose
   * first group is larger than the limit reads that group whole too. The batches after the first
   * show input and processing rates.
   */
  @Test
  void maxRowsPerTriggerNeverSplitsAGroupOfEqualOffsets() throws Exception {
    server().execute("CREATE TABLE tied (id INTEGER, v VARCHAR)");
    int[] ids = {1, 1, 2, 2, 2, 3, 4, 4, 4, 4, 4, 4, 5, 6, 6};
    for (int i = 0; i < ids.length; i++) {
      server().execute("INSERT INTO tied VALUES (" + ids[i] + ", 'r" + i + "')");
    }
    StreamingQuery query = copied("tied", "maxRowsPerTrigger", "4");
    assertThat(rowsPerBatch(query)).containsExactly(2L, 4L, 6L, 3L);
    assertSameRows("tied", "tied_copy");
    StreamingQueryProgress last = query.lastProgress();
    assertThat(last.numInputRows()).isEqualTo(3);
    assertThat(last.inputRowsPerSecond()).isPositive();
    assertThat(last.processedRowsPerSecond()).isPositive();

    server().execute("CREATE TABLE tied_first (id INTEGER, v VARCHAR)");
    server()
        .execute(
            "INSERT INTO tied_first VALUES (7, 'a'), (7, 'b'), (7, 'c'), (7, 'd'), (7, 'e'),"
                + " (8, 'f')");
    StreamingQuery first = copied("tied_first", "maxRowsPerTrigger", "3");
    assertThat(rowsPerBatch(first)).containsExactly(5L, 1L);
    assertSameRows("tied_first", "tied_first_copy");
  }

  @Test
  void latestReadsOnlyTheRowsAddedAfterTheQueryStarted() throws Exception {
    server().execute("CREATE TABLE later AS SELECT i AS id, 'v' || i AS v FROM range(1, 11) t(i)");
    StreamingQuery first = copied("later", "startingOffsets", "latest");
    assertThat(rowsPerBatch(first)).isEmpty();
    assertThat(dir.resolve("later/sources/0/flightsql-initial-offset.json"))
        .content(StandardCharsets.UTF_8)
        .isEqualTo("{\"offsetColumn\":\"id\",\"type\":\"bigint\",\"value\":\"10\"}");

    server().execute("INSERT INTO later SELECT i, 'v' || i FROM range(11, 16) t(i)");
    StreamingQuery second = copied("later", "startingOffsets", "latest");
    assertThat(rowsPerBatch(second)).containsExactly(5L);
    assertThat(column(server(), "SELECT id FROM later_copy ORDER BY id"))
        .containsExactly("11", "12", "13", "14", "15");
  }

  /**
   * Rows added while an {@code AvailableNow} query runs (by its own first micro-batch, so surely
   * before it ends) are left for the next run: the query reads up to the mark taken as it started.
   */
  @Test
  void availableNowStopsAtTheMarkTakenWhenItStarted() throws Exception {
    server().execute("CREATE TABLE marked AS SELECT i AS id, 'v' || i AS v FROM range(1, 9) t(i)");
    List<Long> seen = Collections.synchronizedList(new ArrayList<>());
    VoidFunction2<Dataset<Row>, Long> collect =
        (batch, epoch) -> {
          for (Row row : batch.collectAsList()) {
            seen.add(row.getLong(0));
          }
          if (epoch == 0) {
            server().execute("INSERT INTO marked SELECT i, 'v' || i FROM range(9, 13) t(i)");
          }
        };
    DataStreamWriter<Row> writer =
        source(duckDb.uri(), "marked", "offsetColumn", "id", "maxRowsPerTrigger", "3")
            .load()
            .writeStream()
            .foreachBatch(collect)
            .option("checkpointLocation", dir.resolve("marked").toString())
            .trigger(Trigger.AvailableNow());
    StreamingQuery first = ran(writer);
    assertThat(rowsPerBatch(first)).containsExactly(3L, 3L, 2L);
    assertThat(seen).containsExactlyInAnyOrder(1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L);

    seen.clear();
    StreamingQuery second = ran(writer);
    assertThat(rowsPerBatch(second)).containsExactly(3L, 1L);
    assertThat(seen).containsExactlyInAnyOrder(9L, 10L, 11L, 12L);
  }

  /**
   * Offsets of each ordered type go into the checkpoint as exact text and come back the same: a
   * second run reads exactly the rows added after the first, none of the first run's again.
   */
  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      value = {
        "DECIMAL(20,4) | 1234567890123456.1230 | 1234567890123456.1231 | decimal(20,4)"
            + " | 1234567890123456.1231",
        "TIMESTAMPTZ | 2024-02-29 12:34:56.789012+00 | 2024-02-29 12:34:56.789013+00 | timestamp"
            + " | 2024-02-29T12:34:56.789013Z",
        "TIMESTAMP | 1969-12-31 23:59:59.999998 | 1969-12-31 23:59:59.999999 | timestamp_ntz"
            + " | 1969-12-31T23:59:59.999999",
        "DATE | 2024-02-28 | 2024-02-29 | date | 2024-02-29"
      })
  void offsetsOfEachTypeRoundTripExactly(
      String sqlType, String below, String above, String sparkType, String text) throws Exception {
    String table = "typed_" + sparkType.replaceAll("[^a-z]", "");
    server().execute("CREATE TABLE " + table + " (id " + sqlType + ", v VARCHAR)");
    server()
        .execute("INSERT INTO " + table + " VALUES ('" + below + "', 'a'), ('" + below + "', 'b')");
    StreamingQuery first = copied(table);
    assertThat(rowsPerBatch(first)).containsExactly(2L);

    server().execute("INSERT INTO " + table + " VALUES ('" + above + "', 'c')");
    StreamingQuery second = copied(table);
    assertThat(rowsPerBatch(second)).containsExactly(1L);
    assertThat(second.lastProgress().sources()[0].endOffset())
        .isEqualTo(
            "{\"offsetColumn\":\"id\",\"type\":\"" + sparkType + "\",\"value\":\"" + text + "\"}");
    assertThat(column(server(), "SELECT v FROM " + table + "_copy ORDER BY v"))
        .containsExactly("a", "b", "c");
  }

  @Test
  void offsetLagLeavesTheNewestRowsForALaterBatch() throws Exception {
    server()
        .execute(
            "CREATE TABLE lagged AS SELECT TIMESTAMPTZ '2024-01-01 00:00:00+00' + INTERVAL (i)"
                + " SECOND AS id, 'v' || i AS v FROM range(0, 10) t(i)");
    StreamingQuery query = copied("lagged", "offsetLag", "3s");
    // Newest 00:00:09, less 3 s: up to 00:00:06, seven rows.
    assertThat(rowsPerBatch(query)).containsExactly(7L);
    assertThat(column(server(), "SELECT max(v) FROM lagged_copy")).containsExactly("v6");
  }

  /**
   * An epoch that the sink committed, but whose commit the checkpoint lost (the driver died between
   * the two), is run again when the query restarts: its mark is on the server, so it writes
   * nothing, and the copy has each row once.
   */
  @Test
  void anEpochRunAgainAfterItsCommitWritesNothing() throws Exception {
    server()
        .execute("CREATE TABLE replayed AS SELECT i AS id, 'v' || i AS v FROM range(1, 21) t(i)");
    DataStreamWriter<Row> writer =
        sink(
            source(duckDb.uri(), "replayed", "offsetColumn", "id", "maxRowsPerTrigger", "10")
                .load(),
            duckDb.uri(),
            "replayed_copy",
            "replayed");
    StreamingQuery first = ran(writer);
    assertThat(rowsPerBatch(first)).containsExactly(10L, 10L);
    Files.delete(dir.resolve("replayed/commits/1"));
    Files.deleteIfExists(dir.resolve("replayed/commits/.1.crc"));

    StreamingQuery again;
    try (LogCapture log = LogCapture.start()) {
      again = ran(writer);
      assertThat(log.text())
          .contains("Epoch 1 of streaming query " + first.id() + " was committed to");
    }
    assertThat(rowsPerBatch(again)).containsExactly(10L);
    assertSameRows("replayed", "replayed_copy");
  }

  /**
   * A server that stops under a running query fails it; the query, started again from its
   * checkpoint once the server is back (its data in a DuckDB file, the marks with it), copies the
   * rest exactly.
   */
  @Test
  void aQueryStoppedByAServerRestartResumesFromItsCheckpoint() throws Exception {
    Path script = dir.resolve("store.sql");
    Files.writeString(
        script,
        "ATTACH '"
            + dir.resolve("store.duckdb")
            + "' AS store;\n"
            + "CREATE TABLE IF NOT EXISTS store.main.src AS"
            + " SELECT i AS id, 'v' || i AS v FROM range(1, 41) t(i);\n");
    DuckDbFlightSqlServer first =
        DuckDbFlightSqlServer.builder().port(0).lineitemRows(0).data(script).start();
    int port = first.port();
    DataStreamWriter<Row> continuous =
        sink(
                source(
                        first.uri(),
                        "store.main.src",
                        "offsetColumn",
                        "id",
                        "maxRowsPerTrigger",
                        "10")
                    .load(),
                first.uri(),
                "store.main.copy",
                "restarted")
            .option("markerTable", "store.main.flightsql_stream_commits")
            .trigger(Trigger.ProcessingTime(0));
    StreamingQuery running = continuous.start();
    try {
      awaitBatches(running, 2);
    } finally {
      first.close();
    }
    // UNAVAILABLE when the next call finds no server, CANCELLED when the stopping server reset a
    // call in flight: either way the connector's error, naming the server.
    assertThatThrownBy(running::awaitTermination)
        .hasMessageContaining("[flightsql] ")
        .hasMessageContaining(" failed for grpc://127.0.0.1:" + port + ": ");

    try (DuckDbFlightSqlServer second =
        DuckDbFlightSqlServer.builder().port(port).lineitemRows(0).data(script).start()) {
      second.execute("INSERT INTO store.main.src SELECT i, 'v' || i FROM range(41, 61) t(i)");
      ran(continuous.trigger(Trigger.AvailableNow()));
      String sql = "SELECT CAST(id AS VARCHAR) || ':' || v FROM store.main.%s ORDER BY 1";
      List<String> expected = column(second, String.format(sql, "src"));
      assertThat(expected).hasSize(60);
      assertThat(column(second, String.format(sql, "copy"))).containsExactlyElementsOf(expected);
    }
  }

  /** Waits until the query has read rows in {@code batches} micro-batches (or has stopped). */
  private static void awaitBatches(StreamingQuery query, int batches) throws Exception {
    while (query.isActive() && rowsPerBatch(query).size() < batches) {
      query.awaitTermination(50);
    }
    assertThat(rowsPerBatch(query)).hasSizeGreaterThanOrEqualTo(batches);
  }

  @Test
  void outputModesCompleteAndUpdateAreRefused() {
    server()
        .execute(
            "CREATE TABLE counted AS SELECT i AS id, 'v' || (i % 3) AS v FROM range(1, 7) t(i)");
    Dataset<Row> counts =
        source(duckDb.uri(), "counted", "offsetColumn", "id").load().groupBy("v").count();
    assertThatThrownBy(
            () -> ran(sink(counts, duckDb.uri(), "counts", "complete").outputMode("complete")))
        .hasMessageContaining(
            "Output mode 'complete' is not supported by the flightsql streaming sink")
        .hasMessageContaining("Use output mode 'append'");
    assertThatThrownBy(
            () -> ran(sink(counts, duckDb.uri(), "counts", "update").outputMode("update")))
        .hasMessageContaining("flightsql:counts does not support Update mode");
  }

  @Test
  void aServerWithoutTransactionsIsWrittenAtLeastOnceOrRefused() throws Exception {
    String uri = withoutTransactions.uri();
    withoutTransactions
        .server()
        .execute("CREATE TABLE plain AS SELECT i AS id, 'v' || i AS v FROM range(1, 6) t(i)");
    assertThatThrownBy(
            () ->
                ran(
                    sink(
                            source(uri, "plain", "offsetColumn", "id").load(),
                            uri,
                            "plain_copy",
                            "refused")
                        .option("exactlyOnce", "true")))
        .hasMessageContaining("Option 'exactlyOnce' is 'true'")
        .hasMessageContaining("reports no transactions");

    try (LogCapture log = LogCapture.start()) {
      ran(sink(source(uri, "plain", "offsetColumn", "id").load(), uri, "plain_copy", "auto"));
      assertThat(log.text()).contains("at least once, not exactly once");
    }
    assertThat(column(withoutTransactions.server(), "SELECT count(*) FROM plain_copy"))
        .containsExactly("5");
  }

  @Test
  void optionsThatCannotWorkAreRefusedByName() throws Exception {
    server().execute("CREATE TABLE refusing (id BIGINT, f DOUBLE, v VARCHAR)");
    server().execute("INSERT INTO refusing VALUES (1, 1.5, 'a')");
    assertThatThrownBy(
            () ->
                ran(sink(source(duckDb.uri(), "refusing").load(), duckDb.uri(), "refused", "none")))
        .hasMessageContaining("Option 'offsetColumn' is required to read refusing as a stream");
    assertThatThrownBy(
            () ->
                ran(
                    sink(
                        source(duckDb.uri(), "refusing", "offsetColumn", "f").load(),
                        duckDb.uri(),
                        "refused",
                        "float")))
        .hasMessageContaining("Invalid value 'f' for option 'offsetColumn'")
        .hasMessageContaining("column 'f' is double");
    assertThatThrownBy(
            () ->
                ran(
                    sink(
                        source(
                                duckDb.uri(),
                                "refusing",
                                "offsetColumn",
                                "id",
                                "startingOffsets",
                                "soon")
                            .load(),
                        duckDb.uri(),
                        "refused",
                        "start")))
        .hasMessageContaining("Invalid value 'soon' for option 'startingOffsets'");

    // A checkpoint of offsets of one column, restarted with another.
    ran(
        sink(
            source(duckDb.uri(), "refusing", "offsetColumn", "id").load(),
            duckDb.uri(),
            "refusing_copy",
            "switched"));
    server().execute("ALTER TABLE refusing ADD COLUMN seq INTEGER");
    assertThatThrownBy(
            () ->
                ran(
                    sink(
                        source(duckDb.uri(), "refusing", "offsetColumn", "seq").load().drop("seq"),
                        duckDb.uri(),
                        "refusing_copy",
                        "switched")))
        .hasMessageContaining("holds offsets of column 'id' (bigint)")
        .hasMessageContaining("'offsetColumn' is now 'seq' (int)");
  }
}
