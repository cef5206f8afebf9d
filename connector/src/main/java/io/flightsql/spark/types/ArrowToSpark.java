package io.flightsql.spark.types;

import io.flightsql.spark.types.TypeMappingOptions.DecimalOverflow;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.IntervalUnit;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.spark.sql.types.BinaryType;
import org.apache.spark.sql.types.BooleanType;
import org.apache.spark.sql.types.ByteType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.DateType;
import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.sql.types.DoubleType;
import org.apache.spark.sql.types.FloatType;
import org.apache.spark.sql.types.IntegerType;
import org.apache.spark.sql.types.LongType;
import org.apache.spark.sql.types.Metadata;
import org.apache.spark.sql.types.ShortType;
import org.apache.spark.sql.types.StringType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.types.TimestampNTZType;
import org.apache.spark.sql.types.TimestampType;

/**
 * The type table of reads: the Spark type each Arrow type a server sends is read as. {@link
 * SparkToArrow} is its inverse for writes. The column vectors in {@code io.flightsql.spark.vector}
 * read values the way this table says, and {@code docs/types.md} is generated from it by a test.
 *
 * <p>A type outside the table fails while planning, naming the column (a dotted path for nested
 * fields), its Arrow type and what to do instead.
 */
public final class ArrowToSpark {
  /** Spark's widest decimal. */
  static final int MAX_DECIMAL_PRECISION = DecimalType.MAX_PRECISION();

  private ArrowToSpark() {}

  public static StructType toSparkSchema(Schema schema, TypeMappingOptions options) {
    List<StructField> fields = new ArrayList<>();
    for (Field field : schema.getFields()) {
      fields.add(toSparkField(field, options));
    }
    return new StructType(fields.toArray(new StructField[0]));
  }

  /** The Spark column a top-level Arrow field reads as, with its name and nullability. */
  public static StructField toSparkField(Field field, TypeMappingOptions options) {
    return new StructField(
        field.getName(),
        toSparkType(field, options),
        isNullableInSpark(field, options),
        Metadata.empty());
  }

  /**
   * The Spark type a column of this Arrow field reads as.
   *
   * @throws UnsupportedArrowTypeException when Spark cannot represent it
   */
  public static DataType toSparkType(Field field, TypeMappingOptions options) {
    return toSparkType(field, field.getName(), options);
  }

  /**
   * Whether the Spark column may hold NULL. Beyond the Arrow field's own flag, some encodings
   * produce NULLs of their own: dictionaries (a NULL among the dictionary values), unions (a NULL
   * member), the Null type, and decimals read with {@code decimalOverflow=null} (a value with more
   * digits than its type reads as NULL).
   */
  public static boolean isNullableInSpark(Field field, TypeMappingOptions options) {
    if (field.isNullable() || field.getDictionary() != null) {
      return true;
    }
    ArrowType type = ArrowFields.storageType(field.getType());
    switch (type.getTypeID()) {
      case Null:
      case Union:
        return true;
      case RunEndEncoded:
        return isNullableInSpark(field.getChildren().get(1), options);
      case Decimal:
        return options.decimalOverflow() == DecimalOverflow.NULL;
      default:
        return false;
    }
  }

  /**
   * The scalar types: booleans, numbers, decimals, strings, binary, dates and timestamps. Their
   * values have one obvious text form (what a mixed union can read as text, {@code
   * mixedUnions=string}) and compare in SQL as in Spark (what pushdown may compare).
   */
  public static boolean isScalar(DataType type) {
    return type instanceof BooleanType
        || type instanceof ByteType
        || type instanceof ShortType
        || type instanceof IntegerType
        || type instanceof LongType
        || type instanceof FloatType
        || type instanceof DoubleType
        || type instanceof DecimalType
        || type instanceof StringType
        || type instanceof BinaryType
        || type instanceof DateType
        || type instanceof TimestampType
        || type instanceof TimestampNTZType;
  }

