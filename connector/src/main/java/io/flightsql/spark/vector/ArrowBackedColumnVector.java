package io.flightsql.spark.vector;

import java.math.BigDecimal;
import java.math.BigInteger;
import org.apache.arrow.vector.BaseLargeVariableWidthVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarArray;
import org.apache.spark.sql.vectorized.ColumnarMap;
import org.apache.spark.unsafe.Platform;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * Spark's view of one Arrow column: a {@link ColumnVector} that reads the connector's own
 * (relocated) Arrow vectors directly from their buffers, with no per-row conversion and no copy
 * of string bytes. Runs on executors; not Serializable.
 *
 * <p>One instance serves a whole stream: {@link #load(FieldVector)} re-points it at the buffers
 * of each new record batch. It never owns Arrow memory: the reader that created it closes the
 * stream and allocator, so {@link #close()} and {@link #closeIfFreeable()} (which Spark 4 calls
 * after each batch) release nothing.
 */
public abstract class ArrowBackedColumnVector extends ColumnVector {
  long validity;
  long data;
  int nullCount;
  int valueCount;

  ArrowBackedColumnVector(DataType type) {
    super(type);
  }

  /**
   * A column vector for a Spark type over an Arrow vector of the matching Arrow type (as decided
   * by {@code ArrowTypeMapping}).
   */
  public static ArrowBackedColumnVector create(DataType sparkType, ArrowType arrowType) {
    if (sparkType == DataTypes.BooleanType) {
      return new BooleanColumn();
    }
    if (sparkType == DataTypes.ByteType) {
      return new ByteColumn();
    }
    if (sparkType == DataTypes.ShortType) {
      return new ShortColumn();
    }
    if (sparkType == DataTypes.IntegerType || sparkType == DataTypes.DateType) {
      return new IntColumn(sparkType);
    }
    if (sparkType == DataTypes.LongType) {
      return new LongColumn();
    }
    if (sparkType == DataTypes.FloatType) {
      return new FloatColumn();
    }
    if (sparkType == DataTypes.DoubleType) {
      return new DoubleColumn();
    }
    if (sparkType instanceof DecimalType) {
      return new DecimalColumn((DecimalType) sparkType);
    }
    if (sparkType == DataTypes.StringType) {
      return new StringColumn(arrowType.getTypeID() == ArrowType.ArrowTypeID.LargeUtf8);
    }
    if (sparkType == DataTypes.BinaryType) {
      return new BinaryColumn(arrowType.getTypeID() == ArrowType.ArrowTypeID.LargeBinary);
    }
    if (sparkType == DataTypes.TimestampType || sparkType == DataTypes.TimestampNTZType) {
      return new TimestampColumn(sparkType, ((ArrowType.Timestamp) arrowType).getUnit());
    }
    throw new IllegalArgumentException(
        "No column vector for Spark type " + sparkType + " over Arrow type " + arrowType);
  }

  /** Points this column at the buffers of the vector's current batch. */
  public void load(FieldVector vector) {
    valueCount = vector.getValueCount();
    nullCount = vector.getNullCount();
    validity = nullCount > 0 ? vector.getValidityBufferAddress() : 0L;
    data = valueCount > 0 ? vector.getDataBufferAddress() : 0L;
  }

  @Override
  public final boolean hasNull() {
    return nullCount > 0;
  }

  @Override
  public final int numNulls() {
    return nullCount;
  }

  @Override
  public final boolean isNullAt(int rowId) {
    return nullCount > 0 && !bit(validity, rowId);
  }

  static boolean bit(long address, int index) {
    return ((Platform.getByte(null, address + (index >> 3)) >> (index & 7)) & 1) != 0;
  }

  /** The Arrow buffers belong to the reader; nothing to release here. */
  @Override
  public final void close() {}

  /** Spark 4 calls this after each batch; the vectors stay valid until the reader moves on. */
  @Override
  public final void closeIfFreeable() {}

  private UnsupportedOperationException wrongAccessor(String accessor) {
    return new UnsupportedOperationException(
        accessor + " is not supported on a " + dataType().simpleString() + " column");
  }

  @Override
  public boolean getBoolean(int rowId) {
    throw wrongAccessor("getBoolean");
  }

  @Override
  public byte getByte(int rowId) {
    throw wrongAccessor("getByte");
  }

  @Override
  public short getShort(int rowId) {
    throw wrongAccessor("getShort");
  }

  @Override
  public int getInt(int rowId) {
    throw wrongAccessor("getInt");
  }

  @Override
  public long getLong(int rowId) {
    throw wrongAccessor("getLong");
  }

  @Override
  public float getFloat(int rowId) {
    throw wrongAccessor("getFloat");
  }

  @Override
  public double getDouble(int rowId) {
    throw wrongAccessor("getDouble");
  }

  @Override
  public ColumnarArray getArray(int rowId) {
    throw wrongAccessor("getArray");
  }

  @Override
  public ColumnarMap getMap(int rowId) {
    throw wrongAccessor("getMap");
  }

  @Override
  public Decimal getDecimal(int rowId, int precision, int scale) {
    throw wrongAccessor("getDecimal");
  }

  @Override
  public UTF8String getUTF8String(int rowId) {
    throw wrongAccessor("getUTF8String");
  }

  @Override
  public byte[] getBinary(int rowId) {
    throw wrongAccessor("getBinary");
  }

  @Override
  public ColumnVector getChild(int ordinal) {
    throw wrongAccessor("getChild");
  }

  static final class BooleanColumn extends ArrowBackedColumnVector {
    BooleanColumn() {
      super(DataTypes.BooleanType);
    }

    @Override
    public boolean getBoolean(int rowId) {
      return bit(data, rowId);
    }
  }

  static final class ByteColumn extends ArrowBackedColumnVector {
    ByteColumn() {
      super(DataTypes.ByteType);
    }

    @Override
    public byte getByte(int rowId) {
      return Platform.getByte(null, data + rowId);
    }
  }

  static final class ShortColumn extends ArrowBackedColumnVector {
    ShortColumn() {
      super(DataTypes.ShortType);
    }

    @Override
    public short getShort(int rowId) {
      return Platform.getShort(null, data + 2L * rowId);
    }
  }

  /** int32, and date32 (days since the epoch, which is Spark's DateType too). */
  static final class IntColumn extends ArrowBackedColumnVector {
    IntColumn(DataType type) {
      super(type);
    }

    @Override
    public int getInt(int rowId) {
      return Platform.getInt(null, data + 4L * rowId);
    }
  }

  static final class LongColumn extends ArrowBackedColumnVector {
    LongColumn() {
      super(DataTypes.LongType);
    }

    @Override
    public long getLong(int rowId) {
      return Platform.getLong(null, data + 8L * rowId);
    }
  }

  static final class FloatColumn extends ArrowBackedColumnVector {
    FloatColumn() {
      super(DataTypes.FloatType);
    }

    @Override
    public float getFloat(int rowId) {
      return Platform.getFloat(null, data + 4L * rowId);
    }
  }

  static final class DoubleColumn extends ArrowBackedColumnVector {
    DoubleColumn() {
      super(DataTypes.DoubleType);
    }

    @Override
    public double getDouble(int rowId) {
      return Platform.getDouble(null, data + 8L * rowId);
    }
  }

  /**
   * Arrow timestamps in any unit as Spark's microseconds since the epoch. Nanoseconds are
   * truncated towards negative infinity, so a pre-1970 instant never moves later.
   */
  static final class TimestampColumn extends ArrowBackedColumnVector {
    private final long multiplier;
    private final long divisor;

    TimestampColumn(DataType type, TimeUnit unit) {
      super(type);
      switch (unit) {
        case SECOND:
          multiplier = 1_000_000L;
          divisor = 1L;
          break;
        case MILLISECOND:
          multiplier = 1_000L;
          divisor = 1L;
          break;
        case MICROSECOND:
          multiplier = 1L;
          divisor = 1L;
          break;
        case NANOSECOND:
          multiplier = 1L;
          divisor = 1_000L;
          break;
        default:
          throw new IllegalArgumentException("Unknown timestamp unit " + unit);
      }
    }

    @Override
    public long getLong(int rowId) {
      long raw = Platform.getLong(null, data + 8L * rowId);
      return divisor == 1L ? Math.multiplyExact(raw, multiplier) : Math.floorDiv(raw, divisor);
    }
  }

  /**
   * decimal128 as Spark decimals. Values whose precision fits a long (up to 18 digits) are read as
   * the low 64 bits of the 128-bit two's complement integer, with no BigInteger on the way.
   */
  static final class DecimalColumn extends ArrowBackedColumnVector {
    private final int precision;
    private final int scale;

    DecimalColumn(DecimalType type) {
      super(type);
      this.precision = type.precision();
      this.scale = type.scale();
    }

    @Override
    public Decimal getDecimal(int rowId, int precision, int scale) {
      long address = data + 16L * rowId;
      if (this.precision <= Decimal.MAX_LONG_DIGITS()) {
        return Decimal.createUnsafe(Platform.getLong(null, address), this.precision, this.scale);
      }
      long low = Platform.getLong(null, address);
      long high = Platform.getLong(null, address + 8);
      BigInteger unscaled =
          BigInteger.valueOf(high)
              .shiftLeft(64)
              .add(BigInteger.valueOf(low >>> 1).shiftLeft(1).add(BigInteger.valueOf(low & 1L)));
      return Decimal.apply(new BigDecimal(unscaled, this.scale), this.precision, this.scale);
    }
  }

  /** Variable-width columns: 32-bit offsets, or 64-bit for the large types. */
  abstract static class VariableWidthColumn extends ArrowBackedColumnVector {
    private final boolean largeOffsets;
    long offsets;

    VariableWidthColumn(DataType type, boolean largeOffsets) {
      super(type);
      this.largeOffsets = largeOffsets;
    }

    @Override
    public void load(FieldVector vector) {
      super.load(vector);
      offsets = valueCount > 0 ? vector.getOffsetBufferAddress() : 0L;
    }

    final long start(int rowId) {
      return largeOffsets
          ? Platform.getLong(null, offsets + (long) BaseLargeVariableWidthVector.OFFSET_WIDTH * rowId)
          : Platform.getInt(null, offsets + 4L * rowId);
    }

    final int length(int rowId, long start) {
      long end =
          largeOffsets
              ? Platform.getLong(
                  null, offsets + (long) BaseLargeVariableWidthVector.OFFSET_WIDTH * (rowId + 1))
              : Platform.getInt(null, offsets + 4L * (rowId + 1));
      return Math.toIntExact(end - start);
    }
  }

  static final class StringColumn extends VariableWidthColumn {
    StringColumn(boolean largeOffsets) {
      super(DataTypes.StringType, largeOffsets);
    }

    /** A UTF8String over the Arrow data buffer itself: valid while this batch is. */
    @Override
    public UTF8String getUTF8String(int rowId) {
      long start = start(rowId);
      return UTF8String.fromAddress(null, data + start, length(rowId, start));
    }
  }

  static final class BinaryColumn extends VariableWidthColumn {
    BinaryColumn(boolean largeOffsets) {
      super(DataTypes.BinaryType, largeOffsets);
    }

    @Override
    public byte[] getBinary(int rowId) {
      long start = start(rowId);
      byte[] bytes = new byte[length(rowId, start)];
      Platform.copyMemory(null, data + start, bytes, Platform.BYTE_ARRAY_OFFSET, bytes.length);
      return bytes;
    }
  }
}
