package io.flightsql.spark.vector;

import io.flightsql.spark.vector.NestedWriters.ListWriter;
import io.flightsql.spark.vector.NestedWriters.MapWriter;
import io.flightsql.spark.vector.NestedWriters.StructWriter;
import io.flightsql.spark.vector.ScalarWriters.BooleanWriter;
import io.flightsql.spark.vector.ScalarWriters.ByteWriter;
import io.flightsql.spark.vector.ScalarWriters.CalendarIntervalWriter;
import io.flightsql.spark.vector.ScalarWriters.DecimalWriter;
import io.flightsql.spark.vector.ScalarWriters.DoubleWriter;
import io.flightsql.spark.vector.ScalarWriters.FloatWriter;
import io.flightsql.spark.vector.ScalarWriters.IntWriter;
import io.flightsql.spark.vector.ScalarWriters.LongWriter;
import io.flightsql.spark.vector.ScalarWriters.NullWriter;
import io.flightsql.spark.vector.ScalarWriters.ShortWriter;
import io.flightsql.spark.vector.ScalarWriters.TimeOfDayWriter;
import io.flightsql.spark.vector.VariableWidthWriters.BinaryWriter;
import io.flightsql.spark.vector.VariableWidthWriters.StringWriter;
import java.util.List;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.MapVector;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.spark.sql.catalyst.expressions.SpecializedGetters;

/**
 * Writes Spark values, one at a time, into one Arrow vector: the write side of the column vectors
 * in this package. A column's writers form a tree that mirrors its vectors and is resolved once,
 * from the vectors that {@code SparkToArrow.toArrowSchema} made, so appending a value costs one
 * virtual call and no type test.
 *
 * <p>Values come in Spark's internal form from anything that holds them by ordinal: a row, a
 * struct, an array's elements, a map's keys or values. A column's slots are written in order, NULLs
 * included, so offsets have no holes to fill later. The writers hold the vectors, never their
 * buffers, which move when a vector grows.
 */
abstract class FieldWriter {
  /** The column's name, dotted for nested fields, for error messages. */
  final String path;

  private final boolean nullable;

  FieldWriter(String path, boolean nullable) {
    this.path = path;
    this.nullable = nullable;
  }

  /**
   * Writes the value at {@code ordinal} of {@code input} into slot {@code index}.
   *
   * @return the bytes of values, offsets and string data that it added to the batch
   */
  final long write(SpecializedGetters input, int ordinal, int index) {
    if (input.isNullAt(ordinal)) {
      if (!nullable) {
        throw nullInNonNullable();
      }
      return writeNull(index);
    }
    return writeValue(input, ordinal, index);
  }

  /** Writes a value known not to be NULL. */
  abstract long writeValue(SpecializedGetters input, int ordinal, int index);

  /** Writes NULL into slot {@code index}, whatever the field's nullability (a NULL parent). */
  abstract long writeNull(int index);

  private IllegalArgumentException nullInNonNullable() {
    return new IllegalArgumentException(
        "Column '"
            + path
            + "' is not nullable in the DataFrame's schema, but a row holds NULL in it. Make the"
            + " column nullable (for example by a cast or a CASE with a NULL branch), or filter"
            + " the NULLs out before writing.");
  }

  /** The writer tree for a vector of the Arrow schema that {@code SparkToArrow} wrote. */
  static FieldWriter forVector(FieldVector vector, String path) {
    boolean nullable = vector.getField().isNullable();
    ArrowType type = vector.getField().getType();
    switch (vector.getMinorType()) {
      case NULL:
        return new NullWriter(path);
      case BIT:
        return new BooleanWriter((BitVector) vector, path, nullable);
      case TINYINT:
        return new ByteWriter((BaseFixedWidthVector) vector, path, nullable);
      case SMALLINT:
        return new ShortWriter((BaseFixedWidthVector) vector, path, nullable);
      case INT:
      case DATEDAY:
      case INTERVALYEAR:
        return new IntWriter((BaseFixedWidthVector) vector, path, nullable);
      case BIGINT:
      case TIMESTAMPMICRO:
      case TIMESTAMPMICROTZ:
      case DURATION:
        return new LongWriter((BaseFixedWidthVector) vector, path, nullable);
      case FLOAT4:
        return new FloatWriter((BaseFixedWidthVector) vector, path, nullable);
      case FLOAT8:
        return new DoubleWriter((BaseFixedWidthVector) vector, path, nullable);
      case DECIMAL:
        return new DecimalWriter((DecimalVector) vector, path, nullable);
      case VARCHAR:
        return new StringWriter((BaseVariableWidthVector) vector, path, nullable);
      case VARBINARY:
        return new BinaryWriter((BaseVariableWidthVector) vector, path, nullable);
      case TIMESEC:
      case TIMEMILLI:
      case TIMEMICRO:
        return new TimeOfDayWriter(
            (BaseFixedWidthVector) vector, path, nullable, ((ArrowType.Time) type).getUnit());
      case INTERVALMONTHDAYNANO:
        return new CalendarIntervalWriter((BaseFixedWidthVector) vector, path, nullable);
      case MAP:
        MapVector map = (MapVector) vector;
        StructVector entries = (StructVector) map.getDataVector();
        List<FieldVector> keyAndValue = entries.getChildrenFromFields();
        return new MapWriter(
            map,
            forVector(keyAndValue.get(0), path + ".key"),
            forVector(keyAndValue.get(1), path + ".value"),
            path,
            nullable);
      case LIST:
        ListVector list = (ListVector) vector;
        return new ListWriter(
            list, forVector(list.getDataVector(), path + ".element"), path, nullable);
      case STRUCT:
        List<FieldVector> children = vector.getChildrenFromFields();
        FieldWriter[] members = new FieldWriter[children.size()];
        for (int i = 0; i < members.length; i++) {
          FieldVector child = children.get(i);
          members[i] = forVector(child, path + "." + child.getName());
        }
        return new StructWriter((StructVector) vector, members, path, nullable);
      default:
        // SparkToArrow.toArrowField and this switch must agree; a type added there lands here.
        throw new IllegalArgumentException(
            "No writer for Arrow type " + type + " (column '" + path + "')");
    }
  }
}
