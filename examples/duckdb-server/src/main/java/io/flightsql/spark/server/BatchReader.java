package io.flightsql.spark.server;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorLoader;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.VectorUnloader;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.ipc.message.ArrowRecordBatch;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Batches already in memory as an {@link ArrowReader}, which can hand them to DuckDB through the
 * Arrow C data interface. The batches are shared, not moved or copied: each one's buffers gain a
 * reference while the reader (and DuckDB, through the export) uses them, and the batches stay
 * usable, so the same ones can be read again.
 */
final class BatchReader extends ArrowReader {

  private final Schema schema;
  private final List<VectorSchemaRoot> batches;
  private int next;

  /**
   * @param schema the schema of every batch
   * @param batches owned by the caller, who keeps them open until this reader is closed
   */
  BatchReader(Schema schema, List<VectorSchemaRoot> batches, BufferAllocator allocator) {
    super(allocator);
    this.schema = schema;
    this.batches = batches;
  }

  @Override
  public boolean loadNextBatch() throws IOException {
    if (next >= batches.size()) {
      return false;
    }
    VectorSchemaRoot target = getVectorSchemaRoot();
    try (ArrowRecordBatch batch = new VectorUnloader(batches.get(next)).getRecordBatch()) {
      new VectorLoader(target).load(batch);
    }
    next++;
    return true;
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
    // The batches belong to the caller.
  }

  @Override
  protected Schema readSchema() {
    return schema;
  }
}
