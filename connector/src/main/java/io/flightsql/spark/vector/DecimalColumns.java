package io.flightsql.spark.vector;

import io.flightsql.spark.types.ArrowValueException;
import io.flightsql.spark.vector.FixedWidthColumns.FixedWidthColumn;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.unsafe.Platform;
import org.apache.spark.unsafe.types.UTF8String;

/** Columns of Arrow decimals (128 and 256 bits) and of uint64, which reads as a decimal. */
final class DecimalColumns {
  private DecimalColumns() {}

  /**
   * The unscaled value of a little-endian two's complement integer of {@code bytes} bytes. Values
   * of up to 38 digits fit the low 128 bits, the rest of a 256-bit value being its sign.
   */
  static BigInteger unscaled(long address, int bytes, boolean fitsIn128Bits) {
    if (bytes == 16 || fitsIn128Bits) {
      long low = Platform.getLong(null, address);
      long high = Platform.getLong(null, address + 8);
      if (high == (low >> 63)) {
        return BigInteger.valueOf(low);
      }
      return BigInteger.valueOf(high)
          .shiftLeft(64)
          .or(BigInteger.valueOf(low).and(BigInteger.ONE.shiftLeft(64).subtract(BigInteger.ONE)));
    }
    byte[] bigEndian = new byte[bytes];
    for (int i = 0; i < bytes; i++) {
      bigEndian[bytes - 1 - i] = Platform.getByte(null, address + i);
    }
    return new BigInteger(bigEndian);
  }

  /**
   * decimal128 and decimal256 as Spark decimals. When the Spark type has the Arrow scale and at
   * most 18 digits (Spark's compact decimals), each value is the low 64 bits of the integer, with
   * no BigInteger on the way. Otherwise the value is rescaled to the Spark scale (for a negative
   * Arrow scale, or a scale above 38 read with {@code decimalOverflow=null}).
   *
   * <p>A value with more digits than the Spark type holds (which some servers send: DuckDB's
   * HUGEINT travels as decimal128(38, 0) but reaches 39 digits) would become NULL without a word in
   * Spark's row writer. It reads as NULL only when the user chose {@code decimalOverflow=null};
   * otherwise it fails the task, naming the column and the option.
   */
  static final class DecimalColumn extends FixedWidthColumn {
    private final String path;
    private final String arrowType;
    private final int precision;
    private final int scale;
    private final int arrowScale;
    private final int width;
    private final boolean arrowFitsIn128Bits;
    private final boolean compact;
    private final boolean nullOnOverflow;

    DecimalColumn(
        DecimalType type,
        String path,
        org.apache.arrow.vector.types.pojo.ArrowType.Decimal arrow,
        boolean nullOnOverflow) {
      super(type);
      this.path = path;
      this.arrowType = arrow.toString();
      this.precision = type.precision();
      this.scale = type.scale();
      this.arrowScale = arrow.getScale();
      this.width = arrow.getBitWidth() / 8;
      this.arrowFitsIn128Bits = arrow.getPrecision() <= 38;
      this.compact = arrowScale == scale && precision <= Decimal.MAX_LONG_DIGITS();
      this.nullOnOverflow = nullOnOverflow;
    }

    @Override
    public boolean isNullAt(int rowId) {
      return super.isNullAt(rowId)
          || (nullOnOverflow && compactValue(rowId) == null && exact(rowId) == null);
    }

    @Override
    public boolean hasNull() {
      return nullOnOverflow || super.hasNull();
    }

    @Override
    public int numNulls() {
      if (!nullOnOverflow) {
        return super.numNulls();
      }
      int nulls = 0;
      for (int i = 0; i < valueCount; i++) {
        if (isNullAt(i)) {
          nulls++;
        }
      }
      return nulls;
    }

    @Override
    public Decimal getDecimal(int rowId, int precision, int scale) {
      Decimal value = compactValue(rowId);
      if (value != null) {
        return value;
      }
      BigDecimal exact = exact(rowId);
      if (exact == null) {
        if (nullOnOverflow) {
          return null;
        }
        throw tooWide(rowId);
      }
      return Decimal.apply(exact, this.precision, this.scale);
    }

    /**
     * The value when the column is compact, otherwise null. Compact values are not checked here:
     * {@link BatchChecks} has checked each batch's values against the declared precision (at most
     * 18 digits, the high bits the sign) in one pass before any is read, which keeps this, the
     * hottest decimal path, to one load. The wider path below, where DuckDB's HUGEINT does
     * overflow, checks every value as it reads it.
     */
    private Decimal compactValue(int rowId) {
      if (!compact) {
        return null;
      }
      return Decimal.createUnsafe(
          Platform.getLong(null, data + (long) width * rowId), this.precision, this.scale);
    }

    private BigDecimal raw(int rowId) {
      return new BigDecimal(
          unscaled(data + (long) width * rowId, width, arrowFitsIn128Bits), arrowScale);
    }

    /** The value at the Spark scale, or null when the Spark type cannot hold it exactly. */
    private BigDecimal exact(int rowId) {
      BigDecimal value = raw(rowId);
      if (arrowScale != scale) {
        try {
          value = value.setScale(scale, RoundingMode.UNNECESSARY);
        } catch (ArithmeticException digitsLost) {
          return null;
        }
      }
      return value.precision() > precision ? null : value;
    }

    private ArrowValueException tooWide(int rowId) {
      return new ArrowValueException(
          "Column '"
              + path
              + "' (Arrow "
              + arrowType
              + ") holds "
              + raw(rowId).toPlainString()
              + ", which does not fit Spark's "
              + dataType().simpleString()
              + ". Set option 'decimalOverflow' to 'null' to read such values as NULL, or cast"
              + " the column in the query (for example to VARCHAR).");
    }
  }

  /** Decimals wider than 38 digits read as their exact text ({@code decimalOverflow=string}). */
  static final class DecimalTextColumn extends FixedWidthColumn {
    private final int arrowScale;
    private final int width;

    DecimalTextColumn(int arrowScale, int bitWidth) {
      super(DataTypes.StringType);
      this.arrowScale = arrowScale;
      this.width = bitWidth / 8;
    }

    @Override
    public UTF8String getUTF8String(int rowId) {
      BigInteger unscaled = unscaled(data + (long) width * rowId, width, false);
      return UTF8String.fromString(new BigDecimal(unscaled, arrowScale).toPlainString());
    }
  }

  /** uint64 as DECIMAL(20, 0), the narrowest Spark type that holds 2^64 - 1. */
  static final class UInt64Column extends FixedWidthColumn {
    private static final DecimalType TYPE = DataTypes.createDecimalType(20, 0);

    UInt64Column() {
      super(TYPE);
    }

    @Override
    public Decimal getDecimal(int rowId, int precision, int scale) {
      long bits = Platform.getLong(null, data + 8L * rowId);
      if (bits >= 0) {
        return Decimal.apply(bits, TYPE.precision(), 0);
      }
      BigDecimal value = new BigDecimal(new BigInteger(Long.toUnsignedString(bits)));
      return Decimal.apply(value, TYPE.precision(), 0);
    }
  }
}
