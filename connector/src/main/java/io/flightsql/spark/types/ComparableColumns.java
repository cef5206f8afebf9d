package io.flightsql.spark.types;

import java.util.Collections;
import java.util.HashSet;
import java.util.Set;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.spark.sql.types.BinaryType;
import org.apache.spark.sql.types.BooleanType;
import org.apache.spark.sql.types.ByteType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DateType;
import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.sql.types.DoubleType;
import org.apache.spark.sql.types.FloatType;
import org.apache.spark.sql.types.IntegerType;
import org.apache.spark.sql.types.LongType;
import org.apache.spark.sql.types.ShortType;
import org.apache.spark.sql.types.StringType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.types.TimestampNTZType;
import org.apache.spark.sql.types.TimestampType;

/**
 * Which columns of a result hold, in Spark, the very values the server holds: then a filter, an
 * ordering or an aggregate over the column means the same on the server as in Spark, and may be
 * pushed. A column the connector converts does not qualify: a union or a decimal read as text, an
 * unsigned integer widened, nanoseconds truncated, an extension type, a dictionary-encoded column
 * (a DuckDB ENUM sorts by its member order, not its text).
 */
public final class ComparableColumns {
  private ComparableColumns() {}

  /** The names of the columns of {@code spark} whose field in {@code arrow} qualifies. */
  public static Set<String> of(Schema arrow, StructType spark) {
    Set<String> names = new HashSet<>();
    if (arrow.getFields().size() != spark.size()) {
      return Collections.emptySet();
    }
    for (int i = 0; i < spark.size(); i++) {
      Field field = arrow.getFields().get(i);
      StructField column = spark.fields()[i];
      if (field.getName().equals(column.name()) && holdsSameValues(field, column.dataType())) {
        names.add(column.name());
      }
    }
    return names;
  }

  /** Whether {@code field}, read as {@code spark}, holds in Spark the values the server holds. */
  public static boolean holdsSameValues(Field field, DataType spark) {
    if (field.getDictionary() != null) {
      return false;
    }
    ArrowType type = field.getType();
    switch (type.getTypeID()) {
      case Bool:
        return spark instanceof BooleanType;
      case Int:
        {
          ArrowType.Int i = (ArrowType.Int) type;
          if (!i.getIsSigned()) {
            return false;
          }
          switch (i.getBitWidth()) {
            case 8:
              return spark instanceof ByteType;
            case 16:
              return spark instanceof ShortType;
            case 32:
              return spark instanceof IntegerType;
            case 64:
              return spark instanceof LongType;
            default:
              return false;
          }
        }
      case FloatingPoint:
        {
          FloatingPointPrecision p = ((ArrowType.FloatingPoint) type).getPrecision();
          return (p == FloatingPointPrecision.SINGLE && spark instanceof FloatType)
              || (p == FloatingPointPrecision.DOUBLE && spark instanceof DoubleType);
        }
      case Decimal:
        {
          ArrowType.Decimal d = (ArrowType.Decimal) type;
          return spark instanceof DecimalType
              && ((DecimalType) spark).precision() == d.getPrecision()
              && ((DecimalType) spark).scale() == d.getScale();
        }
      case Utf8:
      case LargeUtf8:
      case Utf8View:
        return spark instanceof StringType;
      case Binary:
      case LargeBinary:
      case BinaryView:
        return spark instanceof BinaryType;
      case Date:
        return spark instanceof DateType;
      case Timestamp:
        {
          ArrowType.Timestamp t = (ArrowType.Timestamp) type;
          if (t.getUnit() == TimeUnit.NANOSECOND) {
            return false;
          }
          return t.getTimezone() == null
              ? spark instanceof TimestampNTZType
              : spark instanceof TimestampType;
        }
      default:
        return false;
    }
  }
}
