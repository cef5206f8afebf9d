package io.flightsql.spark.vector;

import io.flightsql.spark.types.ArrowValueException;
import io.flightsql.spark.types.TypeMappingOptions.Nanoseconds;
import org.apache.arrow.memory.util.Float16;
import org.apache.arrow.vector.FieldVector;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.unsafe.Platform;

/** Columns of fixed-width Arrow values: one value every N bytes of the data buffer. */
final class FixedWidthColumns {
  private FixedWidthColumns() {}

  /** The error for a value with nanoseconds when the user chose {@link Nanoseconds#ERROR}. */
  static ArrowValueException nanosecondsLost(String path, String arrowType, long raw) {
    return new ArrowValueException(
        "Column '"
            + path
            + "' (Arrow "
            + arrowType
            + ") holds the value "
            + raw
            + ", which has nanoseconds that Spark's microseconds cannot hold, and option"
            + " 'nanoseconds' is 'error'. Set it to 'truncate' to read such values truncated to"
            + " the microsecond.");
  }

  /** A column with one data buffer. */
  abstract static class FixedWidthColumn extends ArrowBackedColumnVector {
    long data;

    FixedWidthColumn(DataType type) {
      super(type);
    }

    @Override
    void loadBuffers(FieldVector vector) {
      super.loadBuffers(vector);
      data = valueCount > 0 ? vector.getDataBufferAddress() : 0L;
    }
  }

  /** The Null type: every value is NULL, and there are no buffers to read. */
  static final class NullColumn extends ArrowBackedColumnVector {
    NullColumn() {
      super(DataTypes.NullType);
    }

    @Override
    void loadBuffers(FieldVector vector) {
      valueCount = vector.getValueCount();
      nullCount = valueCount;
    }

    @Override
    public boolean isNullAt(int rowId) {
      return true;
    }
  }

  static final class BooleanColumn extends FixedWidthColumn {
    BooleanColumn() {
      super(DataTypes.BooleanType);
    }

    @Override
    public boolean getBoolean(int rowId) {
      return bit(data, rowId);
    }
  }

  /** arrow.bool8: one byte per value, non-zero for true. */
  static final class Bool8Column extends FixedWidthColumn {
    Bool8Column() {
      super(DataTypes.BooleanType);
    }

    @Override
    public boolean getBoolean(int rowId) {
      return Platform.getByte(null, data + rowId) != 0;
    }
  }

  static final class ByteColumn extends FixedWidthColumn {
    ByteColumn() {
      super(DataTypes.ByteType);
    }

    @Override
    public byte getByte(int rowId) {
      return Platform.getByte(null, data + rowId);
    }
  }

  static final class ShortColumn extends FixedWidthColumn {
    ShortColumn() {
      super(DataTypes.ShortType);
    }

    @Override
    public short getShort(int rowId) {
      return Platform.getShort(null, data + 2L * rowId);
    }
  }

  /**
   * 32-bit integers: int32, date32 (days since the epoch, Spark's DateType too) and interval
   * year_month (months, Spark's YearMonthIntervalType too).
   */
  static final class IntColumn extends FixedWidthColumn {
    IntColumn(DataType type) {
      super(type);
    }

    @Override
    public int getInt(int rowId) {
      return Platform.getInt(null, data + 4L * rowId);
    }
  }

  static final class LongColumn extends FixedWidthColumn {
    LongColumn() {
      super(DataTypes.LongType);
    }

    @Override
    public long getLong(int rowId) {
      return Platform.getLong(null, data + 8L * rowId);
    }
  }

  /** uint8 widened to Spark's short. */
  static final class UInt8Column extends FixedWidthColumn {
    UInt8Column() {
      super(DataTypes.ShortType);
    }

    @Override
    public short getShort(int rowId) {
      return (short) (Platform.getByte(null, data + rowId) & 0xFF);
    }
  }

  /** uint16 widened to Spark's int. */
  static final class UInt16Column extends FixedWidthColumn {
    UInt16Column() {
      super(DataTypes.IntegerType);
    }

    @Override
    public int getInt(int rowId) {
      return Platform.getShort(null, data + 2L * rowId) & 0xFFFF;
    }
  }

  /** uint32 widened to Spark's long. */
  static final class UInt32Column extends FixedWidthColumn {
    UInt32Column() {
      super(DataTypes.LongType);
    }

    @Override
    public long getLong(int rowId) {
      return Platform.getInt(null, data + 4L * rowId) & 0xFFFF_FFFFL;
    }
  }

  /** float16 widened to Spark's float, which holds every half-precision value exactly. */
  static final class Float16Column extends FixedWidthColumn {
    Float16Column() {
      super(DataTypes.FloatType);
    }

    @Override
    public float getFloat(int rowId) {
      return Float16.toFloat(Platform.getShort(null, data + 2L * rowId));
    }
  }

