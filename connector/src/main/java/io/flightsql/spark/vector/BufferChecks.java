package io.flightsql.spark.vector;

import java.math.BigDecimal;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.vector.ValueVector;
import org.apache.spark.unsafe.Platform;

/**
 * The loops of {@link BatchChecks}: each reads one buffer from start to end once, after its
 * capacity was checked, and returns a description of the first problem it finds, or null. Values of
 * NULL rows are skipped where the format leaves them undefined (views, indices, decimals): the
 * columns never read them. Offsets are checked for every row, as the format requires.
 */
final class BufferChecks {
  /** 10^p for p = 0..18, the bounds of decimals read as 64-bit integers. */
  private static final long[] POWERS_OF_TEN = new long[19];

  static {
    POWERS_OF_TEN[0] = 1L;
    for (int i = 1; i < POWERS_OF_TEN.length; i++) {
      POWERS_OF_TEN[i] = POWERS_OF_TEN[i - 1] * 10L;
    }
  }

  private BufferChecks() {}

  /** A buffer of {@code needed} bytes or more, or the problem. */
  static String capacity(ArrowBuf buffer, long needed, String name, int values) {
    long capacity = buffer == null ? 0 : buffer.capacity();
    if (capacity >= needed) {
      return null;
    }
    return "its "
        + name
        + " buffer holds "
        + capacity
        + " bytes, fewer than the "
        + needed
        + " that "
        + values
        + " values need";
  }

  /**
   * The {@code count + 1} offsets of {@code count} values, each {@code width} bytes: the first not
   * negative, none smaller than the one before, the last at most {@code limit}.
   */
  static String offsets(ArrowBuf buffer, int count, int width, long limit, String limitName) {
    if (count == 0) {
      return null;
    }
    String problem = capacity(buffer, (long) (count + 1) * width, "offset", count + 1);
    if (problem != null) {
      return problem;
    }
    long address = buffer.memoryAddress();
    long previous = width == 4 ? Platform.getInt(null, address) : Platform.getLong(null, address);
    if (previous < 0) {
      return "offset 0 is negative (" + previous + ")";
    }
    for (int i = 1; i <= count; i++) {
      long current =
          width == 4
              ? Platform.getInt(null, address + 4L * i)
              : Platform.getLong(null, address + 8L * i);
      if (current < previous) {
        return "offsets "
            + (i - 1)
            + " and "
            + i
            + " decrease ("
            + previous
            + ", then "
            + current
            + ")";
      }
      previous = current;
    }
    if (previous > limit) {
      return "offset " + count + " (" + previous + ") is past the end of its " + limitName;
    }
    return null;
  }

  /**
   * The 16-byte views of string_view and binary_view: a length, and for values over 12 bytes a data
   * buffer index and an offset whose range lies in that buffer.
   */
  static String views(ArrowBuf views, ArrowBuf[] data, int count, ValueVector nulls) {
    String problem = capacity(views, 16L * count, "view", count);
    if (problem != null) {
      return problem;
    }
    long address = views.memoryAddress();
    for (int i = 0; i < count; i++) {
      long view = address + 16L * i;
      int length = Platform.getInt(null, view);
      if (length <= 12 && length >= 0) {
        continue;
      }
      String wrong = null;
      if (length < 0) {
        wrong = "has a negative length (" + length + ")";
      } else {
        int buffer = Platform.getInt(null, view + 8);
        int offset = Platform.getInt(null, view + 12);
        if (buffer < 0 || buffer >= data.length) {
          wrong = "points into data buffer " + buffer + ", but the column has " + data.length;
        } else if (offset < 0 || offset + (long) length > data[buffer].capacity()) {
          wrong =
              "spans bytes "
                  + offset
                  + " to "
                  + (offset + (long) length)
                  + " of data buffer "
                  + buffer
                  + ", which holds "
                  + data[buffer].capacity();
        }
      }
      if (wrong != null && !nulls.isNull(i)) {
        return "the view of row " + i + " " + wrong;
      }
    }
    return null;
  }

