package io.flightsql.spark.read;

import static org.assertj.core.api.Assertions.assertThat;

import io.flightsql.spark.server.CallRecorder;
import io.flightsql.spark.server.RecordedCall;
import io.flightsql.spark.testing.ArrowLeakCheckExtension;
import io.flightsql.spark.testing.EmbeddedServerExtension;
import io.flightsql.spark.testing.SparkSessionExtension;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A plan of a read's query that no job reads is cancelled on the server once option {@code
 * unreadPlanLifetime} passed (an EXPLAIN's), and a plan a job reads is not; a read after the cancel
 * plans its query again and returns the rows of its own action. On the embedded DuckDB server,
 * whose calls a recorder counts; each test waits for the server to see the CancelFlightInfo.
 */
@ExtendWith(ArrowLeakCheckExtension.class)
class UnreadPlanTest {
  private static final CallRecorder RECORDER = new CallRecorder();

  @RegisterExtension
  @Order(1)
  static final EmbeddedServerExtension duckDb =
      EmbeddedServerExtension.duckDb(
          server ->
              server
                  .port(0)
                  .lineitemRows(0)
                  .endpoints(1)
                  .middleware(CallRecorder.KEY, RECORDER)
                  .actionObserver(RECORDER::actionStarted));

  @RegisterExtension
  @Order(2)
  static final SparkSessionExtension spark = SparkSessionExtension.local();

  @BeforeEach
  void table() {
    duckDb.server().execute("CREATE OR REPLACE TABLE up (id INTEGER)");
    duckDb.server().execute("INSERT INTO up VALUES (1), (2), (3)");
    RECORDER.clear();
  }

  private static Dataset<Row> read() {
    return spark
        .session()
        .read()
        .format("flightsql")
        .option("uri", duckDb.uri())
        .option("dbtable", "up")
        .option("unreadPlanLifetime", "1s")
        .load();
  }

  private static List<String> calls() {
    return RECORDER.calls().stream().map(RecordedCall::method).collect(Collectors.toList());
  }

  /** Waits until the server has seen {@code count} CancelFlightInfo calls, then lists the calls. */
  private static List<String> afterCancels(int count) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (cancels(calls()) < count && System.nanoTime() < deadline) {
      Thread.sleep(20);
    }
    return calls();
  }

  private static long cancels(List<String> calls) {
    return calls.stream().filter("DoAction:CancelFlightInfo"::equals).count();
  }

  @Test
  void theQueryPlannedForAnExplainIsCancelledAndALaterActionReadsItsOwnRows() throws Exception {
    Dataset<Row> df = read();
    df.explain(true);
    List<String> calls = afterCancels(1);
    assertThat(cancels(calls)).as("calls %s", calls).isEqualTo(1);
    assertThat(calls).doesNotContain("DoGet");

    duckDb.server().execute("INSERT INTO up VALUES (4), (5)");
    assertThat(df.collectAsList()).hasSize(5);
  }

  @Test
  void aPlanThatAJobReadsIsNotCancelled() throws Exception {
    assertThat(read().collectAsList()).hasSize(3);
    // The explain's plan is cancelled after the collected read's lifetime passed: the timer
    // looked at the collected read's plan first, and left it.
    read().explain(true);
    List<String> calls = afterCancels(1);
    assertThat(cancels(calls)).as("calls %s", calls).isEqualTo(1);
  }
}
