package io.flightsql.spark.vector;

import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.spark.sql.catalyst.expressions.SpecializedGetters;
import org.apache.spark.sql.catalyst.expressions.UnsafeRow;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.unsafe.Platform;
import org.apache.spark.unsafe.types.CalendarInterval;

/**
 * Writers of fixed-width values without children: they go straight into the vectors' buffers, after
 * a capacity check, the way the column vectors read them. Strings and binaries are {@link
 * VariableWidthWriters}'.
 */
final class ScalarWriters {
  private ScalarWriters() {}

  static void setBit(long address, int index) {
    long at = address + (index >> 3);
    Platform.putByte(null, at, (byte) (Platform.getByte(null, at) | (1 << (index & 7))));
  }

  static void clearBit(long address, int index) {
    long at = address + (index >> 3);
    Platform.putByte(null, at, (byte) (Platform.getByte(null, at) & ~(1 << (index & 7))));
  }

  /** The Null type: no buffers, every slot NULL; the parent sets the count. */
  static final class NullWriter extends FieldWriter {
    NullWriter(String path) {
      // Every value of the Null type is NULL, whatever the schema says of the column.
      super(path, true);
    }

    @Override
    long writeValue(SpecializedGetters input, int ordinal, int index) {
      return 0;
    }

    @Override
    long writeNull(int index) {
      return 0;
    }
  }

  /** Booleans are bits, which Arrow's own setters pack. */
  static final class BooleanWriter extends FieldWriter {
    private final BitVector vector;

    BooleanWriter(BitVector vector, String path, boolean nullable) {
      super(path, nullable);
      this.vector = vector;
    }

    @Override
    long writeValue(SpecializedGetters input, int ordinal, int index) {
      vector.setSafe(index, input.getBoolean(ordinal) ? 1 : 0);
      return 1;
    }

    @Override
    long writeNull(int index) {
      vector.setNull(index);
      return 1;
    }
  }

  /**
   * A vector of {@code width}-byte values, written at their address. The vector's capacity is
   * computed only when its buffers change (they grow, or the builder allocates anew between
   * batches), not for every value: the buffers it was computed for are kept, and compared by
   * identity, which a buffer freed and allocated anew cannot keep.
   */
  abstract static class FixedWidthWriter extends FieldWriter {
    private final BaseFixedWidthVector vector;
    private final int width;
    private ArrowBuf data;
    private ArrowBuf validity;
    private int capacity;

    FixedWidthWriter(BaseFixedWidthVector vector, int width, String path, boolean nullable) {
      super(path, nullable);
      this.vector = vector;
      this.width = width;
    }

    /** Makes room for slot {@code index} and keeps the buffers it is in. */
    private void ensure(int index) {
      if (index >= capacity
          || vector.getDataBuffer() != data
          || vector.getValidityBuffer() != validity) {
        while (index >= vector.getValueCapacity()) {
          vector.reAlloc();
        }
        data = vector.getDataBuffer();
        validity = vector.getValidityBuffer();
        capacity = vector.getValueCapacity();
      }
    }

    /** Makes room for slot {@code index}, marks it valid and returns the address of its value. */
    final long slot(int index) {
      ensure(index);
      setBit(validity.memoryAddress(), index);
      return data.memoryAddress() + (long) index * width;
    }

    @Override
    final long writeNull(int index) {
      ensure(index);
      clearBit(validity.memoryAddress(), index);
      return width;
    }
  }

  static final class ByteWriter extends FixedWidthWriter {
    ByteWriter(BaseFixedWidthVector vector, String path, boolean nullable) {
      super(vector, 1, path, nullable);
    }

    @Override
    long writeValue(SpecializedGetters input, int ordinal, int index) {
      Platform.putByte(null, slot(index), input.getByte(ordinal));
      return 1;
    }
  }

  static final class ShortWriter extends FixedWidthWriter {
    ShortWriter(BaseFixedWidthVector vector, String path, boolean nullable) {
      super(vector, 2, path, nullable);
    }

    @Override
    long writeValue(SpecializedGetters input, int ordinal, int index) {
      Platform.putShort(null, slot(index), input.getShort(ordinal));
      return 2;
    }
  }

  /** int, and Spark's other ints: days since the epoch, and months of a year-month interval. */
  static final class IntWriter extends FixedWidthWriter {
    IntWriter(BaseFixedWidthVector vector, String path, boolean nullable) {
      super(vector, 4, path, nullable);
    }

    @Override
    long writeValue(SpecializedGetters input, int ordinal, int index) {
      Platform.putInt(null, slot(index), input.getInt(ordinal));
      return 4;
    }
  }

  /**
   * long, and Spark's other longs that Arrow keeps in the same unit: microseconds of timestamps and
   * of day-time intervals.
   */
  static final class LongWriter extends FixedWidthWriter {
    LongWriter(BaseFixedWidthVector vector, String path, boolean nullable) {
      super(vector, 8, path, nullable);
    }

    @Override
    long writeValue(SpecializedGetters input, int ordinal, int index) {
      Platform.putLong(null, slot(index), input.getLong(ordinal));
      return 8;
    }
  }

  static final class FloatWriter extends FixedWidthWriter {
    FloatWriter(BaseFixedWidthVector vector, String path, boolean nullable) {
      super(vector, 4, path, nullable);
    }

    @Override
    long writeValue(SpecializedGetters input, int ordinal, int index) {
      Platform.putFloat(null, slot(index), input.getFloat(ordinal));
      return 4;
    }
  }

