package io.flightsql.spark.vector;

import io.flightsql.spark.types.TypeMappingOptions;
import org.apache.arrow.vector.ExtensionTypeVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.ValueVector;
import org.apache.arrow.vector.dictionary.DictionaryProvider;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarArray;
import org.apache.spark.sql.vectorized.ColumnarMap;
import org.apache.spark.unsafe.Platform;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * Spark's view of one Arrow column: a {@link ColumnVector} that reads the connector's own
 * (relocated) Arrow vectors directly from their buffers, with no per-row conversion and no copy of
 * string bytes. Nested types are trees of these columns; dictionary-encoded, union and
 * run-end-encoded columns look values up through their indices on each access, so nothing is
 * decoded ahead. Runs on executors; not Serializable.
 *
 * <p>One instance serves a whole stream: {@link #load(ValueVector)} re-points it at the buffers of
 * each new record batch. It never owns Arrow memory: the reader that created it closes the stream
 * and allocator, so {@link #close()} and {@link #closeIfFreeable()} (which Spark 4 calls after each
 * batch) release nothing.
 */
public abstract class ArrowBackedColumnVector extends ColumnVector {
  int valueCount;
  int nullCount;

  /** Address of the validity bitmap, or 0 when the batch has no nulls. */
  long validity;

  ArrowBackedColumnVector(DataType type) {
    super(type);
  }

  /**
   * A column vector reading an Arrow field as the Spark type that {@code ArrowToSpark} gave it.
   * Dictionary-encoded fields (at any depth) are looked up in {@code dictionaries} on each batch,
   * so a dictionary that the stream replaces between batches is followed.
   *
   * @param path the column's name, dotted for nested fields, for error messages
   */
  public static ArrowBackedColumnVector create(
      Field field,
      DataType sparkType,
      String path,
      TypeMappingOptions options,
      DictionaryProvider dictionaries) {
    return new ColumnFactory(options, dictionaries).create(field, sparkType, path);
  }

  /** Points this column, and the columns below it, at the buffers of the vector's current batch. */
  public final void load(ValueVector vector) {
    ValueVector storage = vector;
    while (storage instanceof ExtensionTypeVector) {
      storage = ((ExtensionTypeVector<?>) storage).getUnderlyingVector();
    }
    loadBuffers((FieldVector) storage);
  }

  /** Reads the addresses this column needs from the vector; the base reads the validity bitmap. */
  void loadBuffers(FieldVector vector) {
    valueCount = vector.getValueCount();
    nullCount = valueCount == 0 ? 0 : vector.getNullCount();
    validity = nullCount > 0 ? vector.getValidityBufferAddress() : 0L;
  }

  @Override
  public boolean hasNull() {
    return nullCount > 0;
  }

  @Override
  public int numNulls() {
    return nullCount;
  }

  @Override
  public boolean isNullAt(int rowId) {
    return nullCount > 0 && !bit(validity, rowId);
  }

  static boolean bit(long address, int index) {
    return ((Platform.getByte(null, address + (index >> 3)) >> (index & 7)) & 1) != 0;
  }

  /** The Arrow buffers belong to the reader; nothing to release here. */
  @Override
  public final void close() {}

  /** Spark 4 calls this after each batch; the vectors stay valid until the reader moves on. */
  @Override
  public final void closeIfFreeable() {}

  private UnsupportedOperationException wrongAccessor(String accessor) {
    return new UnsupportedOperationException(
        accessor + " is not supported on a " + dataType().simpleString() + " column");
  }

  @Override
  public boolean getBoolean(int rowId) {
    throw wrongAccessor("getBoolean");
  }

  @Override
  public byte getByte(int rowId) {
    throw wrongAccessor("getByte");
  }

  @Override
  public short getShort(int rowId) {
    throw wrongAccessor("getShort");
  }

  @Override
  public int getInt(int rowId) {
    throw wrongAccessor("getInt");
  }

  @Override
  public long getLong(int rowId) {
    throw wrongAccessor("getLong");
  }

  @Override
  public float getFloat(int rowId) {
    throw wrongAccessor("getFloat");
  }

  @Override
  public double getDouble(int rowId) {
    throw wrongAccessor("getDouble");
  }

  @Override
  public ColumnarArray getArray(int rowId) {
    throw wrongAccessor("getArray");
  }

  @Override
  public ColumnarMap getMap(int rowId) {
    throw wrongAccessor("getMap");
  }

  @Override
  public Decimal getDecimal(int rowId, int precision, int scale) {
    throw wrongAccessor("getDecimal");
  }

  @Override
  public UTF8String getUTF8String(int rowId) {
    throw wrongAccessor("getUTF8String");
  }

  @Override
  public byte[] getBinary(int rowId) {
    throw wrongAccessor("getBinary");
  }

  @Override
  public ColumnVector getChild(int ordinal) {
    throw wrongAccessor("getChild");
  }
}
