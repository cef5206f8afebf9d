package io.flightsql.spark.server;

import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.util.AutoCloseables;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Parameter values bound to a prepared query with DoPut, kept until the query runs (its DoGet may
 * come any time later, and more than once). The batches are moved out of the upload without a copy
 * and belong to this object until {@link #close()}.
 */
final class ParameterBatches implements AutoCloseable {

  private final Schema schema;
  private final List<VectorSchemaRoot> batches;
  private final long rows;

  private ParameterBatches(Schema schema, List<VectorSchemaRoot> batches, long rows) {
    this.schema = schema;
    this.batches = batches;
    this.rows = rows;
  }

  /** Reads the whole upload; its batches' buffers move to {@code allocator}. */
  static ParameterBatches read(FlightStream stream, BufferAllocator allocator) {
    Schema schema = stream.getSchema();
    List<VectorSchemaRoot> batches = new ArrayList<>();
    long rows = 0;
    try {
      while (stream.next()) {
        VectorSchemaRoot source = stream.getRoot();
        if (source.getRowCount() == 0) {
          continue;
        }
        VectorSchemaRoot copy = VectorSchemaRoot.create(schema, allocator);
        batches.add(copy);
        for (int i = 0; i < source.getFieldVectors().size(); i++) {
          source.getVector(i).makeTransferPair(copy.getVector(i)).transfer();
        }
        copy.setRowCount(source.getRowCount());
        rows += source.getRowCount();
      }
      return new ParameterBatches(schema, batches, rows);
    } catch (RuntimeException e) {
      try {
        AutoCloseables.close(batches);
      } catch (Exception suppressed) {
        e.addSuppressed(suppressed);
      }
      throw e;
    }
  }

  Schema schema() {
    return schema;
  }

  /** The number of parameter sets. */
  long rows() {
    return rows;
  }

  /** A reader of the batches, which stay open (and can be read again) after it closes. */
  BatchReader reader(BufferAllocator allocator) {
    return new BatchReader(schema, batches, allocator);
  }

  @Override
  public void close() {
    try {
      AutoCloseables.close(batches);
    } catch (Exception e) {
      throw new IllegalStateException("Could not free bound parameters", e);
    }
  }
}