  static final class DoubleWriter extends FixedWidthWriter {
    DoubleWriter(BaseFixedWidthVector vector, String path, boolean nullable) {
      super(vector, 8, path, nullable);
    }

    @Override
    long writeValue(SpecializedGetters input, int ordinal, int index) {
      Platform.putDouble(null, slot(index), input.getDouble(ordinal));
      return 8;
    }
  }

  /**
   * Spark's TIME, nanoseconds of the day, in the unit its precision maps to: time32 seconds or
   * milliseconds, time64 microseconds. A TIME(p) value has no digits beyond p, so the division is
   * exact.
   */
  static final class TimeOfDayWriter extends FixedWidthWriter {
    private final long nanosPerUnit;
    private final boolean wide;

    TimeOfDayWriter(BaseFixedWidthVector vector, String path, boolean nullable, TimeUnit unit) {
      super(vector, width(unit), path, nullable);
      this.nanosPerUnit = nanosPer(unit);
      this.wide = width(unit) == 8;
    }

    private static int width(TimeUnit unit) {
      return unit == TimeUnit.SECOND || unit == TimeUnit.MILLISECOND ? 4 : 8;
    }

    private static long nanosPer(TimeUnit unit) {
      switch (unit) {
        case SECOND:
          return 1_000_000_000L;
        case MILLISECOND:
          return 1_000_000L;
        case MICROSECOND:
          return 1_000L;
        default:
          return 1L;
      }
    }

    @Override
    long writeValue(SpecializedGetters input, int ordinal, int index) {
      long units = input.getLong(ordinal) / nanosPerUnit;
      if (wide) {
        Platform.putLong(null, slot(index), units);
        return 8;
      }
      Platform.putInt(null, slot(index), (int) units);
      return 4;
    }
  }

  /**
   * CalendarInterval as month_day_nano: months and days as they are, microseconds as nanoseconds.
   * The 16 bytes are laid out as the reader's {@code CalendarIntervalColumn} reads them.
   */
  static final class CalendarIntervalWriter extends FixedWidthWriter {
    CalendarIntervalWriter(BaseFixedWidthVector vector, String path, boolean nullable) {
      super(vector, 16, path, nullable);
    }

    @Override
    long writeValue(SpecializedGetters input, int ordinal, int index) {
      CalendarInterval interval = input.getInterval(ordinal);
      long nanos;
      try {
        nanos = Math.multiplyExact(interval.microseconds, 1_000L);
      } catch (ArithmeticException e) {
        throw new ArithmeticException(
            "Column '"
                + path
                + "' holds the interval "
                + interval
                + ", whose time part is too long for Arrow's month_day_nano interval (at most"
                + " about 106,751 days in nanoseconds). Move whole days into the interval's days,"
                + " or cast the column to a day-time interval.");
      }
      long address = slot(index);
      Platform.putInt(null, address, interval.months);
      Platform.putInt(null, address + 4, interval.days);
      Platform.putLong(null, address + 8, nanos);
      return 16;
    }
  }

  /**
   * decimal128. A value whose scale or precision differs from the column's is first rescaled as
   * Spark's casts do (rounding half up); one that does not fit fails. Precisions up to 18 take the
   * unscaled long, wider ones a BigDecimal.
   */
  static final class DecimalWriter extends FixedWidthWriter {
    private static final int MAX_LONG_DIGITS = 18;

    private final DecimalVector vector;
    private final int precision;
    private final int scale;
    private final boolean unscaledLong;

    DecimalWriter(DecimalVector vector, String path, boolean nullable) {
      super(vector, 16, path, nullable);
      ArrowType.Decimal type = (ArrowType.Decimal) vector.getField().getType();
      this.vector = vector;
      this.precision = type.getPrecision();
      this.scale = type.getScale();
      this.unscaledLong = precision <= MAX_LONG_DIGITS;
    }

    @Override
    long writeValue(SpecializedGetters input, int ordinal, int index) {
      if (unscaledLong && input instanceof UnsafeRow) {
        // An UnsafeRow keeps a decimal of this precision as its unscaled long, at the column's
        // scale (the column's type is the DataFrame's): what getDecimal would wrap.
        putUnscaled(slot(index), input.getLong(ordinal));
        return 16;
      }
      Decimal value = input.getDecimal(ordinal, precision, scale);
      if (value.scale() != scale || value.precision() > precision) {
        value = rescaled(value);
      }
      if (unscaledLong) {
        putUnscaled(slot(index), value.toUnscaledLong());
      } else {
        vector.setSafe(index, value.toJavaBigDecimal());
      }
      return 16;
    }

    /** A decimal128 holding {@code unscaled}: little-endian, the high half its sign. */
    private static void putUnscaled(long address, long unscaled) {
      Platform.putLong(null, address, unscaled);
      Platform.putLong(null, address + 8, unscaled < 0 ? -1L : 0L);
    }

    private Decimal rescaled(Decimal value) {
      // changePrecision rescales in place, and the row's Decimal is not ours to change.
      Decimal copy = value.clone();
      if (!copy.changePrecision(precision, scale)) {
        throw new ArithmeticException(
            "Column '"
                + path
                + "' is DECIMAL("
                + precision
                + ","
                + scale
                + ") but holds "
                + value.toJavaBigDecimal().toPlainString()
                + ", which does not fit it. Cast the column to a wider decimal before writing.");
      }
      return copy;
    }
  }
}