  static final class FloatColumn extends FixedWidthColumn {
    FloatColumn() {
      super(DataTypes.FloatType);
    }

    @Override
    public float getFloat(int rowId) {
      return Platform.getFloat(null, data + 4L * rowId);
    }
  }

  static final class DoubleColumn extends FixedWidthColumn {
    DoubleColumn() {
      super(DataTypes.DoubleType);
    }

    @Override
    public double getDouble(int rowId) {
      return Platform.getDouble(null, data + 8L * rowId);
    }
  }

  /** date64 (milliseconds since the epoch, whole days by the Arrow spec) as Spark's days. */
  static final class Date64Column extends FixedWidthColumn {
    private static final long MILLIS_PER_DAY = 86_400_000L;

    Date64Column() {
      super(DataTypes.DateType);
    }

    @Override
    public int getInt(int rowId) {
      return Math.toIntExact(
          Math.floorDiv(Platform.getLong(null, data + 8L * rowId), MILLIS_PER_DAY));
    }
  }

  /** interval day_time (days and milliseconds) as Spark's day-time interval in microseconds. */
  static final class DayTimeIntervalColumn extends FixedWidthColumn {
    private static final long MICROS_PER_DAY = 86_400_000_000L;

    DayTimeIntervalColumn() {
      super(DataTypes.createDayTimeIntervalType());
    }

    @Override
    public long getLong(int rowId) {
      long address = data + 8L * rowId;
      long days = Platform.getInt(null, address);
      long millis = Platform.getInt(null, address + 4);
      return days * MICROS_PER_DAY + millis * 1_000L;
    }
  }

  /**
   * An integer count of some time unit (timestamps, times, durations) in the unit Spark keeps:
   * {@code floor(raw / divisor) * multiplier}. A divisor above one drops digits below Spark's
   * microsecond: rounding towards the past, so that a pre-1970 instant never moves later, or an
   * error when the user chose {@link Nanoseconds#ERROR}.
   */
  static class ScaledLongColumn extends FixedWidthColumn {
    final String path;
    final String arrowType;
    private final int width;
    private final long divisor;
    private final long multiplier;
    private final boolean failOnTruncation;

    ScaledLongColumn(
        DataType type,
        String path,
        String arrowType,
        int width,
        long divisor,
        long multiplier,
        Nanoseconds nanoseconds) {
      super(type);
      this.path = path;
      this.arrowType = arrowType;
      this.width = width;
      this.divisor = divisor;
      this.multiplier = multiplier;
      this.failOnTruncation = nanoseconds == Nanoseconds.ERROR && divisor > 1;
    }

    @Override
    public long getLong(int rowId) {
      long raw =
          width == 8
              ? Platform.getLong(null, data + 8L * rowId)
              : Platform.getInt(null, data + 4L * rowId);
      if (divisor == 1 && multiplier == 1) {
        return raw;
      }
      if (failOnTruncation && raw % divisor != 0) {
        throw nanosecondsLost(path, arrowType, raw);
      }
      try {
        return Math.multiplyExact(Math.floorDiv(raw, divisor), multiplier);
      } catch (ArithmeticException e) {
        throw new ArrowValueException(
            "Column '"
                + path
                + "' (Arrow "
                + arrowType
                + ") holds the value "
                + raw
                + ", which is outside the range of Spark's "
                + dataType().simpleString()
                + ". Filter or cast it in the query.");
      }
    }
  }

  /**
   * A time of day as Spark's TIME: nanoseconds since midnight, scaled like {@link
   * ScaledLongColumn}. Spark's TIME ends before 24:00:00, which some servers allow as the end of a
   * day (DuckDB's TIME does). Such a value, or a negative one, fails the task here, naming the
   * column; passed on, it would fail later in Spark (when a row is turned into a LocalTime) with no
   * word of where it came from.
   */
  static final class TimeOfDayColumn extends ScaledLongColumn {
    private static final long NANOS_PER_DAY = 86_400_000_000_000L;

    TimeOfDayColumn(
        DataType type,
        String path,
        String arrowType,
        int width,
        long divisor,
        long multiplier,
        Nanoseconds nanoseconds) {
      super(type, path, arrowType, width, divisor, multiplier, nanoseconds);
    }

    @Override
    public long getLong(int rowId) {
      long nanos = super.getLong(rowId);
      if (nanos < 0 || nanos >= NANOS_PER_DAY) {
        throw new ArrowValueException(
            "Column '"
                + path
                + "' (Arrow "
                + arrowType
                + ") holds a time "
                + nanos
                + " ns after midnight, outside the range of Spark's "
                + dataType().simpleString()
                + " (00:00:00 to 23:59:59.999999). Cast it in the query (for example to VARCHAR),"
                + " or set spark.sql.timeType.enabled to false to read times as microseconds"
                + " since midnight.");
      }
      return nanos;
    }
  }
}
