package io.flightsql.spark.types;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.Metadata;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Test;

class SparkToArrowTest {
  @Test
  void everySparkTypeAReadProducesGoesBackToAnArrowTypeThatReadsTheSame() {
    StructType schema =
        new StructType()
            .add("bool", DataTypes.BooleanType, false)
            .add("b", DataTypes.ByteType)
            .add("s", DataTypes.ShortType)
            .add("i", DataTypes.IntegerType)
            .add("l", DataTypes.LongType)
            .add("f", DataTypes.FloatType)
            .add("d", DataTypes.DoubleType)
            .add("small", DataTypes.createDecimalType(9, 2))
            .add("big", DataTypes.createDecimalType(38, 10))
            .add("str", DataTypes.StringType)
            .add("bin", DataTypes.BinaryType)
            .add("date", DataTypes.DateType)
            .add("ts", DataTypes.TimestampType)
            .add("ntz", DataTypes.TimestampNTZType)
            .add("t0", DataType.fromDDL("TIME(0)"))
            .add("t3", DataType.fromDDL("TIME(3)"))
            .add("t6", DataType.fromDDL("TIME(6)"))
            .add("dt", DataTypes.createDayTimeIntervalType())
            .add("ym", DataTypes.createYearMonthIntervalType())
            .add("cal", DataTypes.CalendarIntervalType)
            .add("nothing", DataTypes.NullType)
            .add("arr", DataTypes.createArrayType(DataTypes.IntegerType, false))
            .add(
                "m",
                DataTypes.createMapType(
                    DataTypes.StringType,
                    DataTypes.createArrayType(DataTypes.createDecimalType(20, 0), true),
                    true))
            .add(
                "st",
                new StructType()
                    .add("x", DataTypes.DoubleType, false)
                    .add("y", new StructType().add("z", DataTypes.StringType)));
    Schema arrow = SparkToArrow.toArrowSchema(schema);
    TypeMappingOptions withTime = TypeMappingOptions.defaults().withSparkTime(true);
    assertThat(arrow.findField("ts").getType())
        .isEqualTo(new ArrowType.Timestamp(TimeUnit.MICROSECOND, "UTC"));
    assertThat(arrow.findField("m").getChildren().get(0).getChildren().get(0).isNullable())
        .isFalse();
    assertThat(ArrowToSpark.toSparkSchema(arrow, withTime)).isEqualTo(schema);
  }

  @Test
  void sparkTypesWithoutAnArrowCounterpartAreRefusedNamingTheColumn() {
    StructType schema =
        new StructType(
            new StructField[] {
              new StructField(
                  "doc", new StructType().add("v", DataTypes.VariantType), true, Metadata.empty())
            });
    assertThatThrownBy(() -> SparkToArrow.toArrowSchema(schema))
        .isInstanceOf(UnsupportedSparkTypeException.class)
        .hasMessageStartingWith(
            "Column 'doc.v' has Spark type variant, which spark-flightsql cannot send");
  }
}
