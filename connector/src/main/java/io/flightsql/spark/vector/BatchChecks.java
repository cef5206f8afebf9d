package io.flightsql.spark.vector;

import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BaseLargeVariableWidthVector;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.BaseVariableWidthViewVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.ExtensionTypeVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.NullVector;
import org.apache.arrow.vector.complex.DenseUnionVector;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.complex.LargeListViewVector;
import org.apache.arrow.vector.complex.ListViewVector;
import org.apache.arrow.vector.complex.NonNullableStructVector;
import org.apache.arrow.vector.complex.RunEndEncodedVector;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.complex.UnionVector;
import org.apache.arrow.vector.dictionary.Dictionary;
import org.apache.arrow.vector.dictionary.DictionaryProvider;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.DictionaryEncoding;
import org.apache.arrow.vector.types.pojo.Field;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Checks each record batch of a stream before any column vector reads it by address. Arrow Java
 * loads a batch as the server sent it: the buffers are bounds-checked slices of the message body,
 * but what they hold (offsets, view ranges, type ids, indices, run ends, decimal digits) is not
 * looked at, and a column reading a string through an offset past its data buffer reads another
 * allocation's bytes or crashes the JVM. So every buffer a column will read is checked here first,
 * against the stream's own schema, the one the columns were built from:
 *
 * <ul>
 *   <li>every buffer holds as many bytes as its values need (validity bitmaps, fixed-width values,
 *       offsets, views, type ids, indices);
 *   <li>offsets of strings, binaries, lists and maps (32 and 64 bits) start at 0 or above, never
 *       decrease, and end within the data buffer or the child column;
 *   <li>views of string_view and binary_view name a data buffer the column has and a range within
 *       it; list_view offsets and sizes lie within the child;
 *   <li>union type ids are among those the union declares, and dense-union offsets within the
 *       member they select; struct and sparse-union members have a value for every row;
 *   <li>dictionary indices lie within the dictionary, which is itself checked;
 *   <li>run ends rise strictly and cover the batch, with a value for each run;
 *   <li>decimals of up to 18 digits (read as 64-bit integers) hold at most their declared digits.
 * </ul>
 *
 * Each check reads each buffer once, a few instructions per offset, index or short decimal: there
 * is no per-byte work (UTF-8 is not validated: Spark's strings take any bytes). Arrow Java's own
 * {@code ValueVector.validateFull()} is not used: it rejects view vectors, misses type ids a union
 * does not declare, negative dense-union offsets, dictionary indices and falling run ends, and
 * decodes every string and decimal value to check it. Runs on executors; not Serializable.
 */
public final class BatchChecks {
  /**
   * Set to {@code true} on a JVM, this system property turns the checks off for the readers that
   * start while it is set. It exists only for the read benchmark, which times reads with and
   * without the checks in one process; it is unsafe (a malformed batch can then crash the JVM or
   * return another allocation's bytes), is not an option of the connector, and each JVM that uses
   * it logs a warning.
   */
  public static final String BENCHMARK_UNCHECKED_PROPERTY =
      "flightsql.internal.benchmark.uncheckedBatches";

  private static final Logger LOG = LoggerFactory.getLogger(BatchChecks.class);
  private static final AtomicBoolean WARNED = new AtomicBoolean();

  private final List<Field> fields;
  private final DictionaryProvider dictionaries;

  /**
   * Checks for the batches of one stream.
   *
   * @param fields the stream's columns as its schema message has them (dictionary-encoded columns
   *     with their value type and encoding), in the order of the root's vectors
   */
  public BatchChecks(List<Field> fields, DictionaryProvider dictionaries) {
    this.fields = fields;
    this.dictionaries = dictionaries;
  }

  /** Whether the benchmark's system property turned the checks off; warns once per JVM if so. */
  public static boolean skippedForBenchmark() {
    if (!"true".equals(System.getProperty(BENCHMARK_UNCHECKED_PROPERTY))) {
      return false;
    }
    if (WARNED.compareAndSet(false, true)) {
      LOG.warn(
          "System property {} is set: record batches are read without their checks, so a"
              + " malformed batch can crash this JVM. It exists for the read benchmark only.",
          BENCHMARK_UNCHECKED_PROPERTY);
    }
    return true;
  }

  /**
   * Checks the current batch of the stream's vectors.
   *
   * @throws MalformedBatchException naming the first column and check that fail
   */
  public void check(List<FieldVector> vectors) {
    for (int i = 0; i < fields.size(); i++) {
      Field field = fields.get(i);
      column(field, vectors.get(i), field.getName());
    }
  }

  private void column(Field field, FieldVector vector, String path) {
    FieldVector storage = vector;
    while (storage instanceof ExtensionTypeVector) {
      storage = ((ExtensionTypeVector<?>) storage).getUnderlyingVector();
    }
    CheckedColumn column = new CheckedColumn(field, storage, path);
    if (storage.getValueCount() < 0) {
      throw column.malformed("it has a negative length (" + storage.getValueCount() + ")");
    }
    DictionaryEncoding encoding = field.getDictionary();
    if (encoding != null) {
      dictionary(column, encoding);
      return;
    }
    validity(column);
    if (storage instanceof BaseFixedWidthVector) {
      fixedWidth(column, (BaseFixedWidthVector) storage);
    } else if (storage instanceof BaseVariableWidthVector
        || storage instanceof BaseLargeVariableWidthVector) {
      long bytes = storage.getDataBuffer().capacity();
      int width = storage instanceof BaseVariableWidthVector ? 4 : 8;
      column.require(
          BufferChecks.offsets(
              storage.getOffsetBuffer(),
              column.rows,
              width,
              bytes,
              "data buffer (" + bytes + " bytes)"));
    } else if (storage instanceof BaseVariableWidthViewVector) {
      BaseVariableWidthViewVector views = (BaseVariableWidthViewVector) storage;
      List<ArrowBuf> data = views.getDataBuffers();
      column.require(
          BufferChecks.views(
              views.getDataBuffer(), data.toArray(new ArrowBuf[0]), column.rows, storage));
    } else if (isList(column.plain.getType())) {
      list(column, storage);
    } else if (storage instanceof NonNullableStructVector) {
      members(column, storage.getChildrenFromFields(), column.rows);
    } else if (storage instanceof UnionVector || storage instanceof DenseUnionVector) {
      union(column);
    } else if (storage instanceof RunEndEncodedVector) {
      runEnds(column, (RunEndEncodedVector) storage);
    }
  }

  /** The bitmap of the vectors that have one, which the columns read when a batch has NULLs. */
  private static void validity(CheckedColumn column) {
    FieldVector vector = column.vector;
    boolean hasNone =
        vector instanceof NullVector
            || vector instanceof UnionVector
            || vector instanceof DenseUnionVector
            || vector instanceof RunEndEncodedVector
            || (vector instanceof NonNullableStructVector && !(vector instanceof StructVector));
    if (!hasNone && column.rows > 0) {
      column.require(
          BufferChecks.capacity(
              vector.getValidityBuffer(), (column.rows + 7L) / 8, "validity", column.rows));
    }
  }

  private static void fixedWidth(CheckedColumn column, BaseFixedWidthVector vector) {
    int rows = column.rows;
    if (rows == 0) {
      return;
    }
    long needed =
        vector instanceof BitVector ? (rows + 7L) / 8 : (long) vector.getTypeWidth() * rows;
    column.require(BufferChecks.capacity(vector.getDataBuffer(), needed, "data", rows));
    ArrowType type = column.plain.getType();
    if (type instanceof ArrowType.Decimal) {
      ArrowType.Decimal decimal = (ArrowType.Decimal) type;
      column.require(
          BufferChecks.decimals(
              vector.getDataBuffer().memoryAddress(),
              decimal.getBitWidth() / 8,
              decimal.getPrecision(),
              decimal.getScale(),
              rows,
              vector));
    }
  }

  /** Lists and maps in each layout: where each list lies in the child, then the child itself. */
  private static boolean isList(ArrowType type) {
    switch (type.getTypeID()) {
      case List:
      case LargeList:
      case FixedSizeList:
      case ListView:
      case LargeListView:
      case Map:
        return true;
      default:
        return false;
    }
  }

  private void list(CheckedColumn column, FieldVector vector) {
    FieldVector elements = vector.getChildrenFromFields().get(0);
    long size = elements.getValueCount();
    int rows = column.rows;
    String what = "child column (" + size + " values)";
    if (vector instanceof FixedSizeListVector) {
      int listSize = ((FixedSizeListVector) vector).getListSize();
      long needed = (long) listSize * rows;
      if (needed > size) {
        column.require(
            rows + " lists of " + listSize + " need " + needed + " values in its " + what);
      }
    } else if (vector instanceof ListViewVector || vector instanceof LargeListViewVector) {
      int width = vector instanceof ListViewVector ? 4 : 8;
      ArrowBuf sizes =
          vector instanceof ListViewVector
              ? ((ListViewVector) vector).getSizeBuffer()
              : ((LargeListViewVector) vector).getSizeBuffer();
      if (rows > 0) {
        column.require(
            BufferChecks.listViews(vector.getOffsetBuffer(), sizes, width, rows, size, vector));
      }
    } else {
      int width = column.plain.getType().getTypeID() == ArrowType.ArrowTypeID.LargeList ? 8 : 4;
      column.require(BufferChecks.offsets(vector.getOffsetBuffer(), rows, width, size, what));
    }
    column(column.plain.getChildren().get(0), elements, column.childPath(0));
  }

  /** Struct members and sparse-union members: a value for each of the parent's rows. */
  private void members(CheckedColumn column, List<FieldVector> members, int rows) {
    List<Field> memberFields = column.plain.getChildren();
    for (int i = 0; i < memberFields.size(); i++) {
      FieldVector member = members.get(i);
      if (member.getValueCount() < rows) {
        column.require(
            "member '"
                + memberFields.get(i).getName()
                + "' has "
                + member.getValueCount()
                + " values for "
                + rows
                + " rows");
      }
      column(memberFields.get(i), member, column.childPath(i));
    }
  }

  private void union(CheckedColumn column) {
    ArrowType.Union type = (ArrowType.Union) column.plain.getType();
    List<FieldVector> members = column.vector.getChildrenFromFields();
    int rows = column.rows;
    int[] declared = type.getTypeIds();
    int[] memberOfTypeId = new int[256];
    Arrays.fill(memberOfTypeId, -1);
    for (int i = 0; i < members.size(); i++) {
      memberOfTypeId[(declared == null ? i : declared[i]) & 0xFF] = i;
    }
    boolean dense = column.vector instanceof DenseUnionVector;
    ArrowBuf typeIds =
        dense
            ? ((DenseUnionVector) column.vector).getTypeBuffer()
            : ((UnionVector) column.vector).getTypeBuffer();
    column.require(BufferChecks.capacity(typeIds, rows, "type id", rows));
    ArrowBuf offsets = dense ? ((DenseUnionVector) column.vector).getOffsetBuffer() : null;
    if (dense) {
      column.require(BufferChecks.capacity(offsets, 4L * rows, "offset", rows));
    }
    for (int row = 0; row < rows; row++) {
      byte typeId = typeIds.getByte(row);
      int member = memberOfTypeId[typeId & 0xFF];
      if (member < 0) {
        column.require(
            "row " + row + " has type id " + typeId + ", which the union does not declare");
      }
      if (dense) {
        int offset = offsets.getInt(4L * row);
        int size = members.get(member).getValueCount();
        if (offset < 0 || offset >= size) {
          column.require(
              "row "
                  + row
                  + " points at value "
                  + offset
                  + " of member '"
                  + column.plain.getChildren().get(member).getName()
                  + "', which has "
                  + size);
        }
      }
    }
    if (dense) {
      for (int i = 0; i < members.size(); i++) {
        column(column.plain.getChildren().get(i), members.get(i), column.childPath(i));
      }
    } else {
      members(column, members, rows);
    }
  }

  private void runEnds(CheckedColumn column, RunEndEncodedVector vector) {
    FieldVector ends = vector.getRunEndsVector();
    int bits = ((ArrowType.Int) column.plain.getChildren().get(0).getType()).getBitWidth();
    int runs = ends.getValueCount();
    if (runs > 0) {
      column.require(
          BufferChecks.capacity(ends.getDataBuffer(), (long) bits / 8 * runs, "run end", runs));
    }
    column.require(
        BufferChecks.runEnds(
            runs > 0 ? ends.getDataBuffer().memoryAddress() : 0L, bits, runs, column.rows));
    FieldVector values = vector.getValuesVector();
    if (values.getValueCount() < runs) {
      column.require(runs + " runs but " + values.getValueCount() + " values");
    }
    column(column.plain.getChildren().get(1), values, column.path);
  }

  /** The indices, within the dictionary, and the dictionary's values themselves. */
  private void dictionary(CheckedColumn column, DictionaryEncoding encoding) {
    Dictionary dictionary = dictionaries.lookup(encoding.getId());
    if (dictionary == null) {
      column.require(
          "the server sent the record batch before dictionary " + encoding.getId() + " it uses");
    }
    FieldVector values = dictionary.getVector();
    ArrowType.Int index = encoding.getIndexType();
    int rows = column.rows;
    validity(column);
    if (rows > 0) {
      column.require(
          BufferChecks.capacity(
              column.vector.getDataBuffer(), (long) index.getBitWidth() / 8 * rows, "index", rows));
      String outside =
          BufferChecks.indices(
              column.vector.getDataBufferAddress(),
              index.getBitWidth(),
              index.getIsSigned(),
              rows,
              values.getValueCount(),
              column.vector);
      if (outside != null) {
        // Arrow Java's Flight client applies a dictionary delta as a replacement, which leaves
        // the indices of a well-formed stream beyond the dictionary too.
        column.require(
            outside
                + ", beyond the dictionary of "
                + values.getValueCount()
                + " values. Arrow Java's Flight client does not support dictionary deltas; if the"
                + " server sends a dictionary delta, configure it to send whole dictionaries");
      }
    }
    column(column.plain, values, column.path + " (dictionary " + encoding.getId() + ")");
  }
}
