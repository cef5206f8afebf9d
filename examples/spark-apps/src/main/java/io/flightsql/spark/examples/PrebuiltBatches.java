package io.flightsql.spark.examples;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.TimeStampMicroTZVector;
import org.apache.arrow.vector.TimeStampMicroVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorLoader;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.VectorUnloader;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.ipc.message.ArrowRecordBatch;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * A DataFrame's rows as Arrow record batches, built before any timing so that an upload of them
 * costs nothing but the sending: what the raw client of {@link WriteBenchmark} sends. The Arrow
 * types are those the connector gives the same Spark types (docs/types.md), and a batch ends, as
 * the connector's do by default, at 65,536 rows or 3 MiB of values, offsets and string bytes,
 * whichever comes first. Only the column types of the benchmark's data are supported: BIGINT, INT,
 * DOUBLE, DECIMAL, STRING, DATE, TIMESTAMP and TIMESTAMP_NTZ, read from rows with Spark's Java 8
 * date and time classes ({@code spark.sql.datetime.java8API.enabled}).
 *
 * <p>Owns its batches, in a child of the allocator it was built with, until {@link #close()}.
 */
final class PrebuiltBatches implements AutoCloseable {

  static final int BATCH_ROWS = 65_536;
  static final long BATCH_BYTES = 3L << 20;

  private final BufferAllocator allocator;
  private final Schema schema;
  private final List<ArrowRecordBatch> batches;
  private final long rows;
  private final long bytes;

  private PrebuiltBatches(
      BufferAllocator allocator,
      Schema schema,
      List<ArrowRecordBatch> batches,
      long rows,
      long bytes) {
    this.allocator = allocator;
    this.schema = schema;
    this.batches = batches;
    this.rows = rows;
    this.bytes = bytes;
  }

  /** Reads every row of {@code data} (one partition at a time) into batches. */
  static PrebuiltBatches build(Dataset<Row> data, BufferAllocator parent) {
    Schema schema = arrowSchema(data.schema());
    BufferAllocator own = parent.newChildAllocator("prebuilt-batches", 0, Long.MAX_VALUE);
    List<ArrowRecordBatch> batches = new ArrayList<>();
    try (VectorSchemaRoot root = VectorSchemaRoot.create(schema, own)) {
      ColumnSetter[] setters = setters(data.schema(), root);
      long rows = 0;
      long bytes = 0;
      int index = 0;
      long estimated = 0;
      root.allocateNew();
      Iterator<Row> input = data.toLocalIterator();
      while (input.hasNext()) {
        Row row = input.next();
        for (ColumnSetter setter : setters) {
          estimated += setter.set(row, index);
        }
        index++;
        if (index == BATCH_ROWS || estimated >= BATCH_BYTES) {
          bytes += unload(root, index, batches);
          rows += index;
          index = 0;
          estimated = 0;
        }
      }
      if (index > 0) {
        bytes += unload(root, index, batches);
        rows += index;
      }
      return new PrebuiltBatches(own, schema, batches, rows, bytes);
    } catch (RuntimeException | Error e) {
      batches.forEach(ArrowRecordBatch::close);
      own.close();
      throw e;
    }
  }

  /**
   * Moves the root's rows into a record batch, which keeps the buffers, and gives the root new ones
   * for the next batch.
   *
   * @return the batch's bytes of Arrow buffers, counted as the read benchmark counts them
   */
  private static long unload(VectorSchemaRoot root, int rowCount, List<ArrowRecordBatch> batches) {
    root.setRowCount(rowCount);
    long size = 0;
    for (FieldVector vector : root.getFieldVectors()) {
      size += vector.getBufferSize();
    }
    batches.add(new VectorUnloader(root).getRecordBatch());
    root.clear();
    root.allocateNew();
    return size;
  }

  Schema schema() {
    return schema;
  }

  long rows() {
    return rows;
  }

  /** Bytes of Arrow buffers of all batches: the body of their IPC messages. */
  long bytes() {
    return bytes;
  }

  int batchCount() {
    return batches.size();
  }

  /** Rows of the first batch: what a client that cuts its batches by rows alone would send. */
  int firstBatchRows() {
    return batches.isEmpty() ? BATCH_ROWS : batches.get(0).getLength();
  }

  /**
   * A reader that hands out the batches one after the other, in a root of its own, without copying
   * them: what {@code FlightSqlClient.executeIngest} sends. Each upload takes a new one and closes
   * it; the batches stay for the next.
   */
  ArrowReader reader(BufferAllocator readerAllocator) {
    return new Replay(readerAllocator);
  }

  private final class Replay extends ArrowReader {
    private int next;

    Replay(BufferAllocator readerAllocator) {
      super(readerAllocator);
    }

    @Override
    public boolean loadNextBatch() throws IOException {
      if (next == batches.size()) {
        return false;
      }
      VectorSchemaRoot root = getVectorSchemaRoot();
      new VectorLoader(root).load(batches.get(next++));
      return true;
    }

    @Override
    public long bytesRead() {
      return 0;
    }

    @Override
    protected void closeReadSource() {
      // The batches belong to PrebuiltBatches, which keeps them for the next upload.
    }

    @Override
    protected Schema readSchema() {
      return schema;
    }
  }

  @Override
  public void close() {
    try {
      batches.forEach(ArrowRecordBatch::close);
    } finally {
      allocator.close();
    }
  }

  /** Writes one column of a row into its vector; returns the bytes it added, as estimated above. */
  @FunctionalInterface
  private interface ColumnSetter {
    long set(Row row, int index);
  }

  private static Schema arrowSchema(StructType spark) {
    List<Field> fields = new ArrayList<>();
    for (StructField field : spark.fields()) {
      fields.add(
          new Field(field.name(), new FieldType(field.nullable(), arrowType(field), null), null));
    }
    return new Schema(fields);
  }

  private static ArrowType arrowType(StructField field) {
    DataType type = field.dataType();
    if (type.equals(DataTypes.LongType)) {
      return new ArrowType.Int(64, true);
    }
    if (type.equals(DataTypes.IntegerType)) {
      return new ArrowType.Int(32, true);
    }
    if (type.equals(DataTypes.DoubleType)) {
      return new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE);
    }
    if (type instanceof DecimalType decimal) {
      return new ArrowType.Decimal(decimal.precision(), decimal.scale(), 128);
    }
    if (type.equals(DataTypes.StringType)) {
      return ArrowType.Utf8.INSTANCE;
    }
    if (type.equals(DataTypes.DateType)) {
      return new ArrowType.Date(DateUnit.DAY);
    }
    if (type.equals(DataTypes.TimestampType)) {
      return new ArrowType.Timestamp(TimeUnit.MICROSECOND, "UTC");
    }
    if (type.equals(DataTypes.TimestampNTZType)) {
      return new ArrowType.Timestamp(TimeUnit.MICROSECOND, null);
    }
    throw new IllegalArgumentException(
        "Column '"
            + field.name()
            + "' has type "
            + type.sql()
            + ", which the benchmark's raw client does not build; use BIGINT, INT, DOUBLE,"
            + " DECIMAL, STRING, DATE, TIMESTAMP or TIMESTAMP_NTZ");
  }

  private static ColumnSetter[] setters(StructType spark, VectorSchemaRoot root) {
    StructField[] fields = spark.fields();
    ColumnSetter[] setters = new ColumnSetter[fields.length];
    for (int column = 0; column < fields.length; column++) {
      setters[column] = nullable(column, root.getVector(column), setter(column, root));
    }
    return setters;
  }

  private static ColumnSetter nullable(int column, FieldVector vector, ColumnSetter values) {
    return (row, index) -> {
      if (row.isNullAt(column)) {
        vector.setNull(index);
        return 0;
      }
      return values.set(row, index);
    };
  }

  private static ColumnSetter setter(int column, VectorSchemaRoot root) {
    FieldVector vector = root.getVector(column);
    if (vector instanceof BigIntVector longs) {
      return (row, index) -> {
        longs.setSafe(index, row.getLong(column));
        return Long.BYTES;
      };
    }
    if (vector instanceof IntVector ints) {
      return (row, index) -> {
        ints.setSafe(index, row.getInt(column));
        return Integer.BYTES;
      };
    }
    if (vector instanceof Float8Vector doubles) {
      return (row, index) -> {
        doubles.setSafe(index, row.getDouble(column));
        return Double.BYTES;
      };
    }
    if (vector instanceof DecimalVector decimals) {
      return (row, index) -> {
        decimals.setSafe(index, row.getDecimal(column));
        return DecimalVector.TYPE_WIDTH;
      };
    }
    if (vector instanceof VarCharVector strings) {
      return (row, index) -> {
        byte[] utf8 = row.getString(column).getBytes(StandardCharsets.UTF_8);
        strings.setSafe(index, utf8);
        return utf8.length + Integer.BYTES;
      };
    }
    if (vector instanceof DateDayVector dates) {
      return (row, index) -> {
        dates.setSafe(index, Math.toIntExact(row.getLocalDate(column).toEpochDay()));
        return Integer.BYTES;
      };
    }
    if (vector instanceof TimeStampMicroTZVector timestamps) {
      return (row, index) -> {
        Instant instant = row.getInstant(column);
        timestamps.setSafe(index, micros(instant.getEpochSecond(), instant.getNano()));
        return Long.BYTES;
      };
    }
    if (vector instanceof TimeStampMicroVector timestamps) {
      return (row, index) -> {
        LocalDateTime local = row.getAs(column);
        timestamps.setSafe(index, micros(local.toEpochSecond(ZoneOffset.UTC), local.getNano()));
        return Long.BYTES;
      };
    }
    throw new IllegalStateException("No setter for " + vector.getField());
  }

  private static long micros(long epochSecond, int nanos) {
    return Math.addExact(Math.multiplyExact(epochSecond, 1_000_000L), nanos / 1_000);
  }
}