  /**
   * The offsets and sizes of list_view and large_list_view: each non-NULL list lies within the
   * {@code elements} of the child.
   */
  static String listViews(
      ArrowBuf offsets, ArrowBuf sizes, int width, int count, long elements, ValueVector nulls) {
    String problem = capacity(offsets, (long) width * count, "offset", count);
    if (problem == null) {
      problem = capacity(sizes, (long) width * count, "size", count);
    }
    if (problem != null) {
      return problem;
    }
    for (int i = 0; i < count; i++) {
      long offset = read(offsets.memoryAddress(), width, i);
      long size = read(sizes.memoryAddress(), width, i);
      if ((offset < 0 || size < 0 || offset + size > elements) && !nulls.isNull(i)) {
        return "row "
            + i
            + " spans elements "
            + offset
            + " to "
            + (offset + size)
            + " of a child of "
            + elements;
      }
    }
    return null;
  }

  /** Indices of {@code bits} bits into something of {@code size} entries, for non-NULL rows. */
  static String indices(
      long address, int bits, boolean signed, int count, long size, ValueVector nulls) {
    for (int i = 0; i < count; i++) {
      long index = IndirectColumn.readIndex(address, bits, signed, i);
      if ((index < 0 || index >= size) && !nulls.isNull(i)) {
        return "row " + i + " has index " + index;
      }
    }
    return null;
  }

  /**
   * Run ends: at least one run for a non-empty batch, each end above the one before (the first
   * above 0), the last at least the row count.
   */
  static String runEnds(long address, int bits, int runs, int rows) {
    if (rows == 0) {
      return null;
    }
    if (runs == 0) {
      return "it has " + rows + " rows but no runs";
    }
    long previous = 0;
    for (int i = 0; i < runs; i++) {
      long end = IndirectColumn.readIndex(address, bits, true, i);
      if (end <= previous) {
        return "run end "
            + i
            + " ("
            + end
            + ") is not above "
            + (i == 0 ? "0" : "run end " + (i - 1) + " (" + previous + ")");
      }
      previous = end;
    }
    if (previous < rows) {
      return "the last run ends at row " + previous + ", short of the batch's " + rows + " rows";
    }
    return null;
  }

  /**
   * Decimals of up to 18 digits, which the columns read as 64-bit integers: the bits above are the
   * sign, and the value has at most {@code precision} digits. A decimal256 of up to 38 digits, read
   * from its low 128 bits, has the sign in the bits above them. Wider decimals are read through
   * BigInteger, and each value is checked against the Spark type as it is read.
   */
  static String decimals(
      long address, int width, int precision, int scale, int count, ValueVector nulls) {
    if (precision > 38 || (width == 16 && precision > 18)) {
      return null;
    }
    long bound = precision <= 18 ? POWERS_OF_TEN[precision] : 0L;
    for (int i = 0; i < count; i++) {
      long base = address + (long) width * i;
      boolean fits;
      if (precision <= 18) {
        long low = Platform.getLong(null, base);
        long sign = low >> 63;
        fits = low < bound && low > -bound && Platform.getLong(null, base + 8) == sign;
        if (width == 32) {
          fits &=
              Platform.getLong(null, base + 16) == sign
                  && Platform.getLong(null, base + 24) == sign;
        }
      } else {
        long sign = Platform.getLong(null, base + 8) >> 63;
        fits =
            Platform.getLong(null, base + 16) == sign && Platform.getLong(null, base + 24) == sign;
      }
      if (!fits && !nulls.isNull(i)) {
        BigDecimal value = new BigDecimal(DecimalColumns.unscaled(base, width, false), scale);
        return "row "
            + i
            + " holds "
            + value.toPlainString()
            + ", more digits than the type's precision of "
            + precision;
      }
    }
    return null;
  }

  private static long read(long address, int width, int index) {
    return width == 4
        ? Platform.getInt(null, address + 4L * index)
        : Platform.getLong(null, address + 8L * index);
  }
}