  /**
   * Whether a decimal has more digits than Spark's 38, once a negative scale (allowed in Arrow) is
   * written out as zeros.
   */
  static boolean decimalOverflows(ArrowType.Decimal decimal) {
    return sparkDecimalPrecision(decimal) > MAX_DECIMAL_PRECISION;
  }

  /** Digits a Spark decimal needs for this Arrow decimal, whatever the limit. */
  private static int sparkDecimalPrecision(ArrowType.Decimal decimal) {
    int scale = decimal.getScale();
    if (scale < 0) {
      return decimal.getPrecision() - scale;
    }
    return Math.max(decimal.getPrecision(), scale);
  }

  private static DataType toSparkType(Field field, String path, TypeMappingOptions options) {
    Field plain = ArrowFields.valueField(field);
    ArrowType type = plain.getType();
    if (ArrowFields.isBool8(plain)) {
      return DataTypes.BooleanType;
    }
    switch (type.getTypeID()) {
      case Null:
        return DataTypes.NullType;
      case Bool:
        return DataTypes.BooleanType;
      case Int:
        return integer((ArrowType.Int) type);
      case FloatingPoint:
        FloatingPointPrecision precision = ((ArrowType.FloatingPoint) type).getPrecision();
        return precision == FloatingPointPrecision.DOUBLE
            ? DataTypes.DoubleType
            : DataTypes.FloatType;
      case Decimal:
        return decimal(field, path, (ArrowType.Decimal) type, options);
      case Utf8:
      case LargeUtf8:
      case Utf8View:
        return DataTypes.StringType;
      case Binary:
      case LargeBinary:
      case BinaryView:
      case FixedSizeBinary:
        return DataTypes.BinaryType;
      case Date:
        return DataTypes.DateType;
      case Timestamp:
        return ((ArrowType.Timestamp) type).getTimezone() == null
            ? DataTypes.TimestampNTZType
            : DataTypes.TimestampType;
      case Time:
        return time(((ArrowType.Time) type).getUnit(), options);
      case Duration:
        return DataTypes.createDayTimeIntervalType();
      case Interval:
        return interval(((ArrowType.Interval) type).getUnit());
      case List:
      case LargeList:
      case FixedSizeList:
      case ListView:
      case LargeListView:
        Field element = plain.getChildren().get(0);
        return DataTypes.createArrayType(
            toSparkType(element, path + ".element", options), isNullableInSpark(element, options));
      case Struct:
        List<StructField> members = new ArrayList<>();
        for (Field child : plain.getChildren()) {
          members.add(
              new StructField(
                  child.getName(),
                  toSparkType(child, path + "." + child.getName(), options),
                  isNullableInSpark(child, options),
                  Metadata.empty()));
        }
        return new StructType(members.toArray(new StructField[0]));
      case Map:
        Field entries = plain.getChildren().get(0);
        Field key = entries.getChildren().get(0);
        Field value = entries.getChildren().get(1);
        return DataTypes.createMapType(
            toSparkType(key, path + ".key", options),
            toSparkType(value, path + ".value", options),
            isNullableInSpark(value, options));
      case Union:
        return union(field, path, options);
      case RunEndEncoded:
        return toSparkType(plain.getChildren().get(1), path, options);
      default:
        throw unsupported(
            field,
            path,
            "Spark has no type for it",
            "Cast it in the query to a type listed in docs/types.md, or leave the column out.");
    }
  }

  private static DataType integer(ArrowType.Int type) {
    int bits = type.getBitWidth();
    if (type.getIsSigned()) {
      switch (bits) {
        case 8:
          return DataTypes.ByteType;
        case 16:
          return DataTypes.ShortType;
        case 32:
          return DataTypes.IntegerType;
        default:
          return DataTypes.LongType;
      }
    }
    // Unsigned: the next wider signed type holds every value; nothing is wider than a long but a
    // decimal.
    switch (bits) {
      case 8:
        return DataTypes.ShortType;
      case 16:
        return DataTypes.IntegerType;
      case 32:
        return DataTypes.LongType;
      default:
        return DataTypes.createDecimalType(20, 0);
    }
  }

