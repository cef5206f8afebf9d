package io.flightsql.spark.vector;

import java.util.List;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.complex.DenseUnionVector;
import org.apache.arrow.vector.complex.RunEndEncodedVector;
import org.apache.arrow.vector.complex.UnionVector;
import org.apache.arrow.vector.dictionary.Dictionary;
import org.apache.arrow.vector.dictionary.DictionaryProvider;
import org.apache.spark.sql.types.BinaryType;
import org.apache.spark.sql.types.BooleanType;
import org.apache.spark.sql.types.ByteType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DateType;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.sql.types.DoubleType;
import org.apache.spark.sql.types.FloatType;
import org.apache.spark.sql.types.IntegerType;
import org.apache.spark.sql.types.LongType;
import org.apache.spark.sql.types.ShortType;
import org.apache.spark.sql.types.StringType;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.types.TimestampType;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarArray;
import org.apache.spark.sql.vectorized.ColumnarMap;
import org.apache.spark.unsafe.Platform;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * Columns whose values live in another column, found row by row: dictionary-encoded columns
 * (through their indices), unions (through their type ids and offsets) and run-end-encoded columns
 * (through their run ends). Nothing is decoded ahead; each access reads the one value asked for, in
 * whichever layout holds it.
 */
final class IndirectColumns {
  private IndirectColumns() {}

  /**
   * A column that sends each access on to the value that row points at. Struct values are read
   * through {@link #getChild}, whose columns route the same way.
   */
  abstract static class IndirectColumn extends ArrowBackedColumnVector {
    private ColumnVector[] children;

    IndirectColumn(DataType type) {
      super(type);
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

    /**
     * The members of struct values, and the parts of calendar intervals, routed like this column.
     */
    @Override
    public ColumnVector getChild(int ordinal) {
      if (children == null) {
        int count =
            dataType() instanceof StructType ? ((StructType) dataType()).fields().length : 3;
        children = new ColumnVector[count];
      }
      if (children[ordinal] == null) {
        children[ordinal] = new ChildOfIndirect(this, ordinal);
      }
      return children[ordinal];
    }
  }

  /** Member {@code ordinal} of the values an indirect column routes to. */
  static final class ChildOfIndirect extends IndirectColumn {
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
      return ordinal == 2
          ? org.apache.spark.sql.types.DataTypes.LongType
          : org.apache.spark.sql.types.DataTypes.IntegerType;
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

  /** Reads one integer of any Arrow integer type as an int index. */
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

  /**
   * A dictionary-encoded column: each row holds an index into the dictionary's values. The
   * dictionary is looked up again for every batch, since a stream may replace it between batches.
   */
  static final class DictionaryColumn extends IndirectColumn {
    private final ArrowBackedColumnVector values;
    private final long dictionaryId;
    private final DictionaryProvider dictionaries;
    private final int indexBits;
    private final boolean signedIndices;
    private long indices;

    DictionaryColumn(
        DataType type,
        ArrowBackedColumnVector values,
        long dictionaryId,
        DictionaryProvider dictionaries,
        int indexBits,
        boolean signedIndices) {
      super(type);
      this.values = values;
      this.dictionaryId = dictionaryId;
      this.dictionaries = dictionaries;
      this.indexBits = indexBits;
      this.signedIndices = signedIndices;
    }

    @Override
    void loadBuffers(FieldVector vector) {
      super.loadBuffers(vector);
      indices = valueCount > 0 ? vector.getDataBufferAddress() : 0L;
      Dictionary dictionary = dictionaries.lookup(dictionaryId);
      if (dictionary == null) {
        throw new IllegalStateException(
            "The stream has no dictionary with id "
                + dictionaryId
                + " for column "
                + vector.getField().getName()
                + "; the server sent a record batch before its dictionary");
      }
      values.load(dictionary.getVector());
    }

    @Override
    ColumnVector target(int rowId) {
      return values;
    }

    /**
     * The row of the dictionary. An index outside the dictionary fails rather than reading another
     * value: Arrow Java's Flight client applies a dictionary delta (values appended to the
     * dictionary) as a replacement, so a server that sends deltas would otherwise be read wrongly.
     */
    @Override
    int targetRow(int rowId) {
      long index = readIndex(indices, indexBits, signedIndices, rowId);
      if (index < 0 || index >= values.valueCount) {
        throw new IllegalStateException(
            "Row "
                + rowId
                + " of a dictionary-encoded column has index "
                + index
                + ", beyond the dictionary of "
                + values.valueCount
                + " values. Arrow Java's Flight client does not support dictionary deltas; if the"
                + " server sends a dictionary delta, configure it to send whole dictionaries.");
      }
      return (int) index;
    }
  }

  /**
   * A dense or sparse union whose members all read as the same Spark type (NULL members aside).
   * Unions have no validity bitmap: a row is NULL when the member it selects has a NULL there, or
   * is of the Null type.
   */
  static final class UnionColumn extends IndirectColumn {
    private final ArrowBackedColumnVector[] members;
    private final boolean[] nullMember;

    /** The member for each type id (a byte), or -1 for ids the union does not use. */
    private final int[] memberOfTypeId = new int[128];

    private final boolean dense;
    private final boolean asText;
    private long typeIds;
    private long offsets;

