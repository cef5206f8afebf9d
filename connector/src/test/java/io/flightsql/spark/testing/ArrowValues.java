package io.flightsql.spark.testing;

import java.math.BigInteger;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.Period;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.vector.BaseIntVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DateMilliVector;
import org.apache.arrow.vector.Decimal256Vector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.DurationVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.FixedSizeBinaryVector;
import org.apache.arrow.vector.Float2Vector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntervalDayVector;
import org.apache.arrow.vector.IntervalMonthDayNanoVector;
import org.apache.arrow.vector.IntervalYearVector;
import org.apache.arrow.vector.LargeVarBinaryVector;
import org.apache.arrow.vector.LargeVarCharVector;
import org.apache.arrow.vector.NullVector;
import org.apache.arrow.vector.PeriodDuration;
import org.apache.arrow.vector.TimeMicroVector;
import org.apache.arrow.vector.TimeMilliVector;
import org.apache.arrow.vector.TimeNanoVector;
import org.apache.arrow.vector.TimeSecVector;
import org.apache.arrow.vector.TimeStampVector;
import org.apache.arrow.vector.UInt1Vector;
import org.apache.arrow.vector.UInt2Vector;
import org.apache.arrow.vector.UInt4Vector;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ViewVarBinaryVector;
import org.apache.arrow.vector.ViewVarCharVector;
import org.apache.arrow.vector.complex.DenseUnionVector;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.complex.LargeListVector;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.ListViewVector;
import org.apache.arrow.vector.complex.MapVector;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.complex.UnionVector;
import org.apache.arrow.vector.dictionary.Dictionary;
import org.apache.arrow.vector.dictionary.DictionaryProvider;
import org.apache.arrow.vector.holders.NullableIntervalDayHolder;
import org.apache.arrow.vector.holders.NullableIntervalMonthDayNanoHolder;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.DictionaryEncoding;
import org.apache.arrow.vector.types.pojo.Field;

/**
 * Reads Arrow vectors, as Arrow Java's own client loads them, into the values {@link
 * HandBuiltDatasets} expects (see its class comment). It takes the types from the schema rather
 * than from the vectors, because a loaded {@link UnionVector} reports type ids of its own instead
 * of the ones the stream declared.
 */
public final class ArrowValues {
  private ArrowValues() {}

  /** The rows of a batch; dictionary-encoded columns are decoded with {@code dictionaries}. */
  public static List<List<Object>> rows(VectorSchemaRoot root, DictionaryProvider dictionaries) {
    List<Field> fields = root.getSchema().getFields();
    List<List<Object>> rows = new ArrayList<>();
    for (int r = 0; r < root.getRowCount(); r++) {
      List<Object> row = new ArrayList<>();
      for (int c = 0; c < fields.size(); c++) {
        row.add(value(root.getVector(c), fields.get(c), r, dictionaries));
      }
      rows.add(row);
    }
    return rows;
  }

  /** The values of a whole vector, for dictionaries. */
  public static List<Object> values(FieldVector vector, DictionaryProvider dictionaries) {
    List<Object> values = new ArrayList<>();
    for (int i = 0; i < vector.getValueCount(); i++) {
      values.add(value(vector, vector.getField(), i, dictionaries));
    }
    return values;
  }

