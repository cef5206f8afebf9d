package io.flightsql.spark.examples;

import io.flightsql.spark.servers.GoSqliteServer;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * arrow-go's SQLite Flight SQL example ({@link GoSqliteServer}), which has no bulk ingestion: the
 * connector writes with a prepared {@code INSERT} whose parameter rows are the uploaded batches,
 * which the server decodes (decompressing them with arrow-go's IPC reader) and inserts one row at a
 * time. With option {@code atomic} at its default each task inserts into a staging table and the
 * job's commit copies the rows into the table, as users get it.
 *
 * <p>The link leads to a {@link CountingRelay} in front of the server, which counts the bytes that
 * reach it, HTTP/2's framing included. The table is created once, emptied before every write and
 * counted after it, over a connection of its own that bypasses the link.
 *
 * <p>The rows are {@link WriteBenchmark#lineitem}'s with the two columns the server cannot bind
 * turned into types it can: the decimal price into a double, the timestamp into its text.
 */
final class SqliteCompressionServer implements CompressionServer {
  private static final String DDL =
      "CREATE TABLE "
          + CompressionBenchmark.TABLE
          + " (l_orderkey integer, l_quantity integer, l_discount double,"
          + " l_extendedprice double, l_comment text, l_shipdate date, l_receipt text)";

  private final GoSqliteServer server;
  private final CountingRelay relay;
  private final BufferAllocator allocator;
  private final RawFlightSqlWriter admin;

  private SqliteCompressionServer(
      GoSqliteServer server,
      CountingRelay relay,
      BufferAllocator allocator,
      RawFlightSqlWriter admin) {
    this.server = server;
    this.relay = relay;
    this.allocator = allocator;
    this.admin = admin;
  }

  /** Starts the server and the relay and creates the empty table. */
  static SqliteCompressionServer start(Path log) throws Exception {
    GoSqliteServer server = GoSqliteServer.start(log);
    SqliteCompressionServer started;
    try {
      CountingRelay relay = CountingRelay.start(server.port());
      BufferAllocator allocator = new RootAllocator();
      started =
          new SqliteCompressionServer(
              server, relay, allocator, new RawFlightSqlWriter(server.uri(), allocator));
    } catch (Exception | Error e) {
      server.close();
      throw e;
    }
    try {
      started.admin.drop(CompressionBenchmark.TABLE);
      started.admin.execute(DDL);
      return started;
    } catch (Exception | Error e) {
      started.close();
      throw e;
    }
  }

  @Override
  public String description() {
    return "arrow-go "
        + GoSqliteServer.VERSION
        + " SQLite example, in-memory (prepared INSERT, rows inserted one at a time;"
        + " atomic=auto: staging tables copied into the table at the job's commit;"
        + " batchBytes="
        + BATCH_BYTES
        + "; bytes on the wire: the TCP payload that reached it, HTTP/2 framing included)";
  }

  @Override
  public int port() {
    return relay.port();
  }

  @Override
  public Dataset<Row> rows(SparkSession spark, long count) {
    return WriteBenchmark.lineitem(spark, count)
        .selectExpr(
            "l_orderkey",
            "l_quantity",
            "l_discount",
            "CAST(l_extendedprice AS DOUBLE) AS l_extendedprice",
            "l_comment",
            "l_shipdate",
            "date_format(l_receipt, 'yyyy-MM-dd HH:mm:ss') AS l_receipt");
  }

  /**
   * Batches of at most 3 MiB of Arrow buffers, for all three compressions alike: the connector's
   * default, stated so that the figures keep their meaning if it changes. At 4 MiB (counted without
   * the IPC message's own bytes) an uncompressed batch becomes a gRPC message slightly over 4 MiB,
   * and arrow-go's server refuses any message over gRPC-Go's default 4 MiB: {@code
   * RESOURCE_EXHAUSTED: grpc: received message larger than max (4238257 vs. 4194304)}.
   */
  private static final long BATCH_BYTES = 3L << 20;

  @Override
  public Map<String, String> writeOptions() {
    return Map.of("writeMethod", "prepared", "batchBytes", Long.toString(BATCH_BYTES));
  }

  @Override
  public void beforeWrite() {
    admin.execute("DELETE FROM " + CompressionBenchmark.TABLE);
  }

  @Override
  public long rowsWritten() throws Exception {
    return admin.count(CompressionBenchmark.TABLE);
  }

  @Override
  public long bytesReceived() {
    return relay.upstreamBytes();
  }

  /**
   * Reads the table back through the connector, straight from the server, and compares it with the
   * rows sent, as a multiset: a batch that the server could not decompress would have failed the
   * write or stored other values. The server hands an INTEGER column back as int64 and a DATE as
   * its text in RFC 3339, so the sent rows are turned into those before the comparison.
   */
  @Override
  public String checkReadBack(Dataset<Row> written) {
    Dataset<Row> stored =
        written
            .sparkSession()
            .read()
            .format("flightsql")
            .option("uri", server.uri())
            .option("dbtable", CompressionBenchmark.TABLE)
            .load()
            .cache();
    try {
      Dataset<Row> sent =
          written.selectExpr(
              "l_orderkey",
              "CAST(l_quantity AS BIGINT) AS l_quantity",
              "l_discount",
              "l_extendedprice",
              "l_comment",
              "date_format(l_shipdate, \"yyyy-MM-dd'T'HH:mm:ss'Z'\") AS l_shipdate",
              "l_receipt");
      long storedRows = stored.count();
      long missing = sent.exceptAll(stored).count();
      long extra = stored.exceptAll(sent).count();
      if (missing != 0 || extra != 0) {
        throw new IllegalStateException(
            String.format(
                Locale.ROOT,
                "The table read back differs from the rows sent: %,d rows sent are not in it, %,d"
                    + " rows in it were not sent (%,d rows read back)",
                missing,
                extra,
                storedRows));
      }
      return String.format(
          Locale.ROOT, "read back: %,d rows, equal to those sent, value for value", storedRows);
    } finally {
      stored.unpersist(true);
    }
  }

  @Override
  public void close() {
    try {
      admin.close();
      allocator.close();
      relay.close();
    } finally {
      server.close();
    }
  }
}