  private static DataType decimal(
      Field field, String path, ArrowType.Decimal type, TypeMappingOptions options) {
    int precision = sparkDecimalPrecision(type);
    int scale = Math.max(type.getScale(), 0);
    if (precision <= MAX_DECIMAL_PRECISION) {
      return DataTypes.createDecimalType(precision, scale);
    }
    switch (options.decimalOverflow()) {
      case STRING:
        return DataTypes.StringType;
      case NULL:
        return DataTypes.createDecimalType(
            MAX_DECIMAL_PRECISION, Math.min(scale, MAX_DECIMAL_PRECISION));
      default:
        throw unsupported(
            field,
            path,
            "it has "
                + precision
                + " digits and Spark's decimals have at most "
                + MAX_DECIMAL_PRECISION,
            "Set option 'decimalOverflow' to 'string' to read each value as its exact decimal text,"
                + " or to 'null' to read it as DECIMAL(38, "
                + Math.min(scale, MAX_DECIMAL_PRECISION)
                + ") with NULL for each value that does not fit; or cast it in the query.");
    }
  }

  private static DataType time(TimeUnit unit, TypeMappingOptions options) {
    if (!options.sparkTime()) {
      return DataTypes.LongType;
    }
    switch (unit) {
      case SECOND:
        return SparkTimeType.of(0);
      case MILLISECOND:
        return SparkTimeType.of(3);
      default:
        return SparkTimeType.of(SparkTimeType.MAX_PRECISION);
    }
  }

  private static DataType interval(IntervalUnit unit) {
    switch (unit) {
      case YEAR_MONTH:
        return DataTypes.createYearMonthIntervalType();
      case DAY_TIME:
        return DataTypes.createDayTimeIntervalType();
      default:
        return DataTypes.CalendarIntervalType;
    }
  }

  /**
   * A union reads as its members' one type when every member but NULL has it (arrow-go sends a bare
   * NULL as a union of null and the column's type). Spark has no union type, so any other union is
   * refused.
   */
  private static DataType union(Field field, String path, TypeMappingOptions options) {
    DataType common = null;
    boolean mixed = false;
    List<Field> members = new ArrayList<>();
    List<DataType> types = new ArrayList<>();
    for (Field member : ArrowFields.valueField(field).getChildren()) {
      if (ArrowFields.isNullMember(member)) {
        continue;
      }
      DataType type = toSparkType(member, path + "." + member.getName(), options);
      members.add(member);
      types.add(type);
      if (common == null) {
        common = type;
      } else if (!common.equals(type)) {
        if (!options.mixedUnionsAsText()) {
          throw unsupported(
              field,
              path,
              "its members have different types ("
                  + common.simpleString()
                  + " and "
                  + type.simpleString()
                  + ") and Spark has no union type",
              "Set option 'mixedUnions' to 'string' to read each value as its text, cast it in"
                  + " the query to one type, or read each member as a column of its own.");
        }
        mixed = true;
      }
    }
    if (mixed) {
      for (int i = 0; i < members.size(); i++) {
        if (!isScalar(types.get(i))) {
          throw unsupported(
              field,
              path,
              "member '"
                  + members.get(i).getName()
                  + "' is a "
                  + types.get(i).simpleString()
                  + ", which option 'mixedUnions=string' cannot turn into text",
              "Cast it in the query to one type.");
        }
      }
      return DataTypes.StringType;
    }
    return common == null ? DataTypes.NullType : common;
  }

  private static UnsupportedArrowTypeException unsupported(
      Field field, String path, String why, String whatToDo) {
    return new UnsupportedArrowTypeException(
        "Column '"
            + path
            + "' has Arrow type "
            + ArrowFields.describe(field)
            + ", which spark-flightsql cannot read: "
            + why
            + ". "
            + whatToDo
            + " See docs/types.md.");
  }
}
