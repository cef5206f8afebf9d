package io.flightsql.spark.vector;

import io.flightsql.spark.types.SparkToArrow;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BaseValueVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.types.StructType;

/**
 * Turns a task's Spark rows into Arrow record batches, one batch at a time, in bounded memory: the
 * write side of {@link ArrowBackedColumnVector}. Rows are appended in Spark's internal form into
 * the vectors of one {@link VectorSchemaRoot} whose schema {@link SparkToArrow#toArrowSchema}
 * gives; {@link #finishBatch()} hands the root over for sending, and {@link #reset()} empties it
 * for the next batch, keeping its buffers unless they grew far beyond what a batch needs.
 *
 * <p>Runs on executors, in one task's thread; not thread-safe and not Serializable. The builder
 * allocates in a child of the caller's allocator and owns everything in it: {@link #close()}
 * releases it all, and fails if a buffer is still held elsewhere.
 */
public final class ArrowBatchBuilder implements AutoCloseable {
  /**
   * After a batch, buffers beyond this many times its estimated bytes are given back rather than
   * kept. Buffers grow by doubling, so a batch never needs more than about twice its bytes; what is
   * beyond four times was left by an earlier, larger batch.
   */
  private static final int RETAINED_PER_ESTIMATED_BYTE = 4;

  private final BufferAllocator allocator;
  private final VectorSchemaRoot root;
  private final FieldWriter[] writers;

  /** Bytes held right after allocation; reset never frees while under twice this. */
  private final long initialBytes;

  private int rowCount;
  private long estimatedBytes;

  private ArrowBatchBuilder(BufferAllocator allocator, VectorSchemaRoot root) {
    this.allocator = allocator;
    this.root = root;
    List<FieldVector> vectors = root.getFieldVectors();
    this.writers = new FieldWriter[vectors.size()];
    for (int i = 0; i < writers.length; i++) {
      FieldVector vector = vectors.get(i);
      writers[i] = FieldWriter.forVector(vector, vector.getName());
    }
    this.initialBytes = allocator.getAllocatedMemory();
  }

  /**
   * A builder for rows of this schema, allocating in a child of {@code allocator}.
   *
   * @throws io.flightsql.spark.types.UnsupportedSparkTypeException for a column whose type has no
   *     Arrow counterpart, before anything is allocated
   */
  public static ArrowBatchBuilder create(StructType schema, BufferAllocator allocator) {
    Schema arrowSchema = SparkToArrow.toArrowSchema(schema);
    BufferAllocator own = allocator.newChildAllocator("ArrowBatchBuilder", 0, Long.MAX_VALUE);
    VectorSchemaRoot root = null;
    try {
      root = VectorSchemaRoot.create(arrowSchema, own);
      allocateInitial(root);
      return new ArrowBatchBuilder(own, root);
    } catch (RuntimeException | Error e) {
      if (root != null) {
        root.close();
      }
      own.close();
      throw e;
    }
  }

  /**
   * Allocates the vectors at Arrow's default initial capacity. The capacity is set first because a
   * vector otherwise allocates anew at the largest capacity it has grown to.
   */
  private static void allocateInitial(VectorSchemaRoot root) {
    for (FieldVector vector : root.getFieldVectors()) {
      vector.setInitialCapacity(BaseValueVector.INITIAL_VALUE_ALLOCATION);
    }
    root.allocateNew();
  }

  /**
   * Appends one row, growing the vectors as needed. A row that fails (a value that does not fit its
   * column, a NULL in a non-nullable column) is not counted, but may have left parts of itself in
   * the vectors: the batch should then be dropped, not sent.
   */
  public void append(InternalRow row) {
    int index = rowCount;
    long bytes = 0;
    for (int i = 0; i < writers.length; i++) {
      bytes += writers[i].write(row, i, index);
    }
    estimatedBytes += bytes;
    rowCount = index + 1;
  }

  /**
   * The root the batches are built in: always the same object, for a sender that must know it
   * before the first batch (a DoPut sends the schema when it starts).
   */
  public VectorSchemaRoot root() {
    return root;
  }

  /** Rows appended since the last {@link #reset()}. */
  public int rowCount() {
    return rowCount;
  }

  /**
   * A running estimate of the batch's size in Arrow buffers: fixed-width values, offsets and string
   * and binary bytes, counted as they are appended. Validity bitmaps (an eighth of a byte per
   * value) are left out, and a boolean counts as a byte.
   */
  public long estimatedBytes() {
    return estimatedBytes;
  }

  /**
   * Ends the batch: sets the value counts of every vector and returns the root holding the rows
   * appended since the last {@link #reset()}. The root is always the same object and stays owned by
   * the builder; it is valid until the next {@link #reset()} or {@link #close()}. Call {@link
   * #reset()} before appending again.
   *
   * <p>Since {@link #reset()} reuses the buffers, a Flight stream sending the root must copy them
   * during {@code putNext()}, as it does unless zero-copy writes are turned on.
   */
  public VectorSchemaRoot finishBatch() {
    root.setRowCount(rowCount);
    return root;
  }

  /**
   * Empties the root for the next batch. The vectors keep their buffers, zeroed, so batches of a
   * steady size allocate nothing more; buffers that an unusually large batch left behind (more than
   * {@value #RETAINED_PER_ESTIMATED_BYTE} times the finished batch's estimate, and more than twice
   * the initial allocation) are freed and allocated anew, so memory follows the current batch
   * rather than the largest one so far.
   */
  public void reset() {
    long limit = Math.max(2 * initialBytes, RETAINED_PER_ESTIMATED_BYTE * estimatedBytes);
    if (allocator.getAllocatedMemory() > limit) {
      root.clear();
      allocateInitial(root);
    } else {
      for (FieldVector vector : root.getFieldVectors()) {
        vector.reset();
      }
    }
    root.setRowCount(0);
    rowCount = 0;
    estimatedBytes = 0;
  }

  /** Releases the vectors and the builder's allocator. */
  @Override
  public void close() {
    try {
      root.close();
    } finally {
      allocator.close();
    }
  }
}
