package io.flightsql.spark.vector;

import io.flightsql.spark.types.TypeMappingOptions.Nanoseconds;
import io.flightsql.spark.vector.FixedWidthColumns.FixedWidthColumn;
import java.util.List;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.complex.LargeListViewVector;
import org.apache.arrow.vector.complex.ListViewVector;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarArray;
import org.apache.spark.sql.vectorized.ColumnarMap;
import org.apache.spark.unsafe.Platform;

/**
 * Columns with child columns: lists in each Arrow layout, structs, maps, and the month_day_nano
 * interval (whose three parts Spark reads as children). A NULL list, struct or map is told apart
 * from one whose members are NULL by the parent's own validity bitmap.
 */
final class NestedColumns {
  private NestedColumns() {}

  /** How a list layout says where each list starts and how long it is. */
  enum ListLayout {
    /** list: 32-bit offsets, list i spanning offsets[i] to offsets[i + 1]. */
    OFFSETS,
    /** large_list: the same with 64-bit offsets. */
    LARGE_OFFSETS,
    /** fixed_size_list: every list has the same length, back to back. */
    FIXED,
    /** list_view: a 32-bit offset and size per list, in any order and possibly overlapping. */
    VIEWS,
    /** large_list_view: the same with 64-bit offsets and sizes. */
    LARGE_VIEWS
  }

  /** Arrays: each value is a slice of the child column. */
  static final class ListColumn extends ArrowBackedColumnVector {
    private final ArrowBackedColumnVector elements;
    private final ListLayout layout;
    private int listSize;
    private long offsets;
    private long sizes;

    ListColumn(DataType type, ArrowBackedColumnVector elements, ListLayout layout) {
      super(type);
      this.elements = elements;
      this.layout = layout;
    }

    @Override
    void loadBuffers(FieldVector vector) {
      super.loadBuffers(vector);
      switch (layout) {
        case FIXED:
          listSize = ((FixedSizeListVector) vector).getListSize();
          break;
        case VIEWS:
          offsets = valueCount > 0 ? vector.getOffsetBufferAddress() : 0L;
          sizes = valueCount > 0 ? ((ListViewVector) vector).getSizeBufferAddress() : 0L;
          break;
        case LARGE_VIEWS:
          offsets = valueCount > 0 ? vector.getOffsetBufferAddress() : 0L;
          sizes = valueCount > 0 ? ((LargeListViewVector) vector).getSizeBufferAddress() : 0L;
          break;
        default:
          offsets = valueCount > 0 ? vector.getOffsetBufferAddress() : 0L;
      }
      elements.load(vector.getChildrenFromFields().get(0));
    }

    int start(int rowId) {
      switch (layout) {
        case FIXED:
          return listSize * rowId;
        case LARGE_OFFSETS:
        case LARGE_VIEWS:
          return Math.toIntExact(Platform.getLong(null, offsets + 8L * rowId));
        default:
          return Platform.getInt(null, offsets + 4L * rowId);
      }
    }

    int length(int rowId, int start) {
      switch (layout) {
        case FIXED:
          return listSize;
        case OFFSETS:
          return Platform.getInt(null, offsets + 4L * (rowId + 1)) - start;
        case LARGE_OFFSETS:
          return Math.toIntExact(Platform.getLong(null, offsets + 8L * (rowId + 1)) - start);
        case VIEWS:
          return Platform.getInt(null, sizes + 4L * rowId);
        default:
          return Math.toIntExact(Platform.getLong(null, sizes + 8L * rowId));
      }
    }

    @Override
    public ColumnarArray getArray(int rowId) {
      int start = start(rowId);
      return new ColumnarArray(elements, start, length(rowId, start));
    }
  }

  /** Maps: a list of (key, value) entries, read as a slice of the key and value columns. */
  static final class MapColumn extends ArrowBackedColumnVector {
    private final ArrowBackedColumnVector keys;
    private final ArrowBackedColumnVector values;
    private long offsets;

    MapColumn(DataType type, ArrowBackedColumnVector keys, ArrowBackedColumnVector values) {
      super(type);
      this.keys = keys;
      this.values = values;
    }

    @Override
    void loadBuffers(FieldVector vector) {
      super.loadBuffers(vector);
      offsets = valueCount > 0 ? vector.getOffsetBufferAddress() : 0L;
      List<FieldVector> entries = vector.getChildrenFromFields().get(0).getChildrenFromFields();
      keys.load(entries.get(0));
      values.load(entries.get(1));
    }

    @Override
    public ColumnarMap getMap(int rowId) {
      int start = Platform.getInt(null, offsets + 4L * rowId);
      int end = Platform.getInt(null, offsets + 4L * (rowId + 1));
      return new ColumnarMap(keys, values, start, end - start);
    }
  }

  /** Structs: Spark reads each member through {@link #getChild}. */
  static final class StructColumn extends ArrowBackedColumnVector {
    private final ArrowBackedColumnVector[] members;

    StructColumn(DataType type, ArrowBackedColumnVector[] members) {
      super(type);
      this.members = members;
    }

    @Override
    void loadBuffers(FieldVector vector) {
      super.loadBuffers(vector);
      List<FieldVector> children = vector.getChildrenFromFields();
      for (int i = 0; i < members.length; i++) {
        members[i].load(children.get(i));
      }
    }

    @Override
    public ColumnVector getChild(int ordinal) {
      return members[ordinal];
    }
  }

  /**
   * interval month_day_nano as Spark's CalendarInterval. Spark reads an interval as three child
   * columns (months, days, microseconds); here they are views of the same 16-byte values.
   */
  static final class CalendarIntervalColumn extends FixedWidthColumn {
    private final ColumnVector[] parts;

    CalendarIntervalColumn(String path, String arrowType, Nanoseconds nanoseconds) {
      super(DataTypes.CalendarIntervalType);
      this.parts =
          new ColumnVector[] {
            new Part(DataTypes.IntegerType, 0),
            new Part(DataTypes.IntegerType, 4),
            new NanosPart(path, arrowType, nanoseconds == Nanoseconds.ERROR)
          };
    }

    @Override
    public ColumnVector getChild(int ordinal) {
      return parts[ordinal];
    }

    /** One part of the interval; NULL exactly when the interval is. */
    private class Part extends ArrowBackedColumnVector {
      private final int offset;

      Part(DataType type, int offset) {
        super(type);
        this.offset = offset;
      }

      @Override
      public boolean hasNull() {
        return CalendarIntervalColumn.this.hasNull();
      }

      @Override
      public int numNulls() {
        return CalendarIntervalColumn.this.numNulls();
      }

      @Override
      public boolean isNullAt(int rowId) {
        return CalendarIntervalColumn.this.isNullAt(rowId);
      }

      long address(int rowId) {
        return data + 16L * rowId + offset;
      }

      @Override
      public int getInt(int rowId) {
        return Platform.getInt(null, address(rowId));
      }
    }

    /** The nanoseconds part, as Spark's microseconds. */
    private final class NanosPart extends Part {
      private final String path;
      private final String arrowType;
      private final boolean failOnTruncation;

      NanosPart(String path, String arrowType, boolean failOnTruncation) {
        super(DataTypes.LongType, 8);
        this.path = path;
        this.arrowType = arrowType;
        this.failOnTruncation = failOnTruncation;
      }

      @Override
      public long getLong(int rowId) {
        long nanos = Platform.getLong(null, address(rowId));
        if (failOnTruncation && nanos % 1_000L != 0) {
          throw FixedWidthColumns.nanosecondsLost(path, arrowType, nanos);
        }
        return Math.floorDiv(nanos, 1_000L);
      }
    }
  }
}
