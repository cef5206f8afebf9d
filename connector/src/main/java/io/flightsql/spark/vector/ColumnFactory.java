package io.flightsql.spark.vector;

import io.flightsql.spark.types.ArrowFields;
import io.flightsql.spark.types.ArrowToSpark;
import io.flightsql.spark.types.TypeMappingOptions;
import io.flightsql.spark.types.TypeMappingOptions.DecimalOverflow;
import io.flightsql.spark.vector.BinaryColumns.FixedSizeBinaryColumn;
import io.flightsql.spark.vector.BinaryColumns.OffsetColumn;
import io.flightsql.spark.vector.BinaryColumns.ViewColumn;
import io.flightsql.spark.vector.DecimalColumns.DecimalColumn;
import io.flightsql.spark.vector.DecimalColumns.DecimalTextColumn;
import io.flightsql.spark.vector.DecimalColumns.UInt64Column;
import io.flightsql.spark.vector.FixedWidthColumns.Bool8Column;
import io.flightsql.spark.vector.FixedWidthColumns.BooleanColumn;
import io.flightsql.spark.vector.FixedWidthColumns.ByteColumn;
import io.flightsql.spark.vector.FixedWidthColumns.Date64Column;
import io.flightsql.spark.vector.FixedWidthColumns.DayTimeIntervalColumn;
import io.flightsql.spark.vector.FixedWidthColumns.DoubleColumn;
import io.flightsql.spark.vector.FixedWidthColumns.Float16Column;
import io.flightsql.spark.vector.FixedWidthColumns.FloatColumn;
import io.flightsql.spark.vector.FixedWidthColumns.IntColumn;
import io.flightsql.spark.vector.FixedWidthColumns.LongColumn;
import io.flightsql.spark.vector.FixedWidthColumns.NullColumn;
import io.flightsql.spark.vector.FixedWidthColumns.ScaledLongColumn;
import io.flightsql.spark.vector.FixedWidthColumns.ShortColumn;
import io.flightsql.spark.vector.FixedWidthColumns.TimeOfDayColumn;
import io.flightsql.spark.vector.FixedWidthColumns.UInt16Column;
import io.flightsql.spark.vector.FixedWidthColumns.UInt32Column;
import io.flightsql.spark.vector.FixedWidthColumns.UInt8Column;
import io.flightsql.spark.vector.NestedColumns.CalendarIntervalColumn;
import io.flightsql.spark.vector.NestedColumns.ListColumn;
import io.flightsql.spark.vector.NestedColumns.ListLayout;
import io.flightsql.spark.vector.NestedColumns.MapColumn;
import io.flightsql.spark.vector.NestedColumns.StructColumn;
import java.util.List;
import org.apache.arrow.vector.dictionary.DictionaryProvider;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.IntervalUnit;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.UnionMode;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.DictionaryEncoding;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.sql.types.MapType;
import org.apache.spark.sql.types.StructType;

/**
 * Builds the tree of column vectors for one Arrow field, choosing for each node the column class
 * that reads its Arrow layout as the Spark type {@link ArrowToSpark} chose. The two must agree: the
 * factory is given the Spark type and only decides how to read it.
 */
final class ColumnFactory {
  private static final long MICROS_PER_SECOND = 1_000_000L;

  private final TypeMappingOptions options;
  private final DictionaryProvider dictionaries;

  ColumnFactory(TypeMappingOptions options, DictionaryProvider dictionaries) {
    this.options = options;
    this.dictionaries = dictionaries;
  }

