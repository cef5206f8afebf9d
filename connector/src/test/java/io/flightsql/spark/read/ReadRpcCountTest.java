package io.flightsql.spark.read;

import static org.assertj.core.api.Assertions.assertThat;

import io.flightsql.spark.server.CallRecorder;
import io.flightsql.spark.server.DuckDbFlightSqlServer;
import io.flightsql.spark.server.RecordedCall;
import io.flightsql.spark.testing.ArrowLeakCheckExtension;
import io.flightsql.spark.testing.EmbeddedServerExtension;
import io.flightsql.spark.testing.SparkSessionExtension;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * What one read costs in calls to the server, as the server's call recorder counts them: once the
 * server's metadata is known in the JVM (GetSqlInfo is asked once per server), a read with nothing
 * pushed costs two driver calls (the schema, then the plan) and one DoGet per endpoint.
 */
@ExtendWith(ArrowLeakCheckExtension.class)
class ReadRpcCountTest {
  private static final CallRecorder RECORDER = new CallRecorder();

  @RegisterExtension
  @Order(1)
  static final EmbeddedServerExtension duckDb =
      EmbeddedServerExtension.duckDb(
          server ->
              server
                  .port(0)
                  .lineitemRows(0)
                  .endpoints(2)
                  .middleware(CallRecorder.KEY, RECORDER)
                  .actionObserver(RECORDER::actionStarted));

  @RegisterExtension
  @Order(2)
  static final SparkSessionExtension spark = SparkSessionExtension.local();

  @BeforeAll
  static void ten() {
    duckDb.server().execute("CREATE TABLE ten AS SELECT i AS id FROM range(10) r(i)");
  }

  private static List<String> methods() {
    return RECORDER.calls().stream()
        .map(RecordedCall::method)
        .filter(m -> !m.startsWith("Handshake"))
        .collect(Collectors.toList());
  }

  private static long read(String option, String value) {
    return spark
        .session()
        .read()
        .format("flightsql")
        .option("uri", duckDb.uri())
        .option(option, value)
        .load()
        .collectAsList()
        .size();
  }

  @Test
  void aReadWithNothingPushedCostsTwoDriverCalls() {
    assertThat(read("dbtable", "ten")).isEqualTo(10);
    RECORDER.clear();
    assertThat(read("query", "SELECT * FROM ten WHERE id < 10")).isEqualTo(10);
    // GetSchema (the schema Spark needs before planning) and PollFlightInfo (the plan), then a
    // DoGet per endpoint.
    assertThat(methods()).containsExactly("GetSchema", "PollFlightInfo", "DoGet", "DoGet");
  }

  /** The server's GetSqlInfo is asked by the first read that pushes something, not again. */
  @Test
  void aPushedReadAsksTheServerWhatItIsOncePerJvm() {
    assertThat(pushedRead()).isEqualTo(3);
    List<String> first = methods();
    RECORDER.clear();
    assertThat(pushedRead()).isEqualTo(3);
    List<String> second = methods();
    System.out.println("First pushed read: " + first + "\nSecond pushed read: " + second);
    assertThat(first.size() - second.size()).isEqualTo(2);
  }

  private static long pushedRead() {
    RECORDER.clear();
    return spark
        .session()
        .read()
        .format("flightsql")
        .option("uri", duckDb.uri())
        .option("dbtable", "ten")
        .load()
        .filter("id >= 7")
        .collectAsList()
        .size();
  }

  /** A server without GetSchema is asked for it once per JVM, not once per read. */
  @Test
  void aCallTheServerLacksIsAskedOnce() throws Exception {
    CallRecorder recorder = new CallRecorder();
    try (DuckDbFlightSqlServer lacking =
        DuckDbFlightSqlServer.builder()
            .port(0)
            .lineitemRows(0)
            .without("GetSchema")
            .middleware(CallRecorder.KEY, recorder)
            .actionObserver(recorder::actionStarted)
            .start()) {
      List<String> first = null;
      for (int read = 0; read < 3; read++) {
        recorder.clear();
        assertThat(
                spark
                    .session()
                    .read()
                    .format("flightsql")
                    .option("uri", lacking.uri())
                    .option("query", "SELECT 42 AS answer")
                    .load()
                    .collectAsList())
            .hasSize(1);
        List<String> calls =
            recorder.calls().stream().map(RecordedCall::method).collect(Collectors.toList());
        if (first == null) {
          first = calls;
          assertThat(calls).contains("GetSchema");
        } else {
          assertThat(calls).as("read %d", read).doesNotContain("GetSchema");
        }
      }
    }
  }

  /**
   * The embedded server as one that gives a query's schema only with its data (no GetSchema, no
   * schema before the data), one endpoint a query, its calls recorded, with a 10-row table {@code
   * ten}.
   */
  private static DuckDbFlightSqlServer schemaWithTheDataServer(CallRecorder recorder)
      throws Exception {
    DuckDbFlightSqlServer server =
        DuckDbFlightSqlServer.builder()
            .port(0)
            .lineitemRows(0)
            .endpoints(1)
            .without("GetSchema", "SchemaBeforeData")
            .middleware(CallRecorder.KEY, recorder)
            .actionObserver(recorder::actionStarted)
            .start();
    try {
      server.execute("CREATE TABLE ten AS SELECT i AS id FROM range(10) r(i)");
    } catch (Exception e) {
      server.close();
      throw e;
    }
    return server;
  }

  /**
   * A server that gives a query's schema only at the head of its stream (no GetSchema, no schema
   * with a prepared statement or in FlightInfo, as arrow-go's SQLite example) runs a read's query
   * twice: once for the schema, whose stream is closed after its head, and once for the read, whose
   * rows are those of its own action. The first read learns what the server lacks; later ones cost
   * a GetFlightInfo and a DoGet for the schema, then a PollFlightInfo and a DoGet for the rows.
   */
  @Test
  void aServerThatSendsTheSchemaWithTheDataRunsAReadsQueryAgainForItsRows() throws Exception {
    CallRecorder recorder = new CallRecorder();
    try (DuckDbFlightSqlServer server = schemaWithTheDataServer(recorder)) {
      List<List<String>> reads = new ArrayList<>();
      for (int read = 0; read < 3; read++) {
        recorder.clear();
        assertThat(
                spark
                    .session()
                    .read()
                    .format("flightsql")
                    .option("uri", server.uri())
                    .option("query", "SELECT * FROM ten WHERE id < 10")
                    .load()
                    .collectAsList())
            .hasSize(10);
        reads.add(
            recorder.calls().stream()
                .map(RecordedCall::method)
                .filter(m -> !m.startsWith("Handshake"))
                .collect(Collectors.toList()));
      }
      System.out.println("Reads of a server that sends the schema with the data: " + reads);
      assertThat(reads.get(0))
          .as("the first read asks what the server lacks once")
          .containsSubsequence(
              "GetSchema",
              "DoAction:CreatePreparedStatement",
              "GetFlightInfo",
              "DoGet",
              "PollFlightInfo",
              "DoGet");
      assertThat(reads.get(1)).containsExactly("GetFlightInfo", "DoGet", "PollFlightInfo", "DoGet");
      assertThat(reads.get(2)).containsExactly("GetFlightInfo", "DoGet", "PollFlightInfo", "DoGet");
    }
  }
}
