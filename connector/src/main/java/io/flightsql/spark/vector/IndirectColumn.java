package io.flightsql.spark.vector;

import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarArray;
import org.apache.spark.sql.vectorized.ColumnarMap;
import org.apache.spark.unsafe.Platform;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * A column whose values live in another column, found row by row, and which sends each access on to
 * the value that row points at. Its layouts are {@link DictionaryColumn} (through the indices),
 * {@link UnionColumn} (through the type ids and offsets) and {@link RunEndColumn} (through the run
 * ends). Nothing is decoded ahead; each access reads the one value asked for, in whichever layout
 * holds it. Struct values are read through {@link #getChild}, whose columns route the same way.
 */
abstract class IndirectColumn extends ArrowBackedColumnVector {
  private ColumnVector[] children;

  IndirectColumn(DataType type) {
    super(type);
  }

  /**
   * Reads one integer of any Arrow integer type (a dictionary index, a run end) as a long. Unsigned
   * 64-bit values beyond {@code Long.MAX_VALUE} come out negative.
   */
  static long readIndex(long address, int bitWidth, boolean signed, int rowId) {
    switch (bitWidth) {
      case 8:
        byte b = Platform.getByte(null, address + rowId);
        return signed ? b : b & 0xFF;
      case 16:
        short s = Platform.getShort(null, address + 2L * rowId);
        return signed ? s : s & 0xFFFF;
      case 32:
        int i = Platform.getInt(null, address + 4L * rowId);
        return signed ? i : i & 0xFFFF_FFFFL;
      default:
        return Platform.getLong(null, address + 8L * rowId);
    }
  }

  /** The column holding the row's value, or null when the row's value is NULL by its kind. */
  abstract ColumnVector target(int rowId);

  /** The row of {@link #target} holding the value. */
  abstract int targetRow(int rowId);

  /** How many rows the current batch has. */
  int rows() {
    return valueCount;
  }

  /** Whether the row itself (rather than the value it points at) is NULL. */
  boolean ownNull(int rowId) {
    return super.isNullAt(rowId);
  }

  @Override
  public final boolean isNullAt(int rowId) {
    if (ownNull(rowId)) {
      return true;
    }
    ColumnVector target = target(rowId);
    return target == null || target.isNullAt(targetRow(rowId));
  }

  @Override
  public final boolean hasNull() {
    return numNulls() > 0;
  }

  @Override
  public final int numNulls() {
    int nulls = 0;
    int rows = rows();
    for (int i = 0; i < rows; i++) {
      if (isNullAt(i)) {
        nulls++;
      }
    }
    return nulls;
  }

  @Override
  public boolean getBoolean(int rowId) {
    return target(rowId).getBoolean(targetRow(rowId));
  }

  @Override
  public byte getByte(int rowId) {
    return target(rowId).getByte(targetRow(rowId));
  }

  @Override
  public short getShort(int rowId) {
    return target(rowId).getShort(targetRow(rowId));
  }

  @Override
  public int getInt(int rowId) {
    return target(rowId).getInt(targetRow(rowId));
  }

  @Override
  public long getLong(int rowId) {
    return target(rowId).getLong(targetRow(rowId));
  }

  @Override
  public float getFloat(int rowId) {
    return target(rowId).getFloat(targetRow(rowId));
  }

  @Override
  public double getDouble(int rowId) {
    return target(rowId).getDouble(targetRow(rowId));
  }

  @Override
  public ColumnarArray getArray(int rowId) {
    return target(rowId).getArray(targetRow(rowId));
  }

  @Override
  public ColumnarMap getMap(int rowId) {
    return target(rowId).getMap(targetRow(rowId));
  }

  @Override
  public Decimal getDecimal(int rowId, int precision, int scale) {
    return target(rowId).getDecimal(targetRow(rowId), precision, scale);
  }

  @Override
  public UTF8String getUTF8String(int rowId) {
    return target(rowId).getUTF8String(targetRow(rowId));
  }

  @Override
  public byte[] getBinary(int rowId) {
    return target(rowId).getBinary(targetRow(rowId));
  }

  /** The members of struct values, and the parts of calendar intervals, routed like this column. */
  @Override
  public ColumnVector getChild(int ordinal) {
    if (children == null) {
      int count = dataType() instanceof StructType ? ((StructType) dataType()).fields().length : 3;
      children = new ColumnVector[count];
    }
    if (children[ordinal] == null) {
      children[ordinal] = new ChildOfIndirect(this, ordinal);
    }
    return children[ordinal];
  }

  /** Member {@code ordinal} of the values an indirect column routes to. */
  private static final class ChildOfIndirect extends IndirectColumn {
    private final IndirectColumn parent;
    private final int ordinal;

    ChildOfIndirect(IndirectColumn parent, int ordinal) {
      super(childType(parent.dataType(), ordinal));
      this.parent = parent;
      this.ordinal = ordinal;
    }

    private static DataType childType(DataType parentType, int ordinal) {
      if (parentType instanceof StructType) {
        return ((StructType) parentType).fields()[ordinal].dataType();
      }
      // The parts of a calendar interval: months, days, microseconds.
      return ordinal == 2 ? DataTypes.LongType : DataTypes.IntegerType;
    }

    @Override
    boolean ownNull(int rowId) {
      // A member of a NULL struct is NULL too.
      return parent.isNullAt(rowId);
    }

    @Override
    ColumnVector target(int rowId) {
      ColumnVector struct = parent.target(rowId);
      return struct == null ? null : struct.getChild(ordinal);
    }

    @Override
    int targetRow(int rowId) {
      return parent.targetRow(rowId);
    }

    @Override
    int rows() {
      return parent.rows();
    }
  }
}
