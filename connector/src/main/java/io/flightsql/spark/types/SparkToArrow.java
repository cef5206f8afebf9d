package io.flightsql.spark.types;

import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.IntervalUnit;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.BinaryType;
import org.apache.spark.sql.types.BooleanType;
import org.apache.spark.sql.types.ByteType;
import org.apache.spark.sql.types.CalendarIntervalType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DateType;
import org.apache.spark.sql.types.DayTimeIntervalType;
import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.sql.types.DoubleType;
import org.apache.spark.sql.types.FloatType;
import org.apache.spark.sql.types.IntegerType;
import org.apache.spark.sql.types.LongType;
import org.apache.spark.sql.types.MapType;
import org.apache.spark.sql.types.NullType;
import org.apache.spark.sql.types.ShortType;
import org.apache.spark.sql.types.StringType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.types.TimestampNTZType;
import org.apache.spark.sql.types.TimestampType;
import org.apache.spark.sql.types.UserDefinedType;
import org.apache.spark.sql.types.YearMonthIntervalType;

/**
 * The type table of writes: the Arrow field each Spark column is sent as. It is the inverse of
 * {@link ArrowToSpark}: every Spark type a read produces goes back to an Arrow type that reads as
 * the same Spark type. The writers in {@code io.flightsql.spark.vector} fill the vectors of the
 * schema this table makes.
 *
 * <p>A type outside the table fails before any task runs, naming the column (a dotted path for
 * nested fields), its Spark type and what to do instead.
 */
public final class SparkToArrow {
  private SparkToArrow() {}

  /** The Arrow schema a DataFrame of this Spark schema is sent as. */
  public static Schema toArrowSchema(StructType schema) {
    List<Field> fields = new ArrayList<>();
    for (StructField field : schema.fields()) {
      fields.add(toArrowField(field.name(), field.dataType(), field.nullable(), field.name()));
    }
    return new Schema(fields);
  }

  /**
   * The Arrow field a Spark column is sent as. Every type a read produces maps back to an Arrow
   * type that reads as the same Spark type, so a table written and read again keeps its types;
   * types that several Arrow types read as (strings, integers) go back as the plainest one.
   *
   * @throws UnsupportedSparkTypeException for a type with no Arrow counterpart (e.g. VARIANT)
   */
  public static Field toArrowField(String name, DataType type, boolean nullable) {
    return toArrowField(name, type, nullable, name);
  }

  private static Field toArrowField(String name, DataType type, boolean nullable, String path) {
    if (type instanceof UserDefinedType) {
      return toArrowField(name, ((UserDefinedType<?>) type).sqlType(), nullable, path);
    }
    if (type instanceof ArrayType) {
      ArrayType array = (ArrayType) type;
      Field element =
          toArrowField("element", array.elementType(), array.containsNull(), path + ".element");
      return new Field(
          name, new FieldType(nullable, ArrowType.List.INSTANCE, null), List.of(element));
    }
    if (type instanceof StructType) {
      List<Field> children = new ArrayList<>();
      for (StructField member : ((StructType) type).fields()) {
        children.add(
            toArrowField(
                member.name(), member.dataType(), member.nullable(), path + "." + member.name()));
      }
      return new Field(name, new FieldType(nullable, ArrowType.Struct.INSTANCE, null), children);
    }
    if (type instanceof MapType) {
      MapType map = (MapType) type;
      Field key = toArrowField("key", map.keyType(), false, path + ".key");
      Field value =
          toArrowField("value", map.valueType(), map.valueContainsNull(), path + ".value");
      Field entries =
          new Field(
              "entries",
              new FieldType(false, ArrowType.Struct.INSTANCE, null),
              List.of(key, value));
      return new Field(
          name, new FieldType(nullable, new ArrowType.Map(false), null), List.of(entries));
    }
    return new Field(name, new FieldType(nullable, toArrowType(type, path), null), null);
  }

  private static ArrowType toArrowType(DataType type, String path) {
    if (type instanceof BooleanType) {
      return ArrowType.Bool.INSTANCE;
    }
    if (type instanceof ByteType) {
      return new ArrowType.Int(8, true);
    }
    if (type instanceof ShortType) {
      return new ArrowType.Int(16, true);
    }
    if (type instanceof IntegerType) {
      return new ArrowType.Int(32, true);
    }
    if (type instanceof LongType) {
      return new ArrowType.Int(64, true);
    }
    if (type instanceof FloatType) {
      return new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE);
    }
    if (type instanceof DoubleType) {
      return new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE);
    }
    if (type instanceof DecimalType) {
      DecimalType decimal = (DecimalType) type;
      return new ArrowType.Decimal(decimal.precision(), decimal.scale(), 128);
    }
    if (type instanceof StringType) {
      return ArrowType.Utf8.INSTANCE;
    }
    if (type instanceof BinaryType) {
      return ArrowType.Binary.INSTANCE;
    }
    if (type instanceof DateType) {
      return new ArrowType.Date(DateUnit.DAY);
    }
    if (type instanceof TimestampType) {
      return new ArrowType.Timestamp(TimeUnit.MICROSECOND, "UTC");
    }
    if (type instanceof TimestampNTZType) {
      return new ArrowType.Timestamp(TimeUnit.MICROSECOND, null);
    }
    if (SparkTimeType.isTime(type)) {
      int precision = SparkTimeType.precision(type);
      if (precision == 0) {
        return new ArrowType.Time(TimeUnit.SECOND, 32);
      }
      if (precision <= 3) {
        return new ArrowType.Time(TimeUnit.MILLISECOND, 32);
      }
      return new ArrowType.Time(TimeUnit.MICROSECOND, 64);
    }
    if (type instanceof DayTimeIntervalType) {
      return new ArrowType.Duration(TimeUnit.MICROSECOND);
    }
    if (type instanceof YearMonthIntervalType) {
      return new ArrowType.Interval(IntervalUnit.YEAR_MONTH);
    }
    if (type instanceof CalendarIntervalType) {
      return new ArrowType.Interval(IntervalUnit.MONTH_DAY_NANO);
    }
    if (type instanceof NullType) {
      return ArrowType.Null.INSTANCE;
    }
    throw new UnsupportedSparkTypeException(
        "Column '"
            + path
            + "' has Spark type "
            + type.simpleString()
            + ", which spark-flightsql cannot send as Arrow. Cast it to a type listed in"
            + " docs/types.md (for example to_json(...) for a VARIANT), or leave the column out.");
  }
}