  /** One value of {@code vector}, whose schema field is {@code field}. */
  public static Object value(
      FieldVector vector, Field field, int index, DictionaryProvider dictionaries) {
    // Unions have no validity of their own: a row is null when its member's slot is.
    if (vector instanceof UnionVector) {
      UnionVector union = (UnionVector) vector;
      int member = member(field, union.getTypeValue(index));
      return value(
          union.getChildrenFromFields().get(member),
          field.getChildren().get(member),
          index,
          dictionaries);
    }
    if (vector instanceof DenseUnionVector) {
      DenseUnionVector union = (DenseUnionVector) vector;
      int member = member(field, union.getTypeId(index));
      return value(
          union.getChildrenFromFields().get(member),
          field.getChildren().get(member),
          union.getOffset(index),
          dictionaries);
    }
    if (vector instanceof NullVector || vector.isNull(index)) {
      return null;
    }
    DictionaryEncoding encoding = field.getDictionary();
    if (encoding != null) {
      return decoded((BaseIntVector) vector, index, encoding, dictionaries);
    }
    ArrowType type = field.getType();
    if (vector instanceof UInt1Vector) {
      return (long) ((UInt1Vector) vector).getObjectNoOverflow(index);
    }
    if (vector instanceof UInt2Vector) {
      return (long) ((UInt2Vector) vector).getObject(index);
    }
    if (vector instanceof UInt4Vector) {
      return ((UInt4Vector) vector).getObjectNoOverflow(index);
    }
    if (vector instanceof UInt8Vector) {
      BigInteger value = ((UInt8Vector) vector).getObjectNoOverflow(index);
      return value.bitLength() < 64 ? (Object) value.longValue() : value;
    }
    if (vector instanceof BaseIntVector) {
      return ((BaseIntVector) vector).getValueAsLong(index);
    }
    if (vector instanceof Float2Vector) {
      return ((Float2Vector) vector).getValueAsFloat(index);
    }
    if (vector instanceof Float4Vector || vector instanceof Float8Vector) {
      return vector.getObject(index);
    }
    if (vector instanceof DecimalVector || vector instanceof Decimal256Vector) {
      return vector.getObject(index);
    }
    if (vector instanceof VarCharVector
        || vector instanceof LargeVarCharVector
        || vector instanceof ViewVarCharVector) {
      return vector.getObject(index).toString();
    }
    if (vector instanceof FixedSizeBinaryVector
        && UuidExtensionType.NAME.equals(
            field.getMetadata().get(ArrowType.ExtensionType.EXTENSION_METADATA_KEY_NAME))) {
      return UuidExtensionType.uuid(((FixedSizeBinaryVector) vector).get(index));
    }
    if (vector instanceof VarBinaryVector
        || vector instanceof LargeVarBinaryVector
        || vector instanceof ViewVarBinaryVector
        || vector instanceof FixedSizeBinaryVector) {
      return HandBuiltDatasets.hex((byte[]) vector.getObject(index));
    }
    if (vector instanceof DateDayVector) {
      return LocalDate.ofEpochDay(((DateDayVector) vector).get(index));
    }
    if (vector instanceof DateMilliVector) {
      return LocalDate.ofEpochDay(
          Math.floorDiv(((DateMilliVector) vector).get(index), 86_400_000L));
    }
    if (vector instanceof TimeSecVector) {
      return LocalTime.ofSecondOfDay(((TimeSecVector) vector).get(index));
    }
    if (vector instanceof TimeMilliVector) {
      return LocalTime.ofNanoOfDay(((TimeMilliVector) vector).get(index) * 1_000_000L);
    }
    if (vector instanceof TimeMicroVector) {
      return LocalTime.ofNanoOfDay(((TimeMicroVector) vector).get(index) * 1_000L);
    }
    if (vector instanceof TimeNanoVector) {
      return LocalTime.ofNanoOfDay(((TimeNanoVector) vector).get(index));
    }
    if (vector instanceof TimeStampVector) {
      return timestamp(((TimeStampVector) vector).get(index), (ArrowType.Timestamp) type);
    }
    if (vector instanceof DurationVector) {
      return (Duration) vector.getObject(index);
    }
    if (vector instanceof IntervalYearVector) {
      return Period.ofMonths(((IntervalYearVector) vector).get(index));
    }
    if (vector instanceof IntervalDayVector) {
      NullableIntervalDayHolder holder = new NullableIntervalDayHolder();
      ((IntervalDayVector) vector).get(index, holder);
      return new PeriodDuration(Period.ofDays(holder.days), Duration.ofMillis(holder.milliseconds));
    }
    if (vector instanceof IntervalMonthDayNanoVector) {
      NullableIntervalMonthDayNanoHolder holder = new NullableIntervalMonthDayNanoHolder();
      ((IntervalMonthDayNanoVector) vector).get(index, holder);
      return new PeriodDuration(
          Period.of(0, holder.months, holder.days), Duration.ofNanos(holder.nanoseconds));
    }
    if (vector instanceof MapVector) {
      MapVector map = (MapVector) vector;
      StructVector entries = (StructVector) map.getDataVector();
      List<Field> entryFields = field.getChildren().get(0).getChildren();
      Map<Object, Object> values = new LinkedHashMap<>();
      for (int i = map.getElementStartIndex(index); i < map.getElementEndIndex(index); i++) {
        values.put(
            value(entries.getChildrenFromFields().get(0), entryFields.get(0), i, dictionaries),
            value(entries.getChildrenFromFields().get(1), entryFields.get(1), i, dictionaries));
      }
      return values;
    }
    if (vector instanceof ListVector) {
      ListVector list = (ListVector) vector;
      return elements(
          list.getDataVector(),
          field,
          list.getElementStartIndex(index),
          list.getElementEndIndex(index),
          dictionaries);
    }
    if (vector instanceof LargeListVector) {
      LargeListVector list = (LargeListVector) vector;
      return elements(
          list.getDataVector(),
          field,
          Math.toIntExact(list.getElementStartIndex(index)),
          Math.toIntExact(list.getElementEndIndex(index)),
          dictionaries);
    }
    if (vector instanceof ListViewVector) {
      // Not getElementEndIndex: in Arrow Java 18.3 it returns the view's size, not its end.
      ListViewVector list = (ListViewVector) vector;
      int start = list.getOffsetBuffer().getInt((long) index * ListViewVector.OFFSET_WIDTH);
      int size = list.getSizeBuffer().getInt((long) index * ListViewVector.SIZE_WIDTH);
      return elements(list.getDataVector(), field, start, start + size, dictionaries);
    }
    if (vector instanceof FixedSizeListVector) {
      FixedSizeListVector list = (FixedSizeListVector) vector;
      int start = index * list.getListSize();
      return elements(list.getDataVector(), field, start, start + list.getListSize(), dictionaries);
    }
    if (vector instanceof StructVector) {
      StructVector struct = (StructVector) vector;
      Map<Object, Object> values = new LinkedHashMap<>();
      List<FieldVector> children = struct.getChildrenFromFields();
      for (int c = 0; c < children.size(); c++) {
        Field child = field.getChildren().get(c);
        values.put(child.getName(), value(children.get(c), child, index, dictionaries));
      }
      return values;
    }
    throw new IllegalArgumentException(
        "No reader for " + vector.getClass().getSimpleName() + " of field " + field);
  }

