package io.flightsql.spark.types;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.flightsql.spark.types.TypeMappingOptions.DecimalOverflow;
import io.flightsql.spark.types.TypeMappingOptions.Nanoseconds;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.IntervalUnit;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.UnionMode;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.DictionaryEncoding;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Test;

class ArrowToSparkTest {
  private static final TypeMappingOptions DEFAULTS = TypeMappingOptions.defaults();

  private static Field field(String name, ArrowType type, Field... children) {
    return new Field(name, FieldType.nullable(type), Arrays.asList(children));
  }

  private static Field notNull(String name, ArrowType type, Field... children) {
    return new Field(name, FieldType.notNullable(type), Arrays.asList(children));
  }

  private static DataType map(ArrowType type, Field... children) {
    return ArrowToSpark.toSparkType(field("c", type, children), DEFAULTS);
  }

  @Test
  void scalarTypes() {
    assertThat(map(ArrowType.Bool.INSTANCE)).isEqualTo(DataTypes.BooleanType);
    assertThat(map(ArrowType.Null.INSTANCE)).isEqualTo(DataTypes.NullType);
    assertThat(map(new ArrowType.Int(8, true))).isEqualTo(DataTypes.ByteType);
    assertThat(map(new ArrowType.Int(16, true))).isEqualTo(DataTypes.ShortType);
    assertThat(map(new ArrowType.Int(32, true))).isEqualTo(DataTypes.IntegerType);
    assertThat(map(new ArrowType.Int(64, true))).isEqualTo(DataTypes.LongType);
    assertThat(map(new ArrowType.Int(8, false))).isEqualTo(DataTypes.ShortType);
    assertThat(map(new ArrowType.Int(16, false))).isEqualTo(DataTypes.IntegerType);
    assertThat(map(new ArrowType.Int(32, false))).isEqualTo(DataTypes.LongType);
    assertThat(map(new ArrowType.Int(64, false))).isEqualTo(DataTypes.createDecimalType(20, 0));
    assertThat(map(new ArrowType.FloatingPoint(FloatingPointPrecision.HALF)))
        .isEqualTo(DataTypes.FloatType);
    assertThat(map(new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE)))
        .isEqualTo(DataTypes.FloatType);
    assertThat(map(new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE)))
        .isEqualTo(DataTypes.DoubleType);
    for (ArrowType string :
        List.of(
            ArrowType.Utf8.INSTANCE, ArrowType.LargeUtf8.INSTANCE, ArrowType.Utf8View.INSTANCE)) {
      assertThat(map(string)).isEqualTo(DataTypes.StringType);
    }
    for (ArrowType binary :
        List.of(
            ArrowType.Binary.INSTANCE,
            ArrowType.LargeBinary.INSTANCE,
            ArrowType.BinaryView.INSTANCE,
            new ArrowType.FixedSizeBinary(16))) {
      assertThat(map(binary)).isEqualTo(DataTypes.BinaryType);
    }
    assertThat(map(new ArrowType.Date(DateUnit.DAY))).isEqualTo(DataTypes.DateType);
    assertThat(map(new ArrowType.Date(DateUnit.MILLISECOND))).isEqualTo(DataTypes.DateType);
  }

  @Test
  void timestampsAreInstantsWithAZoneAndLocalWithout() {
    for (TimeUnit unit : TimeUnit.values()) {
      assertThat(map(new ArrowType.Timestamp(unit, "UTC"))).isEqualTo(DataTypes.TimestampType);
      assertThat(map(new ArrowType.Timestamp(unit, "America/New_York")))
          .isEqualTo(DataTypes.TimestampType);
      assertThat(map(new ArrowType.Timestamp(unit, null))).isEqualTo(DataTypes.TimestampNTZType);
      assertThat(map(new ArrowType.Duration(unit)))
          .isEqualTo(DataTypes.createDayTimeIntervalType());
    }
  }

  @Test
  void timesUseSparksTimeTypeWithThePrecisionOfTheUnitWhereTheSessionAllowsIt() {
    TypeMappingOptions time = DEFAULTS.withSparkTime(true);
    assertThat(
            ArrowToSpark.toSparkType(field("t", new ArrowType.Time(TimeUnit.SECOND, 32)), time)
                .sql())
        .isEqualTo("TIME(0)");
    assertThat(
            ArrowToSpark.toSparkType(field("t", new ArrowType.Time(TimeUnit.MILLISECOND, 32)), time)
                .sql())
        .isEqualTo("TIME(3)");
    assertThat(
            ArrowToSpark.toSparkType(field("t", new ArrowType.Time(TimeUnit.MICROSECOND, 64)), time)
                .sql())
        .isEqualTo("TIME(6)");
    assertThat(
            ArrowToSpark.toSparkType(field("t", new ArrowType.Time(TimeUnit.NANOSECOND, 64)), time)
                .sql())
        .isEqualTo("TIME(6)");
    // Without spark.sql.timeType.enabled (the default), microseconds since midnight.
    assertThat(DEFAULTS.sparkTime()).isFalse();
    assertThat(map(new ArrowType.Time(TimeUnit.NANOSECOND, 64))).isEqualTo(DataTypes.LongType);
  }

  @Test
  void intervals() {
    assertThat(map(new ArrowType.Interval(IntervalUnit.YEAR_MONTH)))
        .isEqualTo(DataTypes.createYearMonthIntervalType());
    assertThat(map(new ArrowType.Interval(IntervalUnit.DAY_TIME)))
        .isEqualTo(DataTypes.createDayTimeIntervalType());
    assertThat(map(new ArrowType.Interval(IntervalUnit.MONTH_DAY_NANO)))
        .isEqualTo(DataTypes.CalendarIntervalType);
  }

  @Test
  void decimalsUpTo38DigitsOfEitherWidth() {
    assertThat(map(new ArrowType.Decimal(15, 2, 128)))
        .isEqualTo(DataTypes.createDecimalType(15, 2));
    assertThat(map(new ArrowType.Decimal(38, 10, 128)))
        .isEqualTo(DataTypes.createDecimalType(38, 10));
    assertThat(map(new ArrowType.Decimal(38, 4, 256)))
        .isEqualTo(DataTypes.createDecimalType(38, 4));
    // A negative scale is written out as zeros: 5 digits * 10^3 need 8 digits.
    assertThat(map(new ArrowType.Decimal(5, -3, 128))).isEqualTo(DataTypes.createDecimalType(8, 0));
  }

  @Test
  void widerDecimalsFollowDecimalOverflow() {
    Field wide = field("amount", new ArrowType.Decimal(76, 10, 256));
    assertThatThrownBy(() -> ArrowToSpark.toSparkType(wide, DEFAULTS))
        .isInstanceOf(UnsupportedArrowTypeException.class)
        .hasMessage(
            "Column 'amount' has Arrow type Decimal(76, 10, 256), which spark-flightsql cannot"
                + " read: it has 76 digits and Spark's decimals have at most 38. Set option"
                + " 'decimalOverflow' to 'string' to read each value as its exact decimal text, or"
                + " to 'null' to read it as DECIMAL(38, 10) with NULL for each value that does not"
                + " fit; or cast it in the query. See docs/types.md.");
    TypeMappingOptions asString =
        TypeMappingOptions.of(DecimalOverflow.STRING, Nanoseconds.TRUNCATE);
    TypeMappingOptions asNull = TypeMappingOptions.of(DecimalOverflow.NULL, Nanoseconds.TRUNCATE);
    assertThat(ArrowToSpark.toSparkType(wide, asString)).isEqualTo(DataTypes.StringType);
    assertThat(ArrowToSpark.toSparkType(wide, asNull))
        .isEqualTo(DataTypes.createDecimalType(38, 10));
    Field required = notNull("amount", new ArrowType.Decimal(76, 10, 256));
    assertThat(ArrowToSpark.isNullableInSpark(required, asNull)).isTrue();
    assertThat(ArrowToSpark.isNullableInSpark(required, asString)).isFalse();
  }

  @Test
  void nestedTypesToAnyDepth() {
    Field element = field("item", new ArrowType.Int(32, true));
    DataType ints = DataTypes.createArrayType(DataTypes.IntegerType, true);
    assertThat(map(ArrowType.List.INSTANCE, element)).isEqualTo(ints);
    assertThat(map(ArrowType.LargeList.INSTANCE, element)).isEqualTo(ints);
    assertThat(map(new ArrowType.FixedSizeList(3), element)).isEqualTo(ints);
    assertThat(map(ArrowType.ListView.INSTANCE, element)).isEqualTo(ints);
    assertThat(map(ArrowType.LargeListView.INSTANCE, element)).isEqualTo(ints);
    assertThat(
            map(
                ArrowType.List.INSTANCE,
                field("inner", ArrowType.List.INSTANCE, notNull("item", ArrowType.Utf8.INSTANCE))))
        .isEqualTo(
            DataTypes.createArrayType(
                DataTypes.createArrayType(DataTypes.StringType, false), true));

    DataType struct =
        map(
            ArrowType.Struct.INSTANCE,
            notNull("a", new ArrowType.Int(64, true)),
            field("b", ArrowType.Struct.INSTANCE, field("c", ArrowType.Bool.INSTANCE)));
    assertThat(struct)
        .isEqualTo(
            new StructType()
                .add("a", DataTypes.LongType, false)
                .add("b", new StructType().add("c", DataTypes.BooleanType, true), true));

    Field entries =
        notNull(
            "entries",
            ArrowType.Struct.INSTANCE,
            notNull("key", ArrowType.Utf8.INSTANCE),
            field("value", new ArrowType.Int(32, false)));
    assertThat(map(new ArrowType.Map(false), entries))
        .isEqualTo(DataTypes.createMapType(DataTypes.StringType, DataTypes.LongType, true));
  }

  @Test
  void dictionariesReadAsTheirValues() {
    Field status =
        new Field(
            "status",
            new FieldType(
                false,
                ArrowType.Utf8.INSTANCE,
                new DictionaryEncoding(1, false, new ArrowType.Int(8, false))),
            Collections.emptyList());
    assertThat(ArrowToSpark.toSparkType(status, DEFAULTS)).isEqualTo(DataTypes.StringType);
    // The dictionary may hold a NULL even when the indices are all set.
    assertThat(ArrowToSpark.isNullableInSpark(status, DEFAULTS)).isTrue();
  }

  @Test
  void unionsOfOneTypeAndNullReadAsThatType() {
    Field nullOrInt =
        field(
            "n",
            new ArrowType.Union(UnionMode.Dense, new int[] {0, 1}),
            field("null", ArrowType.Null.INSTANCE),
            field("int", new ArrowType.Int(32, true)));
    assertThat(ArrowToSpark.toSparkType(nullOrInt, DEFAULTS)).isEqualTo(DataTypes.IntegerType);
    Field onlyNull =
        field(
            "n",
            new ArrowType.Union(UnionMode.Sparse, new int[] {0}),
            field("null", ArrowType.Null.INSTANCE));
    assertThat(ArrowToSpark.toSparkType(onlyNull, DEFAULTS)).isEqualTo(DataTypes.NullType);
  }

  @Test
  void unionsOfSeveralTypesAreRefusedNamingTheColumnAndTheTypes() {
    Field mixed =
        field(
            "payload",
            new ArrowType.Union(UnionMode.Dense, new int[] {0, 1}),
            field("i", new ArrowType.Int(32, true)),
            field("s", ArrowType.Utf8.INSTANCE));
    Field parent = field("event", ArrowType.Struct.INSTANCE, mixed);
    assertThatThrownBy(() -> ArrowToSpark.toSparkType(parent, DEFAULTS))
        .isInstanceOf(UnsupportedArrowTypeException.class)
        .hasMessage(
            "Column 'event.payload' has Arrow type Union(Dense, [0, 1]), which spark-flightsql"
                + " cannot read: its members have different types (int and string) and Spark has"
                + " no union type. Set option 'mixedUnions' to 'string' to read each value as its"
                + " text, cast it in the query to one type, or read each member as a column of its"
                + " own. See docs/types.md.");
    assertThat(ArrowToSpark.toSparkType(parent, DEFAULTS.withMixedUnionsAsText(true)))
        .isEqualTo(new StructType().add("payload", DataTypes.StringType, true));
  }

  @Test
  void schemaKeepsNamesOrderAndNullability() {
    Schema schema =
        new Schema(
            Arrays.asList(
                notNull("id", new ArrowType.Int(64, true)),
                field("name with space", ArrowType.Utf8.INSTANCE),
                notNull("nothing", ArrowType.Null.INSTANCE)));
    StructType spark = ArrowToSpark.toSparkSchema(schema, DEFAULTS);
    assertThat(spark.fieldNames()).containsExactly("id", "name with space", "nothing");
    assertThat(spark.fields()[0].nullable()).isFalse();
    assertThat(spark.fields()[1].nullable()).isTrue();
    assertThat(spark.fields()[2].nullable()).isTrue();
  }
}
