package io.flightsql.spark.examples;

import java.util.Map;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * A server that {@link CompressionBenchmark} writes to through its Toxiproxy link: where the link
 * leads, which rows the server can take, and what each write delivered to it.
 */
interface CompressionServer extends AutoCloseable {

  /** What the server is and what it does with the rows, printed before the figures. */
  String description();

  /** The port of 127.0.0.1 that the link leads to. */
  int port();

  /** The rows that every write sends, before the benchmark caches them. */
  Dataset<Row> rows(SparkSession spark, long count);

  /** The write's options besides {@code uri}, {@code dbtable} and {@code compression}. */
  Map<String, String> writeOptions();

  /** Makes the server ready for the next write: its table empty, or its row count taken. */
  void beforeWrite() throws Exception;

  /** The rows that the server received from the write since {@link #beforeWrite()}. */
  long rowsWritten() throws Exception;

  /**
   * The bytes that the server has received through the link since it started: the write's batches
   * as sent, compressed or not, and the calls that plan it.
   */
  long bytesReceived();

  /**
   * Reads back what the last write stored and compares it with {@code written}, row for row.
   *
   * @return what was checked, to print
   * @throws IllegalStateException when a row differs, is missing or is extra
   */
  String checkReadBack(Dataset<Row> written);

  /** Stops the server; throws nothing checked, so that try-with-resources needs no catch. */
  @Override
  void close();
}
