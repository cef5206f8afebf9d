package io.flightsql.spark.vector;

import io.flightsql.spark.vector.FixedWidthColumns.FixedWidthColumn;
import java.util.List;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.vector.BaseLargeVariableWidthVector;
import org.apache.arrow.vector.BaseVariableWidthViewVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.unsafe.Platform;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * Columns of strings and byte strings in each Arrow layout: offsets (32 or 64 bits), views, and
 * fixed-size binary. Strings are never copied: each value is a {@link UTF8String} over the Arrow
 * buffer itself, valid while the batch is. Spark's {@code getBinary} returns a fresh array, so
 * binary values are copied once.
 */
final class BinaryColumns {
  private BinaryColumns() {}

  private static byte[] copy(long address, int length) {
    byte[] bytes = new byte[length];
    Platform.copyMemory(null, address, bytes, Platform.BYTE_ARRAY_OFFSET, length);
    return bytes;
  }

  /** utf8, large_utf8, binary, large_binary: values back to back, with offsets between them. */
  static final class OffsetColumn extends FixedWidthColumn {
    private final boolean largeOffsets;
    private long offsets;

    OffsetColumn(DataType type, boolean largeOffsets) {
      super(type);
      this.largeOffsets = largeOffsets;
    }

    @Override
    void loadBuffers(FieldVector vector) {
      super.loadBuffers(vector);
      offsets = valueCount > 0 ? vector.getOffsetBufferAddress() : 0L;
    }

    private long offset(int index) {
      return largeOffsets
          ? Platform.getLong(
              null, offsets + (long) BaseLargeVariableWidthVector.OFFSET_WIDTH * index)
          : Platform.getInt(null, offsets + 4L * index);
    }

    @Override
    public UTF8String getUTF8String(int rowId) {
      long start = offset(rowId);
      return UTF8String.fromAddress(null, data + start, Math.toIntExact(offset(rowId + 1) - start));
    }

    @Override
    public byte[] getBinary(int rowId) {
      long start = offset(rowId);
      return copy(data + start, Math.toIntExact(offset(rowId + 1) - start));
    }
  }

  /**
   * utf8_view and binary_view: a 16-byte view per value holding its length and, for values of up to
   * 12 bytes, the bytes themselves; longer values point into one of several data buffers.
   */
  static final class ViewColumn extends ArrowBackedColumnVector {
    private static final int INLINE_SIZE = BaseVariableWidthViewVector.INLINE_SIZE;
    private static final int VIEW_SIZE = BaseVariableWidthViewVector.ELEMENT_SIZE;

    private long views;
    private long[] dataBuffers = new long[0];

    ViewColumn(DataType type) {
      super(type);
    }

    @Override
    void loadBuffers(FieldVector vector) {
      super.loadBuffers(vector);
      BaseVariableWidthViewVector viewVector = (BaseVariableWidthViewVector) vector;
      views = valueCount > 0 ? viewVector.getDataBufferAddress() : 0L;
      List<ArrowBuf> buffers = viewVector.getDataBuffers();
      if (dataBuffers.length != buffers.size()) {
        dataBuffers = new long[buffers.size()];
      }
      for (int i = 0; i < dataBuffers.length; i++) {
        dataBuffers[i] = buffers.get(i).memoryAddress();
      }
    }

    private long address(int rowId, int length) {
      long view = views + (long) VIEW_SIZE * rowId;
      if (length <= INLINE_SIZE) {
        return view + 4;
      }
      int buffer = Platform.getInt(null, view + 8);
      int offset = Platform.getInt(null, view + 12);
      return dataBuffers[buffer] + offset;
    }

    private int length(int rowId) {
      return Platform.getInt(null, views + (long) VIEW_SIZE * rowId);
    }

    @Override
    public UTF8String getUTF8String(int rowId) {
      int length = length(rowId);
      return UTF8String.fromAddress(null, address(rowId, length), length);
    }

    @Override
    public byte[] getBinary(int rowId) {
      int length = length(rowId);
      return copy(address(rowId, length), length);
    }
  }

  static final class FixedSizeBinaryColumn extends FixedWidthColumn {
    private final int width;

    FixedSizeBinaryColumn(int width) {
      super(DataTypes.BinaryType);
      this.width = width;
    }

    @Override
    public byte[] getBinary(int rowId) {
      return copy(data + (long) width * rowId, width);
    }
  }
}