  ArrowBackedColumnVector create(Field field, DataType spark, String path) {
    DictionaryEncoding encoding = field.getDictionary();
    Field plain = ArrowFields.valueField(field);
    if (encoding != null) {
      ArrowBackedColumnVector values = create(plain, spark, path);
      ArrowType.Int index = encoding.getIndexType();
      return new DictionaryColumn(
          spark, values, encoding.getId(), dictionaries, index.getBitWidth(), index.getIsSigned());
    }
    ArrowType type = plain.getType();
    String arrowType = type.toString();
    if (ArrowFields.isBool8(plain)) {
      return new Bool8Column();
    }
    switch (type.getTypeID()) {
      case Null:
        return new NullColumn();
      case Bool:
        return new BooleanColumn();
      case Int:
        return integer((ArrowType.Int) type);
      case FloatingPoint:
        switch (((ArrowType.FloatingPoint) type).getPrecision()) {
          case HALF:
            return new Float16Column();
          case SINGLE:
            return new FloatColumn();
          default:
            return new DoubleColumn();
        }
      case Decimal:
        ArrowType.Decimal decimal = (ArrowType.Decimal) type;
        if (spark instanceof DecimalType) {
          return new DecimalColumn(
              (DecimalType) spark,
              path,
              decimal,
              options.decimalOverflow() == DecimalOverflow.NULL);
        }
        return new DecimalTextColumn(decimal.getScale(), decimal.getBitWidth());
      case Utf8:
      case Binary:
        return new OffsetColumn(spark, false);
      case LargeUtf8:
      case LargeBinary:
        return new OffsetColumn(spark, true);
      case Utf8View:
      case BinaryView:
        return new ViewColumn(spark);
      case FixedSizeBinary:
        return new FixedSizeBinaryColumn(((ArrowType.FixedSizeBinary) type).getByteWidth());
      case Date:
        return ((ArrowType.Date) type).getUnit() == DateUnit.DAY
            ? new IntColumn(DataTypes.DateType)
            : new Date64Column();
      case Timestamp:
        return toMicros(spark, path, arrowType, 8, ((ArrowType.Timestamp) type).getUnit());
      case Duration:
        return toMicros(spark, path, arrowType, 8, ((ArrowType.Duration) type).getUnit());
      case Time:
        return time(spark, path, (ArrowType.Time) type);
      case Interval:
        IntervalUnit unit = ((ArrowType.Interval) type).getUnit();
        if (unit == IntervalUnit.YEAR_MONTH) {
          return new IntColumn(spark);
        }
        if (unit == IntervalUnit.DAY_TIME) {
          return new DayTimeIntervalColumn();
        }
        return new CalendarIntervalColumn(path, arrowType, options.nanoseconds());
      case List:
        return list(plain, spark, path, ListLayout.OFFSETS);
      case LargeList:
        return list(plain, spark, path, ListLayout.LARGE_OFFSETS);
      case FixedSizeList:
        return list(plain, spark, path, ListLayout.FIXED);
      case ListView:
        return list(plain, spark, path, ListLayout.VIEWS);
      case LargeListView:
        return list(plain, spark, path, ListLayout.LARGE_VIEWS);
      case Struct:
        StructType struct = (StructType) spark;
        List<Field> children = plain.getChildren();
        ArrowBackedColumnVector[] members = new ArrowBackedColumnVector[children.size()];
        for (int i = 0; i < members.length; i++) {
          Field child = children.get(i);
          members[i] = create(child, struct.fields()[i].dataType(), path + "." + child.getName());
        }
        return new StructColumn(spark, members);
      case Map:
        MapType map = (MapType) spark;
        List<Field> entry = plain.getChildren().get(0).getChildren();
        return new MapColumn(
            spark,
            create(entry.get(0), map.keyType(), path + ".key"),
            create(entry.get(1), map.valueType(), path + ".value"));
      case Union:
        return union(plain, spark, path, (ArrowType.Union) type);
      case RunEndEncoded:
        Field runEnds = plain.getChildren().get(0);
        return new RunEndColumn(
            spark,
            create(plain.getChildren().get(1), spark, path),
            ((ArrowType.Int) runEnds.getType()).getBitWidth());
      default:
        throw new IllegalArgumentException(
            "No column vector for Arrow type " + arrowType + " (column '" + path + "')");
    }
  }

  private static ArrowBackedColumnVector integer(ArrowType.Int type) {
    int bits = type.getBitWidth();
    if (type.getIsSigned()) {
      switch (bits) {
        case 8:
          return new ByteColumn();
        case 16:
          return new ShortColumn();
        case 32:
          return new IntColumn(DataTypes.IntegerType);
        default:
          return new LongColumn();
      }
    }
    switch (bits) {
      case 8:
        return new UInt8Column();
      case 16:
        return new UInt16Column();
      case 32:
        return new UInt32Column();
      default:
        return new UInt64Column();
    }
  }

  /** Counts of a time unit as Spark's microseconds: timestamps and durations. */
  private ArrowBackedColumnVector toMicros(
      DataType spark, String path, String arrowType, int width, TimeUnit unit) {
    long perSecond = unitsPerSecond(unit);
    return perSecond >= MICROS_PER_SECOND
        ? new ScaledLongColumn(
            spark, path, arrowType, width, perSecond / MICROS_PER_SECOND, 1, options.nanoseconds())
        : new ScaledLongColumn(
            spark, path, arrowType, width, 1, MICROS_PER_SECOND / perSecond, options.nanoseconds());
  }

  /**
   * Times of day: Spark's TIME keeps nanoseconds of the day (at most microsecond precision), and
   * without it the column is a long of microseconds of the day.
   */
  private ArrowBackedColumnVector time(DataType spark, String path, ArrowType.Time type) {
    int width = type.getBitWidth() / 8;
    long perSecond = unitsPerSecond(type.getUnit());
    if (spark == DataTypes.LongType) {
      return toMicros(spark, path, type.toString(), width, type.getUnit());
    }
    long nanosPerUnit = 1_000_000_000L / perSecond;
    return nanosPerUnit >= 1_000L
        ? new TimeOfDayColumn(
            spark, path, type.toString(), width, 1, nanosPerUnit, options.nanoseconds())
        : new TimeOfDayColumn(
            spark, path, type.toString(), width, 1_000L, 1_000L, options.nanoseconds());
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

  private ArrowBackedColumnVector list(
      Field plain, DataType spark, String path, ListLayout layout) {
    Field element = plain.getChildren().get(0);
    return new ListColumn(
        spark, create(element, ((ArrayType) spark).elementType(), path + ".element"), layout);
  }

  private ArrowBackedColumnVector union(
      Field plain, DataType spark, String path, ArrowType.Union type) {
    List<Field> children = plain.getChildren();
    ArrowBackedColumnVector[] members = new ArrowBackedColumnVector[children.size()];
    boolean[] nullMember = new boolean[children.size()];
    boolean asText = false;
    for (int i = 0; i < members.length; i++) {
      Field child = children.get(i);
      nullMember[i] = ArrowFields.isNullMember(child);
      if (nullMember[i]) {
        members[i] = new NullColumn();
        continue;
      }
      // A mixed union read as text (mixedUnions=string): each member keeps its own type.
      DataType own = ArrowToSpark.toSparkType(child, options);
      asText |= !own.equals(spark);
      members[i] = create(child, own, path + "." + child.getName());
    }
    return new UnionColumn(
        spark, members, nullMember, type.getTypeIds(), type.getMode() == UnionMode.Dense, asText);
  }
}
