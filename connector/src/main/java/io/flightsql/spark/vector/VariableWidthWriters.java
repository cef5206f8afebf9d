package io.flightsql.spark.vector;

import static io.flightsql.spark.vector.ScalarWriters.clearBit;
import static io.flightsql.spark.vector.ScalarWriters.setBit;

import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.spark.sql.catalyst.expressions.SpecializedGetters;
import org.apache.spark.unsafe.Platform;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * Writers of variable-width values without children (strings and binaries): the bytes are copied
 * from wherever Spark keeps them straight into the vector's data buffer, the way the column vectors
 * read them.
 */
final class VariableWidthWriters {
  private VariableWidthWriters() {}

  /**
   * Variable-width values: the bytes are copied into the data buffer and the slot's end offset is
   * written after them. The start is the previous slot's end, which the offsets buffer holds since
   * every slot is written in order.
   */
  abstract static class VariableWidthWriter extends FieldWriter {
    private static final int OFFSET_WIDTH = 4;

    private final BaseVariableWidthVector vector;
    private ArrowBuf offsets;
    private ArrowBuf validity;
    private int capacity;

    VariableWidthWriter(BaseVariableWidthVector vector, String path, boolean nullable) {
      super(path, nullable);
      this.vector = vector;
    }

    /**
     * Makes room for slot {@code index} in the offsets and validity buffers and keeps them; as in
     * {@link ScalarWriters.FixedWidthWriter}, the capacity is computed again only when they change.
     */
    private void ensure(int index) {
      if (index >= capacity
          || vector.getOffsetBuffer() != offsets
          || vector.getValidityBuffer() != validity) {
        while (index >= vector.getValueCapacity()) {
          vector.reallocValidityAndOffsetBuffers();
        }
        offsets = vector.getOffsetBuffer();
        validity = vector.getValidityBuffer();
        capacity = vector.getValueCapacity();
      }
    }

    final long writeBytes(Object base, long offset, int length, int index) {
      ensure(index);
      long offsetsAddress = offsets.memoryAddress();
      int start = Platform.getInt(null, offsetsAddress + (long) OFFSET_WIDTH * index);
      long end = (long) start + length;
      ArrowBuf data = vector.getDataBuffer();
      if (end > data.capacity()) {
        growData(end);
        data = vector.getDataBuffer();
      }
      Platform.copyMemory(base, offset, null, data.memoryAddress() + start, length);
      Platform.putInt(null, offsetsAddress + (long) OFFSET_WIDTH * (index + 1), (int) end);
      setBit(validity.memoryAddress(), index);
      vector.setLastSet(index);
      return OFFSET_WIDTH + length;
    }

    private void growData(long end) {
      if (end > Integer.MAX_VALUE) {
        throw new IllegalStateException(
            "Column '"
                + path
                + "' would hold more than 2 GiB of data in one Arrow batch, beyond its 32-bit"
                + " offsets. Lower the batch's byte limit so that batches are sent sooner.");
      }
      vector.reallocDataBuffer(end);
    }

    @Override
    final long writeNull(int index) {
      ensure(index);
      long offsetsAddress = offsets.memoryAddress();
      int start = Platform.getInt(null, offsetsAddress + (long) OFFSET_WIDTH * index);
      Platform.putInt(null, offsetsAddress + (long) OFFSET_WIDTH * (index + 1), start);
      clearBit(validity.memoryAddress(), index);
      vector.setLastSet(index);
      return OFFSET_WIDTH;
    }
  }

  /** Strings: the UTF-8 bytes are copied from wherever the UTF8String keeps them, no String. */
  static final class StringWriter extends VariableWidthWriter {
    StringWriter(BaseVariableWidthVector vector, String path, boolean nullable) {
      super(vector, path, nullable);
    }

    @Override
    long writeValue(SpecializedGetters input, int ordinal, int index) {
      UTF8String value = input.getUTF8String(ordinal);
      return writeBytes(value.getBaseObject(), value.getBaseOffset(), value.numBytes(), index);
    }
  }

  static final class BinaryWriter extends VariableWidthWriter {
    BinaryWriter(BaseVariableWidthVector vector, String path, boolean nullable) {
      super(vector, path, nullable);
    }

    @Override
    long writeValue(SpecializedGetters input, int ordinal, int index) {
      byte[] value = input.getBinary(ordinal);
      return writeBytes(value, Platform.BYTE_ARRAY_OFFSET, value.length, index);
    }
  }
}
