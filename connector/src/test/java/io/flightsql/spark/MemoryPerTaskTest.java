package io.flightsql.spark;

import static org.assertj.core.api.Assertions.assertThat;

import io.flightsql.spark.client.transport.Allocators;
import io.flightsql.spark.testing.ArrowLeakCheckExtension;
import io.flightsql.spark.testing.EmbeddedServerExtension;
import io.flightsql.spark.testing.SparkSessionExtension;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.FlightEndpoint;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.flight.Location;
import org.apache.arrow.flight.sql.FlightSqlClient;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorUnloader;
import org.apache.arrow.vector.ipc.message.ArrowRecordBatch;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The Arrow memory one read partition or one write task holds at once stays a small number of
 * record batches, whatever the number of rows (here 25 batches per partition or task): the peak of
 * its session's allocator, noted when it closes.
 *
 * <ul>
 *   <li>A read partition holds the batch Spark is reading and at most two received ahead of it
 *       ({@code ReadAhead}; Arrow Flight's client alone would keep five).
 *   <li>A write task holds the batch it is filling, whose vectors grow by doubling; gRPC's copy of
 *       the batch being sent is Netty's memory, not Arrow's.
 * </ul>
 */
@SuppressWarnings("try") // Arrow's FlightSqlClient and FlightStream close() declare Exception
@ExtendWith(ArrowLeakCheckExtension.class)
class MemoryPerTaskTest {
  private static final int BATCH_ROWS = 8_192;

  @RegisterExtension
  @Order(1)
  static final EmbeddedServerExtension duckDb =
      EmbeddedServerExtension.duckDb(
          server ->
              server
                  .port(0)
                  .lineitemRows(0)
                  .endpoints(2)
                  .batchRows(BATCH_ROWS)
                  .without("RowStorage"));

  @RegisterExtension
  @Order(2)
  static final SparkSessionExtension spark = SparkSessionExtension.local();

  @BeforeAll
  static void words() {
    duckDb
        .server()
        .execute(
            "CREATE TABLE words AS SELECT i AS id, 'word number ' || lpad(i::VARCHAR, 8, '0') AS s"
                + " FROM range(400000) r(i)");
  }

  @BeforeEach
  void forgetPeaks() {
    Allocators.resetLargestPeaks();
  }

  /** The largest body of a record batch of the query, as a plain Flight SQL client receives it. */
  private static long largestBatchBytes(String sql) throws Exception {
    long largest = 0;
    try (BufferAllocator allocator = new RootAllocator();
        FlightSqlClient client =
            new FlightSqlClient(
                FlightClient.builder(
                        allocator, Location.forGrpcInsecure("127.0.0.1", duckDb.server().port()))
                    .build())) {
      FlightInfo info = client.execute(sql);
      for (FlightEndpoint endpoint : info.getEndpoints()) {
        try (FlightStream stream = client.getStream(endpoint.getTicket())) {
          while (stream.next()) {
            try (ArrowRecordBatch batch = new VectorUnloader(stream.getRoot()).getRecordBatch()) {
              largest = Math.max(largest, batch.computeBodyLength());
            }
          }
        }
      }
    }
    return largest;
  }

  private static long powerOfTwoAbove(long bytes) {
    return Long.highestOneBit(bytes - 1) << 1;
  }

  @Test
  void aReadPartitionHoldsAtMostThreeBatches() throws Exception {
    String sql = "SELECT * FROM words";
    long batch = largestBatchBytes(sql);
    long rows =
        spark
            .session()
            .read()
            .format("flightsql")
            .option("uri", duckDb.uri())
            .option("query", sql)
            .load()
            .selectExpr("sum(length(s))")
            .collectAsList()
            .size();
    ArrowLeakCheckExtension.assertNoneLeft("after the read");

    long peak = Allocators.largestPeakBytes("flightsql-partition");
    assertThat(rows).isEqualTo(1);
    // The batch being read and two received ahead, each rounded up to the allocator's 4 KiB, and a
    // few KiB of small messages.
    assertThat(peak).isPositive().isLessThanOrEqualTo(3 * ((batch + 4095) / 4096 * 4096) + 8192);
  }

  @Test
  void aWriteTaskHoldsTheBatchItFills() throws Exception {
    duckDb.server().execute("CREATE TABLE words_copy (id BIGINT, s VARCHAR)");
    Dataset<Row> rows =
        spark
            .session()
            .range(0, 400_000, 1, 2)
            .selectExpr("id", "concat('word number ', lpad(CAST(id AS STRING), 8, '0')) AS s");
    long discardedBefore = duckDb.server().discardedRows();
    rows.write()
        .format("flightsql")
        .option("uri", duckDb.uri())
        .option("dbtable", "words_copy")
        .option("batchSize", BATCH_ROWS)
        .mode("append")
        .save();
    ArrowLeakCheckExtension.assertNoneLeft("after the write");

    // One batch of BATCH_ROWS rows: 8-byte ids, 4-byte offsets, 20-byte strings, two validity
    // bitmaps.
    long batch = BATCH_ROWS * (8L + 4 + 20) + 4 + 2 * BATCH_ROWS / 8;
    long peak = Allocators.largestPeakBytes("flightsql-write");
    assertThat(duckDb.server().discardedRows() - discardedBefore).isEqualTo(400_000);
    assertThat(peak).isPositive().isLessThanOrEqualTo(2 * powerOfTwoAbove(batch));
  }
}
