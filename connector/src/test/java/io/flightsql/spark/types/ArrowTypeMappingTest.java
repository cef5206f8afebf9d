package io.flightsql.spark.types;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import java.util.Collections;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.IntervalUnit;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.DictionaryEncoding;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Test;

class ArrowTypeMappingTest {
  private static Field field(String name, ArrowType type) {
    return Field.nullable(name, type);
  }

  private static DataType map(ArrowType type) {
    return ArrowTypeMapping.toSparkType(field("c", type));
  }

  @Test
  void mapsEveryTypeOfTheFoundation() {
    assertThat(map(ArrowType.Bool.INSTANCE)).isEqualTo(DataTypes.BooleanType);
    assertThat(map(new ArrowType.Int(8, true))).isEqualTo(DataTypes.ByteType);
    assertThat(map(new ArrowType.Int(16, true))).isEqualTo(DataTypes.ShortType);
    assertThat(map(new ArrowType.Int(32, true))).isEqualTo(DataTypes.IntegerType);
    assertThat(map(new ArrowType.Int(64, true))).isEqualTo(DataTypes.LongType);
    assertThat(map(new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE))).isEqualTo(DataTypes.FloatType);
    assertThat(map(new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE))).isEqualTo(DataTypes.DoubleType);
    assertThat(map(new ArrowType.Decimal(15, 2, 128))).isEqualTo(DataTypes.createDecimalType(15, 2));
    assertThat(map(new ArrowType.Decimal(38, 10, 128))).isEqualTo(DataTypes.createDecimalType(38, 10));
    assertThat(map(ArrowType.Utf8.INSTANCE)).isEqualTo(DataTypes.StringType);
    assertThat(map(ArrowType.LargeUtf8.INSTANCE)).isEqualTo(DataTypes.StringType);
    assertThat(map(ArrowType.Binary.INSTANCE)).isEqualTo(DataTypes.BinaryType);
    assertThat(map(ArrowType.LargeBinary.INSTANCE)).isEqualTo(DataTypes.BinaryType);
    assertThat(map(new ArrowType.Date(DateUnit.DAY))).isEqualTo(DataTypes.DateType);
    for (TimeUnit unit : TimeUnit.values()) {
      assertThat(map(new ArrowType.Timestamp(unit, "UTC"))).isEqualTo(DataTypes.TimestampType);
      assertThat(map(new ArrowType.Timestamp(unit, "America/New_York"))).isEqualTo(DataTypes.TimestampType);
      assertThat(map(new ArrowType.Timestamp(unit, null))).isEqualTo(DataTypes.TimestampNTZType);
    }
  }

  @Test
  void schemaKeepsNamesOrderAndNullability() {
    Schema schema =
        new Schema(
            Arrays.asList(
                new Field("id", FieldType.notNullable(new ArrowType.Int(64, true)), null),
                field("name with space", ArrowType.Utf8.INSTANCE)));
    StructType spark = ArrowTypeMapping.toSparkSchema(schema);
    assertThat(spark.fieldNames()).containsExactly("id", "name with space");
    assertThat(spark.fields()[0].nullable()).isFalse();
    assertThat(spark.fields()[1].nullable()).isTrue();
  }

  @Test
  void unsupportedTypesNameTheColumnAndTheArrowTypeAndTheWayOut() {
    assertThatThrownBy(
            () -> ArrowTypeMapping.toSparkType(field("span", new ArrowType.Interval(IntervalUnit.DAY_TIME))))
        .isInstanceOf(UnsupportedArrowTypeException.class)
        .hasMessageStartingWith("Column 'span' has Arrow type Interval(DAY_TIME), which spark-flightsql does not support yet")
        .hasMessageContaining("CAST(span AS VARCHAR)");
    assertThatThrownBy(() -> map(new ArrowType.Int(32, false))).hasMessageContaining("Int(32, false) (unsigned)");
    assertThatThrownBy(() -> map(new ArrowType.Decimal(50, 2, 256))).hasMessageContaining("Decimal(50, 2, 256)");
    assertThatThrownBy(() -> map(new ArrowType.Date(DateUnit.MILLISECOND))).hasMessageContaining("Date(MILLISECOND)");
    assertThatThrownBy(() -> map(new ArrowType.FloatingPoint(FloatingPointPrecision.HALF))).hasMessageContaining("HALF");
    assertThatThrownBy(() -> map(ArrowType.Null.INSTANCE)).hasMessageContaining("Null");
    assertThatThrownBy(
            () ->
                ArrowTypeMapping.toSparkType(
                    new Field(
                        "status",
                        new FieldType(true, ArrowType.Utf8.INSTANCE, new DictionaryEncoding(1, false, null)),
                        Collections.emptyList())))
        .hasMessageContaining("Column 'status' has Arrow type dictionary-encoded Utf8");
  }
}
