package io.flightsql.spark.server;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Where the rows of ingests and prepared {@code INSERT}s go when the server runs without {@code
 * RowStorage}: nowhere. Each upload is read to its end, batch by batch as gRPC delivers it, its
 * rows are counted and its buffers freed, and the client is told the count, as if the rows had been
 * stored. Everything else a write does still happens (options are checked, a table is created or
 * replaced), so a client sees the same calls and answers as with storage, minus DuckDB's cost of
 * inserting: a benchmark then measures the client, not the database.
 *
 * <p>Thread-safe.
 */
final class WriteSink {

  private final boolean discarding;
  private final AtomicLong discardedRows = new AtomicLong();

  /**
   * @param discarding whether uploads are discarded; otherwise {@link #discards()} is false and the
   *     callers store rows as usual
   */
  WriteSink(boolean discarding) {
    this.discarding = discarding;
  }

  /** Whether uploads are discarded instead of stored. */
  boolean discards() {
    return discarding;
  }

  /** Reads the upload to its end, counts its rows and frees each batch. */
  long drain(FlightStreamReader reader) {
    try {
      while (reader.loadNextBatch()) {
        reader.getVectorSchemaRoot().clear();
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    reader.throwUploadFailure();
    discardedRows.addAndGet(reader.rows());
    return reader.rows();
  }

  /** Rows discarded since the server started. */
  long discardedRows() {
    return discardedRows.get();
  }
}