  private static List<Object> elements(
      FieldVector data, Field listField, int start, int end, DictionaryProvider dictionaries) {
    Field item = listField.getChildren().get(0);
    List<Object> values = new ArrayList<>();
    for (int i = start; i < end; i++) {
      values.add(value(data, item, i, dictionaries));
    }
    return values;
  }

  private static Object decoded(
      BaseIntVector indices,
      int index,
      DictionaryEncoding encoding,
      DictionaryProvider dictionaries) {
    Dictionary dictionary = dictionaries.lookup(encoding.getId());
    if (dictionary == null) {
      throw new IllegalStateException("No dictionary " + encoding.getId() + " in the stream");
    }
    FieldVector values = dictionary.getVector();
    long key = indices.getValueAsLong(index);
    if (key < 0 || key >= values.getValueCount()) {
      throw new IllegalStateException(
          "Index "
              + key
              + " is outside dictionary "
              + encoding.getId()
              + " of "
              + values.getValueCount()
              + " values");
    }
    return value(values, values.getField(), (int) key, dictionaries);
  }

  private static int member(Field unionField, int typeId) {
    int[] typeIds = ((ArrowType.Union) unionField.getType()).getTypeIds();
    for (int i = 0; i < typeIds.length; i++) {
      if (typeIds[i] == typeId) {
        return i;
      }
    }
    throw new IllegalStateException("Union " + unionField.getName() + " has no type id " + typeId);
  }

  private static Object timestamp(long value, ArrowType.Timestamp type) {
    long perSecond = unitsPerSecond(type.getUnit());
    Instant instant =
        Instant.ofEpochSecond(
            Math.floorDiv(value, perSecond),
            Math.floorMod(value, perSecond) * (1_000_000_000L / perSecond));
    return type.getTimezone() == null ? LocalDateTime.ofInstant(instant, ZoneOffset.UTC) : instant;
  }

  private static long unitsPerSecond(TimeUnit unit) {
    switch (unit) {
      case SECOND:
        return 1L;
      case MILLISECOND:
        return 1_000L;
      case MICROSECOND:
        return 1_000_000L;
      default:
        return 1_000_000_000L;
    }
  }
}
