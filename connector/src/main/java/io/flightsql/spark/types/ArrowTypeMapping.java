package io.flightsql.spark.types;

import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.sql.types.Metadata;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * The one table from Arrow types to Spark types. A type outside it fails while planning, naming
 * the column, its Arrow type and what to do instead. Documented in {@code docs/types.md}.
 */
public final class ArrowTypeMapping {
  private ArrowTypeMapping() {}

  public static StructType toSparkSchema(Schema schema) {
    List<StructField> fields = new ArrayList<>();
    for (Field field : schema.getFields()) {
      fields.add(
          new StructField(field.getName(), toSparkType(field), field.isNullable(), Metadata.empty()));
    }
    return new StructType(fields.toArray(new StructField[0]));
  }

  /**
   * The Spark type a column of this Arrow field reads as.
   *
   * @throws UnsupportedArrowTypeException when the connector cannot read it
   */
  public static DataType toSparkType(Field field) {
    ArrowType type = field.getType();
    if (field.getDictionary() != null) {
      throw unsupported(field, "dictionary-encoded " + type);
    }
    switch (type.getTypeID()) {
      case Bool:
        return DataTypes.BooleanType;
      case Int:
        return integer(field, (ArrowType.Int) type);
      case FloatingPoint:
        FloatingPointPrecision precision = ((ArrowType.FloatingPoint) type).getPrecision();
        if (precision == FloatingPointPrecision.SINGLE) {
          return DataTypes.FloatType;
        }
        if (precision == FloatingPointPrecision.DOUBLE) {
          return DataTypes.DoubleType;
        }
        throw unsupported(field, type.toString());
      case Decimal:
        ArrowType.Decimal decimal = (ArrowType.Decimal) type;
        if (decimal.getBitWidth() != 128) {
          throw unsupported(field, type.toString());
        }
        if (decimal.getPrecision() > DecimalType.MAX_PRECISION()) {
          throw unsupported(field, type.toString());
        }
        return DataTypes.createDecimalType(decimal.getPrecision(), decimal.getScale());
      case Utf8:
      case LargeUtf8:
        return DataTypes.StringType;
      case Binary:
      case LargeBinary:
        return DataTypes.BinaryType;
      case Date:
        if (((ArrowType.Date) type).getUnit() == org.apache.arrow.vector.types.DateUnit.DAY) {
          return DataTypes.DateType;
        }
        throw unsupported(field, type.toString());
      case Timestamp:
        ArrowType.Timestamp ts = (ArrowType.Timestamp) type;
        return ts.getTimezone() == null ? DataTypes.TimestampNTZType : DataTypes.TimestampType;
      default:
        throw unsupported(field, type.toString());
    }
  }

  private static DataType integer(Field field, ArrowType.Int type) {
    if (!type.getIsSigned()) {
      throw unsupported(field, type.toString() + " (unsigned)");
    }
    switch (type.getBitWidth()) {
      case 8:
        return DataTypes.ByteType;
      case 16:
        return DataTypes.ShortType;
      case 32:
        return DataTypes.IntegerType;
      case 64:
        return DataTypes.LongType;
      default:
        throw unsupported(field, type.toString());
    }
  }

  private static UnsupportedArrowTypeException unsupported(Field field, String arrowType) {
    return new UnsupportedArrowTypeException(
        "Column '"
            + field.getName()
            + "' has Arrow type "
            + arrowType
            + ", which spark-flightsql does not support yet. Cast it in the query to a supported"
            + " type (e.g. CAST("
            + field.getName()
            + " AS VARCHAR)), or leave the column out; see docs/types.md for the types read"
            + " today.");
  }
}
