package io.flightsql.spark.server;

import java.io.IOException;
import java.io.UncheckedIOException;
import org.apache.arrow.flight.CallStatus;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.Schema;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The batches of a DoPut upload as an {@link ArrowReader}, so that they can be exported to DuckDB
 * through the Arrow C data interface one at a time, as DuckDB asks for them.
 *
 * <p>Each batch's buffers move from the stream's root into this reader's root without a copy; the
 * export then holds them until DuckDB has consumed the batch. At most the batch DuckDB is reading
 * and the one gRPC is receiving are in memory, whatever the size of the upload.
 *
 * <p>A failure of the upload itself (the client cancelled, the connection broke) is kept, so that
 * the caller can report it instead of the error DuckDB makes of it. Closing the reader leaves the
 * stream to Flight, which owns it.
 */
final class FlightStreamReader extends ArrowReader {

  private static final Logger LOG = LoggerFactory.getLogger(FlightStreamReader.class);

  private final FlightStream stream;
  private long rows;
  private int batches;
  private RuntimeException failure;

  /**
   * @param allocator for this reader's root, which the batches' buffers move into
   */
  FlightStreamReader(FlightStream stream, BufferAllocator allocator) {
    super(allocator);
    this.stream = stream;
  }

  @Override
  public boolean loadNextBatch() throws IOException {
    try {
      if (!stream.next()) {
        return false;
      }
    } catch (RuntimeException e) {
      failure = e;
      throw e;
    }
    VectorSchemaRoot source = stream.getRoot();
    VectorSchemaRoot target = getVectorSchemaRoot();
    for (int i = 0; i < source.getFieldVectors().size(); i++) {
      source.getVector(i).makeTransferPair(target.getVector(i)).transfer();
    }
    target.setRowCount(source.getRowCount());
    rows += source.getRowCount();
    batches++;
    LOG.debug("Upload batch {}: {} rows ({} so far)", batches, source.getRowCount(), rows);
    return true;
  }

  /** Rows read so far. */
  long rows() {
    return rows;
  }

  /** Batches read so far. */
  int batches() {
    return batches;
  }

  /**
   * Throws the upload's own failure, if reading it failed. DuckDB's error for a stream that failed
   * is the reader's stack trace as text; the failure itself says more, and keeps its status.
   */
  void throwUploadFailure() {
    if (failure instanceof FlightRuntimeException flight) {
      throw flight;
    }
    if (failure != null) {
      throw CallStatus.INTERNAL
          .withDescription("Reading the upload failed: " + failure)
          .withCause(failure)
          .toRuntimeException();
    }
  }

  /** Frees this reader's root; nothing here can fail, so no IOException. */
  @Override
  public void close() {
    try {
      super.close();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public long bytesRead() {
    return 0;
  }

  @Override
  protected void closeReadSource() {
    // The stream belongs to Flight's DoPut handler.
  }

  @Override
  protected Schema readSchema() {
    return stream.getSchema();
  }
}
