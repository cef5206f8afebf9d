package io.flightsql.spark.vector;

import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.MapVector;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.SpecializedGetters;
import org.apache.spark.sql.catalyst.util.ArrayData;
import org.apache.spark.sql.catalyst.util.MapData;

/**
 * Writers of values with children: arrays, maps and structs. A NULL list, map or struct is told
 * apart from an empty one, or one whose members are NULL, by the parent's own validity bit.
 */
final class NestedWriters {
  /** Bytes of one 32-bit list offset. */
  private static final int OFFSET_WIDTH = 4;

  private NestedWriters() {}

  /** Arrays: the elements go to the child vector, after the previous list's. */
  static final class ListWriter extends FieldWriter {
    private final ListVector vector;
    private final FieldWriter elements;

    ListWriter(ListVector vector, FieldWriter elements, String path, boolean nullable) {
      super(path, nullable);
      this.vector = vector;
      this.elements = elements;
    }

    @Override
    long writeValue(SpecializedGetters input, int ordinal, int index) {
      ArrayData array = input.getArray(ordinal);
      int size = array.numElements();
      int start = vector.startNewValue(index);
      long bytes = OFFSET_WIDTH;
      for (int i = 0; i < size; i++) {
        bytes += elements.write(array, i, start + i);
      }
      vector.endValue(index, size);
      return bytes;
    }

    @Override
    long writeNull(int index) {
      vector.setNull(index);
      return OFFSET_WIDTH;
    }
  }

  /** Maps: a list of (key, value) entries, each entry a valid struct. */
  static final class MapWriter extends FieldWriter {
    private final MapVector vector;
    private final StructVector entries;
    private final FieldWriter keys;
    private final FieldWriter values;

    MapWriter(
        MapVector vector, FieldWriter keys, FieldWriter values, String path, boolean nullable) {
      super(path, nullable);
      this.vector = vector;
      this.entries = (StructVector) vector.getDataVector();
      this.keys = keys;
      this.values = values;
    }

    @Override
    long writeValue(SpecializedGetters input, int ordinal, int index) {
      MapData map = input.getMap(ordinal);
      int size = map.numElements();
      ArrayData keyArray = map.keyArray();
      ArrayData valueArray = map.valueArray();
      int start = vector.startNewValue(index);
      long bytes = OFFSET_WIDTH;
      for (int i = 0; i < size; i++) {
        int entry = start + i;
        entries.setIndexDefined(entry);
        bytes += keys.write(keyArray, i, entry);
        bytes += values.write(valueArray, i, entry);
      }
      vector.endValue(index, size);
      return bytes;
    }

    @Override
    long writeNull(int index) {
      vector.setNull(index);
      return OFFSET_WIDTH;
    }
  }

  /**
   * Structs: each member goes to its child vector at the struct's own index. A NULL struct still
   * takes a slot in each child, written as NULL, so that the children stay aligned with it.
   */
  static final class StructWriter extends FieldWriter {
    private final StructVector vector;
    private final FieldWriter[] members;

    StructWriter(StructVector vector, FieldWriter[] members, String path, boolean nullable) {
      super(path, nullable);
      this.vector = vector;
      this.members = members;
    }

    @Override
    long writeValue(SpecializedGetters input, int ordinal, int index) {
      InternalRow struct = input.getStruct(ordinal, members.length);
      vector.setIndexDefined(index);
      long bytes = 0;
      for (int i = 0; i < members.length; i++) {
        bytes += members[i].write(struct, i, index);
      }
      return bytes;
    }

    @Override
    long writeNull(int index) {
      vector.setNull(index);
      long bytes = 0;
      for (FieldWriter member : members) {
        bytes += member.writeNull(index);
      }
      return bytes;
    }
  }
}
