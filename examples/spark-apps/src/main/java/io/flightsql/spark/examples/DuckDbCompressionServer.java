package io.flightsql.spark.examples;

import io.flightsql.spark.server.DuckDbFlightSqlServer;
import java.util.Map;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * The embedded DuckDB server, started {@code without("RowStorage")}: it decodes each upload of bulk
 * ingestion (decompressing it), counts its rows and drops them, so that the figures are the
 * client's, the link's and the decoding's, not DuckDB's inserts. The bytes are those of the gRPC
 * messages it received ({@link DuckDbFlightSqlServer#bytesReceived()}), without HTTP/2's framing.
 */
final class DuckDbCompressionServer implements CompressionServer {
  private final DuckDbFlightSqlServer server;
  private long discardedBefore;

  DuckDbCompressionServer() throws Exception {
    this.server =
        DuckDbFlightSqlServer.builder().port(0).lineitemRows(0).without("RowStorage").start();
  }

  @Override
  public String description() {
    return "embedded DuckDB (bulk ingestion; rows decoded, counted and dropped;"
        + " bytes on the wire: the gRPC messages it received)";
  }

  @Override
  public int port() {
    return server.port();
  }

  @Override
  public Dataset<Row> rows(SparkSession spark, long count) {
    return WriteBenchmark.lineitem(spark, count);
  }

  @Override
  public Map<String, String> writeOptions() {
    return Map.of("writeMethod", "ingest");
  }

  @Override
  public void beforeWrite() {
    discardedBefore = server.discardedRows();
  }

  @Override
  public long rowsWritten() {
    return server.discardedRows() - discardedBefore;
  }

  @Override
  public long bytesReceived() {
    return server.bytesReceived();
  }

  @Override
  public String checkReadBack(Dataset<Row> written) {
    return "not read back: the server drops the rows (the decoded rows were counted)";
  }

  @Override
  public void close() {
    server.close();
  }
}