    UnionColumn(
        DataType type,
        ArrowBackedColumnVector[] members,
        boolean[] nullMember,
        int[] typeIds,
        boolean dense,
        boolean asText) {
      super(type);
      this.members = members;
      this.nullMember = nullMember;
      this.dense = dense;
      this.asText = asText;
      java.util.Arrays.fill(memberOfTypeId, -1);
      for (int i = 0; i < members.length; i++) {
        memberOfTypeId[typeIds == null ? i : typeIds[i]] = i;
      }
    }

    @Override
    void loadBuffers(FieldVector vector) {
      valueCount = vector.getValueCount();
      nullCount = 0;
      validity = 0L;
      if (dense) {
        DenseUnionVector union = (DenseUnionVector) vector;
        typeIds = valueCount > 0 ? union.getTypeBuffer().memoryAddress() : 0L;
        offsets = valueCount > 0 ? union.getOffsetBuffer().memoryAddress() : 0L;
      } else {
        typeIds = valueCount > 0 ? ((UnionVector) vector).getTypeBufferAddress() : 0L;
      }
      List<FieldVector> children = vector.getChildrenFromFields();
      for (int i = 0; i < members.length; i++) {
        members[i].load(children.get(i));
      }
    }

    private int member(int rowId) {
      int member = memberOfTypeId[Platform.getByte(null, typeIds + rowId) & 0x7F];
      if (member < 0) {
        throw new IllegalStateException(
            "Union row " + rowId + " has a type id that its type does not declare");
      }
      return member;
    }

    @Override
    ColumnVector target(int rowId) {
      int member = member(rowId);
      return nullMember[member] ? null : members[member];
    }

    @Override
    int targetRow(int rowId) {
      return dense ? Platform.getInt(null, offsets + 4L * rowId) : rowId;
    }

    /** With mixedUnions=string, the value of whichever member the row selects, as text. */
    @Override
    public UTF8String getUTF8String(int rowId) {
      ColumnVector member = target(rowId);
      int row = targetRow(rowId);
      return asText ? text(member, row) : member.getUTF8String(row);
    }

    private static UTF8String text(ColumnVector member, int row) {
      DataType type = member.dataType();
      String text;
      if (type instanceof StringType) {
        return member.getUTF8String(row);
      } else if (type instanceof BinaryType) {
        return UTF8String.fromBytes(member.getBinary(row));
      } else if (type instanceof BooleanType) {
        text = String.valueOf(member.getBoolean(row));
      } else if (type instanceof ByteType) {
        text = String.valueOf(member.getByte(row));
      } else if (type instanceof ShortType) {
        text = String.valueOf(member.getShort(row));
      } else if (type instanceof IntegerType) {
        text = String.valueOf(member.getInt(row));
      } else if (type instanceof LongType) {
        text = String.valueOf(member.getLong(row));
      } else if (type instanceof FloatType) {
        text = String.valueOf(member.getFloat(row));
      } else if (type instanceof DoubleType) {
        text = String.valueOf(member.getDouble(row));
      } else if (type instanceof DecimalType) {
        DecimalType decimal = (DecimalType) type;
        text =
            member
                .getDecimal(row, decimal.precision(), decimal.scale())
                .toJavaBigDecimal()
                .toPlainString();
      } else if (type instanceof DateType) {
        text = java.time.LocalDate.ofEpochDay(member.getInt(row)).toString();
      } else if (type instanceof TimestampType) {
        long micros = member.getLong(row);
        text =
            java.time.Instant.ofEpochSecond(
                    Math.floorDiv(micros, 1_000_000L), Math.floorMod(micros, 1_000_000L) * 1_000L)
                .toString();
      } else {
        long micros = member.getLong(row);
        text =
            java.time.LocalDateTime.ofEpochSecond(
                    Math.floorDiv(micros, 1_000_000L),
                    (int) Math.floorMod(micros, 1_000_000L) * 1_000,
                    java.time.ZoneOffset.UTC)
                .toString();
      }
      return UTF8String.fromString(text);
    }
  }

  /**
   * A run-end-encoded column: value i of the values child covers the rows up to run end i. Rows are
   * usually read in order, so the run of the last access is tried first.
   */
  static final class RunEndColumn extends IndirectColumn {
    private final ArrowBackedColumnVector values;
    private final int runEndBits;
    private long runEnds;
    private int runs;
    private int lastRun;

    RunEndColumn(DataType type, ArrowBackedColumnVector values, int runEndBits) {
      super(type);
      this.values = values;
      this.runEndBits = runEndBits;
    }

    @Override
    void loadBuffers(FieldVector vector) {
      RunEndEncodedVector ree = (RunEndEncodedVector) vector;
      valueCount = ree.getValueCount();
      nullCount = 0;
      validity = 0L;
      FieldVector ends = ree.getRunEndsVector();
      runs = ends.getValueCount();
      runEnds = runs > 0 ? ends.getDataBufferAddress() : 0L;
      lastRun = 0;
      values.load(ree.getValuesVector());
    }

    private long runEnd(int run) {
      return readIndex(runEnds, runEndBits, true, run);
    }

    @Override
    ColumnVector target(int rowId) {
      return values;
    }

    @Override
    int targetRow(int rowId) {
      int run = lastRun;
      if (!(rowId < runEnd(run) && (run == 0 || rowId >= runEnd(run - 1)))) {
        int low = 0;
        int high = runs - 1;
        while (low < high) {
          int mid = (low + high) >>> 1;
          if (runEnd(mid) <= rowId) {
            low = mid + 1;
          } else {
            high = mid;
          }
        }
        run = low;
        lastRun = run;
      }
      return run;
    }
  }
}
