package io.flightsql.spark.vector;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.flightsql.spark.types.ArrowToSpark;
import io.flightsql.spark.types.TypeMappingOptions;
import io.flightsql.spark.types.UnsupportedSparkTypeException;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.channels.Channels;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.TimeMicroVector;
import org.apache.arrow.vector.TimeMilliVector;
import org.apache.arrow.vector.TimeSecVector;
import org.apache.arrow.vector.TimeStampMicroTZVector;
import org.apache.arrow.vector.TimeStampMicroVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.MapVector;
import org.apache.arrow.vector.ipc.ArrowStreamReader;
import org.apache.arrow.vector.ipc.ArrowStreamWriter;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.catalyst.expressions.SpecializedGetters;
import org.apache.spark.sql.catalyst.expressions.UnsafeProjection;
import org.apache.spark.sql.catalyst.util.ArrayBasedMapData;
import org.apache.spark.sql.catalyst.util.ArrayData;
import org.apache.spark.sql.catalyst.util.GenericArrayData;
import org.apache.spark.sql.catalyst.util.MapData;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.BinaryType;
import org.apache.spark.sql.types.BooleanType;
import org.apache.spark.sql.types.ByteType;
import org.apache.spark.sql.types.CalendarIntervalType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.DateType;
import org.apache.spark.sql.types.DayTimeIntervalType;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.sql.types.DoubleType;
import org.apache.spark.sql.types.FloatType;
import org.apache.spark.sql.types.IntegerType;
import org.apache.spark.sql.types.LongType;
import org.apache.spark.sql.types.MapType;
import org.apache.spark.sql.types.NullType;
import org.apache.spark.sql.types.ShortType;
import org.apache.spark.sql.types.StringType;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.types.TimeType;
import org.apache.spark.sql.types.TimestampNTZType;
import org.apache.spark.sql.types.TimestampType;
import org.apache.spark.sql.types.UserDefinedType;
import org.apache.spark.sql.types.YearMonthIntervalType;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import org.apache.spark.unsafe.types.CalendarInterval;
import org.apache.spark.unsafe.types.UTF8String;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Rows appended by {@link ArrowBatchBuilder} and read back through the connector's own column
 * vectors come out as they went in: writer and reader agree on every type of the mapping. The
 * allocator is closed after each test, failing it on any leaked buffer.
 */
class ArrowBatchBuilderTest {
  private static final TypeMappingOptions READ = TypeMappingOptions.defaults().withSparkTime(true);

  private static final int FIRST_DAY = (int) LocalDate.parse("0001-01-01").toEpochDay();
  private static final int LAST_DAY = (int) LocalDate.parse("9999-12-31").toEpochDay();
  private static final long FIRST_MICROS = micros("0001-01-01T00:00:00Z");
  private static final long LAST_MICROS = micros("9999-12-31T23:59:59.999999Z");

  /** The largest microseconds whose nanoseconds fit a long. */
  private static final long MAX_INTERVAL_MICROS = Long.MAX_VALUE / 1_000L;

  private static final Decimal DEC38_MAX =
      decimal("9999999999999999999999999999.9999999999", 38, 10);
  private static final Decimal DEC38_MIN =
      decimal("-9999999999999999999999999999.9999999999", 38, 10);

  private BufferAllocator allocator;

  @BeforeEach
  void setUp() {
    allocator = new RootAllocator(Long.MAX_VALUE);
  }

  @AfterEach
  void tearDown() {
    assertThat(allocator.getAllocatedMemory()).as("bytes left allocated").isZero();
    // Fails the test when a buffer leaked.
    allocator.close();
  }

  // ---------------------------------------------------------------------------------------------
  // Round trips

  private static final StructType SCALARS =
      new StructType()
          .add("bool", DataTypes.BooleanType)
          .add("byte", DataTypes.ByteType)
          .add("short", DataTypes.ShortType)
          .add("int", DataTypes.IntegerType)
          .add("long", DataTypes.LongType)
          .add("float", DataTypes.FloatType)
          .add("double", DataTypes.DoubleType)
          .add("dec18", DataTypes.createDecimalType(18, 4))
          .add("dec12", DataTypes.createDecimalType(12, 2))
          .add("dec19", DataTypes.createDecimalType(19, 0))
          .add("dec38", DataTypes.createDecimalType(38, 10))
          .add("string", DataTypes.StringType)
          .add("binary", DataTypes.BinaryType)
          .add("date", DataTypes.DateType)
          .add("ts", DataTypes.TimestampType)
          .add("ts_ntz", DataTypes.TimestampNTZType)
          .add("day_time", DataTypes.createDayTimeIntervalType())
          .add(
              "hour_minute",
              DataTypes.createDayTimeIntervalType(
                  DayTimeIntervalType.HOUR(), DayTimeIntervalType.MINUTE()))
          .add("year_month", DataTypes.createYearMonthIntervalType())
          .add("calendar", DataTypes.CalendarIntervalType)
          .add("void", DataTypes.NullType)
          .add("time", TimeType.apply(6));

  private static List<InternalRow> scalarRows() {
    byte[] allBytes = new byte[256];
    for (int i = 0; i < allBytes.length; i++) {
      allBytes[i] = (byte) i;
    }
    List<InternalRow> rows = new ArrayList<>();
    rows.add(
        row(
            true,
            Byte.MAX_VALUE,
            Short.MAX_VALUE,
            Integer.MAX_VALUE,
            Long.MAX_VALUE,
            Float.MAX_VALUE,
            Double.MAX_VALUE,
            decimal("99999999999999.9999", 18, 4),
            decimal("9999999999.99", 12, 2),
            decimal("9999999999999999999", 19, 0),
            DEC38_MAX,
            utf8(""),
            new byte[0],
            LAST_DAY,
            LAST_MICROS,
            LAST_MICROS,
            Long.MAX_VALUE,
            Long.MAX_VALUE,
            Integer.MAX_VALUE,
            new CalendarInterval(Integer.MAX_VALUE, Integer.MAX_VALUE, MAX_INTERVAL_MICROS),
            null,
            86_399_999_999_000L));
    rows.add(
        row(
            false,
            Byte.MIN_VALUE,
            Short.MIN_VALUE,
            Integer.MIN_VALUE,
            Long.MIN_VALUE,
            -Float.MAX_VALUE,
            -Double.MAX_VALUE,
            decimal("-99999999999999.9999", 18, 4),
            decimal("-9999999999.99", 12, 2),
            decimal("-9999999999999999999", 19, 0),
            DEC38_MIN,
            utf8("héllo wörld ✓ 日本語 🎉"),
            allBytes,
            FIRST_DAY,
            FIRST_MICROS,
            FIRST_MICROS,
            Long.MIN_VALUE,
            -60_000_000L,
            Integer.MIN_VALUE,
            new CalendarInterval(Integer.MIN_VALUE, Integer.MIN_VALUE, -MAX_INTERVAL_MICROS),
            null,
            0L));
    rows.add(row(new Object[SCALARS.size()]));
    rows.add(
        row(
            true,
            (byte) 0,
            (short) -1,
            0,
            -1L,
            Float.NaN,
            Double.NaN,
            decimal("0.0001", 18, 4),
            decimal("-0.01", 12, 2),
            decimal("0", 19, 0),
            decimal("0.0000000001", 38, 10),
            // A slice of a longer string: its bytes start past the base offset.
            utf8("--slice--").substring(2, 7),
            "bytes".getBytes(StandardCharsets.UTF_8),
            0,
            -1L,
            -1_000_001L,
            -1L,
            0L,
            -13,
            new CalendarInterval(-1, 1, -1L),
            null,
            45_296_123_456_000L));
    rows.add(
        row(
            false,
            (byte) 1,
            (short) 1,
            1,
            1L,
            Float.NEGATIVE_INFINITY,
            Double.POSITIVE_INFINITY,
            decimal("-0.0001", 18, 4),
            decimal("123.45", 12, 2),
            decimal("-1", 19, 0),
            decimal("-12345.6789", 38, 10),
            utf8("x".repeat(100_000)),
            new byte[] {0},
            -1,
            1L,
            1L,
            1L,
            3_600_000_000L,
            1,
            new CalendarInterval(0, 0, 0L),
            null,
            1_000L));
    rows.add(
        row(
            true,
            (byte) 2,
            (short) 2,
            2,
            2L,
            Float.MIN_VALUE,
            -0.0d,
            null,
            decimal("0.5", 12, 2),
            null,
            decimal("1", 38, 10),
            utf8("after the long one"),
            null,
            null,
            null,
            -62_135_596_800_000_001L,
            null,
            null,
            null,
            null,
            null,
            null));
    return rows;
  }

  @ParameterizedTest(name = "unsafe rows: {0}")
  @ValueSource(booleans = {false, true})
  void everyScalarTypeRoundTrips(boolean unsafe) {
    List<InternalRow> rows = unsafe ? unsafe(SCALARS, scalarRows()) : scalarRows();
    try (ArrowBatchBuilder builder = ArrowBatchBuilder.create(SCALARS, allocator)) {
      rows.forEach(builder::append);
      VectorSchemaRoot root = builder.finishBatch();

      assertThat(root.getRowCount()).isEqualTo(rows.size());
      assertThat(readBack(root)).isEqualTo(plainRows(SCALARS, rows));
      assertThat(root.getVector("ts")).isInstanceOf(TimeStampMicroTZVector.class);
      assertThat(((ArrowType.Timestamp) root.getVector("ts").getField().getType()).getTimezone())
          .isEqualTo("UTC");
      assertThat(root.getVector("ts_ntz")).isInstanceOf(TimeStampMicroVector.class);
      assertThat(root.getVector("void").getNullCount()).isEqualTo(rows.size());
      for (FieldVector vector : root.getFieldVectors()) {
        assertThat(vector.isNull(2)).as(vector.getName()).isTrue();
        assertThat(vector.isNull(0))
            .as(vector.getName())
            .isEqualTo(vector.getName().equals("void"));
      }
    }
  }

  @Test
  void valuesKeepTheirBitsAtTheEdges() {
    try (ArrowBatchBuilder builder = ArrowBatchBuilder.create(SCALARS, allocator)) {
      scalarRows().forEach(builder::append);
      ColumnarBatch batch = columns(builder.finishBatch());
      ColumnVector floats = batch.column(5);
      ColumnVector doubles = batch.column(6);
      assertThat(floats.getFloat(3)).isNaN();
      assertThat(floats.getFloat(4)).isEqualTo(Float.NEGATIVE_INFINITY);
      assertThat(floats.getFloat(5)).isEqualTo(Float.MIN_VALUE);
      assertThat(doubles.getDouble(3)).isNaN();
      assertThat(doubles.getDouble(4)).isEqualTo(Double.POSITIVE_INFINITY);
      assertThat(Double.doubleToRawLongBits(doubles.getDouble(5)))
          .isEqualTo(Double.doubleToRawLongBits(-0.0d));
      assertThat(batch.column(11).getUTF8String(1).toString()).isEqualTo("héllo wörld ✓ 日本語 🎉");
      assertThat(batch.column(11).getUTF8String(3).toString()).isEqualTo("slice");
      assertThat(batch.column(11).getUTF8String(0).numBytes()).isZero();
      assertThat(batch.column(11).isNullAt(0)).isFalse();
      assertThat(batch.column(12).getBinary(0)).isEmpty();
      assertThat(batch.column(12).isNullAt(0)).isFalse();
      assertThat(batch.column(10).getDecimal(0, 38, 10)).isEqualTo(DEC38_MAX);
      assertThat(batch.column(10).getDecimal(1, 38, 10)).isEqualTo(DEC38_MIN);
    }
  }

  private static final StructType NESTED =
      new StructType()
          .add("ints", DataTypes.createArrayType(DataTypes.IntegerType, true))
          .add(
              "nested",
              DataTypes.createArrayType(DataTypes.createArrayType(DataTypes.StringType, true)))
          .add(
              "person",
              new StructType()
                  .add("name", DataTypes.StringType)
                  .add("age", DataTypes.IntegerType)
                  .add("tags", DataTypes.createArrayType(DataTypes.StringType))
                  .add(
                      "address",
                      new StructType()
                          .add("city", DataTypes.StringType)
                          .add("zip", DataTypes.IntegerType)))
          .add("scores", DataTypes.createMapType(DataTypes.StringType, DataTypes.IntegerType, true))
          .add(
              "lookup",
              DataTypes.createMapType(
                  DataTypes.IntegerType,
                  new StructType()
                      .add("a", DataTypes.LongType)
                      .add("b", DataTypes.createArrayType(DataTypes.DoubleType))))
          .add(
              "points",
              DataTypes.createArrayType(
                  new StructType().add("x", DataTypes.IntegerType).add("y", DataTypes.StringType)))
          .add("nulls", DataTypes.createArrayType(DataTypes.NullType))
          .add("strict", DataTypes.createArrayType(DataTypes.LongType, false), false)
          .add(
              "map_of_maps",
              DataTypes.createMapType(
                  DataTypes.StringType,
                  DataTypes.createMapType(DataTypes.StringType, DataTypes.BinaryType)))
          .add("decimals", DataTypes.createArrayType(DataTypes.createDecimalType(38, 10)))
          .add(
              "temporal",
              DataTypes.createArrayType(
                  new StructType()
                      .add("d", DataTypes.DateType)
                      .add("t", DataTypes.TimestampType)
                      .add("i", DataTypes.CalendarIntervalType)
                      .add("tod", TimeType.apply(3))))
          .add(
              "deep",
              DataTypes.createArrayType(
                  DataTypes.createArrayType(
                      DataTypes.createArrayType(
                          DataTypes.createArrayType(DataTypes.IntegerType)))));

  private static InternalRow fullNestedRow(int seed) {
    return row(
        array(seed, null, seed + 2),
        array(array(utf8("a" + seed), null), array(), null, array(utf8("ü"), utf8(""))),
        row(utf8("Ann"), 30 + seed, array(utf8("x"), null), row(utf8("Paris"), 75_001)),
        map(utf8("a"), 1, utf8("b"), null),
        map(1, row(10L, array(1.5d, Double.NaN)), 2, null),
        array(row(1, utf8("p")), null, row(null, null)),
        array(null, null),
        array(7L, 8L),
        map(utf8("k"), map(utf8("x"), new byte[] {1, 2, 3}, utf8("y"), null), utf8("e"), map()),
        array(DEC38_MAX, null, DEC38_MIN),
        array(
            row(LAST_DAY, LAST_MICROS, new CalendarInterval(1, 2, 3L), 86_399_999_000_000L),
            row(null, null, null, null),
            null),
        array(array(array(array(seed), array()), null), array()));
  }

  private static List<InternalRow> nestedRows() {
    List<InternalRow> rows = new ArrayList<>();
    rows.add(fullNestedRow(1));
    rows.add(
        row(
            array(),
            array(),
            row(null, null, null, null),
            map(),
            map(),
            array(),
            array(),
            array(),
            map(),
            array(),
            array(),
            array()));
    Object[] nulls = new Object[NESTED.size()];
    nulls[7] = array();
    rows.add(row(nulls));
    rows.add(fullNestedRow(100));
    return rows;
  }

  @ParameterizedTest(name = "unsafe rows: {0}")
  @ValueSource(booleans = {false, true})
  void nestedTypesRoundTripWithNullsAtEveryLevel(boolean unsafe) {
    List<InternalRow> rows = unsafe ? unsafe(NESTED, nestedRows()) : nestedRows();
    try (ArrowBatchBuilder builder = ArrowBatchBuilder.create(NESTED, allocator)) {
      rows.forEach(builder::append);
      VectorSchemaRoot root = builder.finishBatch();

      List<List<Object>> back = readBack(root);
      assertThat(back).isEqualTo(plainRows(NESTED, rows));
      // A NULL struct and a struct of NULLs stay apart.
      assertThat(back.get(2).get(2)).isNull();
      assertThat(back.get(1).get(2)).isEqualTo(Arrays.asList(null, null, null, null));
      // Every map entry is a valid struct, as readers other than ours require.
      FieldVector entries = ((MapVector) root.getVector("scores")).getDataVector();
      assertThat(entries.getValueCount()).isEqualTo(4);
      assertThat(entries.getNullCount()).isZero();
    }
  }

  @Test
  void timesOfDayGoInTheUnitOfTheirPrecision() {
    StructType schema =
        new StructType()
            .add("t0", TimeType.apply(0))
            .add("t1", TimeType.apply(1))
            .add("t3", TimeType.apply(3))
            .add("t4", TimeType.apply(4))
            .add("t6", TimeType.apply(6));
    List<InternalRow> rows =
        List.of(
            row(
                86_399_000_000_000L,
                100_000_000L,
                86_399_999_000_000L,
                45_296_123_400_000L,
                86_399_999_999_000L),
            row(0L, 0L, 0L, 0L, 0L),
            row(new Object[5]));
    try (ArrowBatchBuilder builder = ArrowBatchBuilder.create(schema, allocator)) {
      rows.forEach(builder::append);
      VectorSchemaRoot root = builder.finishBatch();

      assertThat(((TimeSecVector) root.getVector("t0")).get(0)).isEqualTo(86_399);
      assertThat(((TimeMilliVector) root.getVector("t1")).get(0)).isEqualTo(100);
      assertThat(((TimeMilliVector) root.getVector("t3")).get(0)).isEqualTo(86_399_999);
      assertThat(((TimeMicroVector) root.getVector("t4")).get(0)).isEqualTo(45_296_123_400L);
      assertThat(((TimeMicroVector) root.getVector("t6")).get(0)).isEqualTo(86_399_999_999L);
      assertThat(readBack(root)).isEqualTo(plainRows(schema, rows));
    }
  }

  /** A user-defined type over an array of doubles: rows hold its SQL form. */
  static final class PointUdt extends UserDefinedType<double[]> {
    private static final long serialVersionUID = 1L;

    @Override
    public DataType sqlType() {
      return DataTypes.createArrayType(DataTypes.DoubleType, false);
    }

    @Override
    public Object serialize(double[] point) {
      Object[] values = new Object[point.length];
      for (int i = 0; i < point.length; i++) {
        values[i] = point[i];
      }
      return new GenericArrayData(values);
    }

    @Override
    public double[] deserialize(Object datum) {
      return ((ArrayData) datum).toDoubleArray();
    }

    @Override
    public Class<double[]> userClass() {
      return double[].class;
    }
  }

  @Test
  void userDefinedTypesGoAsTheirSqlType() {
    PointUdt udt = new PointUdt();
    StructType schema =
        new StructType().add("point", udt).add("points", DataTypes.createArrayType(udt));
    List<InternalRow> rows =
        List.of(
            row(udt.serialize(new double[] {1.5, -2.5}), array(udt.serialize(new double[] {0}))),
            row(null, array(null, udt.serialize(new double[0]))));
    try (ArrowBatchBuilder builder = ArrowBatchBuilder.create(schema, allocator)) {
      rows.forEach(builder::append);
      VectorSchemaRoot root = builder.finishBatch();

      assertThat(root.getVector("point")).isInstanceOf(ListVector.class);
      assertThat(readBack(root)).isEqualTo(plainRows(schema, rows));
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Decimals

  @Test
  void decimalsAreRescaledToTheirColumnWithoutChangingTheRow() {
    StructType schema =
        new StructType()
            .add("d12", DataTypes.createDecimalType(12, 2))
            .add("d38", DataTypes.createDecimalType(38, 10));
    Decimal shortScale = Decimal.apply("1.5");
    Decimal longScale = Decimal.apply("2.345");
    try (ArrowBatchBuilder builder = ArrowBatchBuilder.create(schema, allocator)) {
      builder.append(row(shortScale, shortScale));
      builder.append(row(longScale, Decimal.apply(7L)));
      ColumnarBatch batch = columns(builder.finishBatch());

      assertThat(batch.column(0).getDecimal(0, 12, 2).toJavaBigDecimal())
          .isEqualTo(new BigDecimal("1.50"));
      // Rounded half up, as Spark's casts round.
      assertThat(batch.column(0).getDecimal(1, 12, 2).toJavaBigDecimal())
          .isEqualTo(new BigDecimal("2.35"));
      assertThat(batch.column(1).getDecimal(0, 38, 10).toJavaBigDecimal())
          .isEqualTo(new BigDecimal("1.5000000000"));
      assertThat(batch.column(1).getDecimal(1, 38, 10).toJavaBigDecimal())
          .isEqualTo(new BigDecimal("7.0000000000"));
      assertThat(shortScale.scale()).isEqualTo(1);
      assertThat(longScale.scale()).isEqualTo(3);
    }
  }

  @Test
  void aDecimalTooWideForItsColumnFailsNamingIt() {
    StructType schema = new StructType().add("price", DataTypes.createDecimalType(12, 2));
    try (ArrowBatchBuilder builder = ArrowBatchBuilder.create(schema, allocator)) {
      assertThatThrownBy(() -> builder.append(row(Decimal.apply("12345678901.5"))))
          .isInstanceOf(ArithmeticException.class)
          .hasMessage(
              "Column 'price' is DECIMAL(12,2) but holds 12345678901.5, which does not fit it."
                  + " Cast the column to a wider decimal before writing.");
      assertThat(builder.rowCount()).isZero();
    }
  }

  @Test
  void decimalsAtTheLongBoundary() {
    StructType schema =
        new StructType()
            .add("d18", DataTypes.createDecimalType(18, 0))
            .add("d18s", DataTypes.createDecimalType(18, 18))
            .add("d19", DataTypes.createDecimalType(19, 0))
            .add("d38", DataTypes.createDecimalType(38, 0))
            .add("d38s", DataTypes.createDecimalType(38, 38));
    List<InternalRow> rows =
        List.of(
            row(
                decimal("999999999999999999", 18, 0),
                decimal("0.999999999999999999", 18, 18),
                decimal("9223372036854775808", 19, 0),
                decimal("99999999999999999999999999999999999999", 38, 0),
                decimal("0.00000000000000000000000000000000000001", 38, 38)),
            row(
                decimal("-999999999999999999", 18, 0),
                decimal("-0.999999999999999999", 18, 18),
                decimal("-9223372036854775809", 19, 0),
                decimal("-99999999999999999999999999999999999999", 38, 0),
                decimal("-0.99999999999999999999999999999999999999", 38, 38)),
            row(
                decimal("0", 18, 0),
                decimal("0", 18, 18),
                decimal("9223372036854775807", 19, 0),
                decimal("1", 38, 0),
                decimal("0", 38, 38)),
            row(
                decimal("1", 18, 0),
                decimal("0.000000000000000001", 18, 18),
                decimal("-9223372036854775808", 19, 0),
                decimal("-1", 38, 0),
                decimal("0.5", 38, 38)));
    try (ArrowBatchBuilder builder = ArrowBatchBuilder.create(schema, allocator)) {
      rows.forEach(builder::append);
      VectorSchemaRoot root = builder.finishBatch();
      assertThat(readBack(root)).isEqualTo(plainRows(schema, rows));
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Errors

  @Test
  void aNullInANonNullableColumnFailsNamingIt() {
    StructType schema =
        new StructType()
            .add("id", DataTypes.LongType, false)
            .add("tags", DataTypes.createArrayType(DataTypes.StringType, false));
    try (ArrowBatchBuilder builder = ArrowBatchBuilder.create(schema, allocator)) {
      assertThatThrownBy(() -> builder.append(row(null, array())))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage(
              "Column 'id' is not nullable in the DataFrame's schema, but a row holds NULL in it."
                  + " Make the column nullable (for example by a cast or a CASE with a NULL"
                  + " branch), or filter the NULLs out before writing.");
      assertThatThrownBy(() -> builder.append(row(1L, array(utf8("a"), null))))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageStartingWith("Column 'tags.element' is not nullable");
    }
  }

  @Test
  void anIntervalTooLongForNanosecondsFailsNamingIt() {
    StructType schema = new StructType().add("span", DataTypes.CalendarIntervalType);
    try (ArrowBatchBuilder builder = ArrowBatchBuilder.create(schema, allocator)) {
      CalendarInterval tooLong = new CalendarInterval(0, 0, MAX_INTERVAL_MICROS + 1);
      assertThatThrownBy(() -> builder.append(row(tooLong)))
          .isInstanceOf(ArithmeticException.class)
          .hasMessageStartingWith("Column 'span' holds the interval " + tooLong)
          .hasMessageContaining("too long for Arrow's month_day_nano interval");
    }
  }

  @Test
  void anUnsupportedTypeFailsBeforeAllocating() {
    StructType schema =
        new StructType().add("id", DataTypes.LongType).add("doc", DataTypes.VariantType);
    assertThatThrownBy(() -> ArrowBatchBuilder.create(schema, allocator))
        .isInstanceOf(UnsupportedSparkTypeException.class)
        .hasMessageStartingWith("Column 'doc' has Spark type variant");
    assertThat(allocator.getChildAllocators()).isEmpty();
  }

  // ---------------------------------------------------------------------------------------------
  // Batches, estimates and memory

  private static final StructType MIXED =
      new StructType()
          .add("id", DataTypes.LongType)
          .add("name", DataTypes.StringType)
          .add("flag", DataTypes.BooleanType)
          .add("price", DataTypes.createDecimalType(38, 10))
          .add("tags", DataTypes.createArrayType(DataTypes.StringType))
          .add(
              "item",
              new StructType().add("x", DataTypes.IntegerType).add("y", DataTypes.StringType))
          .add("attrs", DataTypes.createMapType(DataTypes.StringType, DataTypes.LongType));

  private static InternalRow mixedRow(long id) {
    return row(
        id,
        utf8("name-" + id + "-" + "n".repeat((int) (id % 50))),
        id % 2 == 0,
        decimal(id + ".5", 38, 10),
        array(utf8("t" + id), utf8("u" + id), null),
        row((int) id, utf8("y" + id)),
        map(utf8("k" + id), id, utf8("l" + id), null));
  }

  @Test
  void eachBatchAfterResetHoldsOnlyItsOwnRows() {
    try (ArrowBatchBuilder builder = ArrowBatchBuilder.create(MIXED, allocator)) {
      List<InternalRow> first = new ArrayList<>();
      for (long id = 0; id < 5_000; id++) {
        first.add(mixedRow(id));
      }
      first.forEach(builder::append);
      VectorSchemaRoot root = builder.finishBatch();
      assertThat(readBack(root)).isEqualTo(plainRows(MIXED, first));

      builder.reset();
      assertThat(builder.rowCount()).isZero();
      // Where the first batch had values, the second has NULLs, empty values and other values.
      List<InternalRow> second =
          List.of(
              row(new Object[MIXED.size()]),
              row(1L, utf8(""), false, null, array(), row(null, null), map()),
              mixedRow(77));
      second.forEach(builder::append);
      VectorSchemaRoot again = builder.finishBatch();

      assertThat(again).isSameAs(root);
      assertThat(again.getRowCount()).isEqualTo(3);
      assertThat(readBack(again)).isEqualTo(plainRows(MIXED, second));
      for (FieldVector vector : again.getFieldVectors()) {
        assertThat(vector.getValueCount()).as(vector.getName()).isEqualTo(3);
      }
      assertThat(again.getVector("id").getNullCount()).isEqualTo(1);
      assertThat(again.getVector("item").getNullCount()).isEqualTo(1);
      assertThat(((ListVector) again.getVector("tags")).getDataVector().getValueCount())
          .isEqualTo(3);
      assertThat(((MapVector) again.getVector("attrs")).getDataVector().getValueCount())
          .isEqualTo(2);
      VarCharVector names = (VarCharVector) again.getVector("name");
      assertThat(names.getOffsetBuffer().getInt(3L * 4))
          .isEqualTo(mixedRow(77).getUTF8String(1).numBytes());

      builder.reset();
      assertThat(builder.finishBatch().getRowCount()).isZero();
      assertThat(readBack(builder.finishBatch())).isEmpty();
    }
  }

  @Test
  void theByteEstimateGrowsWithTheDataAndDropsAfterReset() {
    try (ArrowBatchBuilder builder = ArrowBatchBuilder.create(MIXED, allocator)) {
      assertThat(builder.estimatedBytes()).isZero();
      builder.append(mixedRow(1));
      long one = builder.estimatedBytes();
      assertThat(one).isPositive();
      builder.append(mixedRow(1));
      assertThat(builder.estimatedBytes()).isEqualTo(2 * one);
      builder.append(row(1L, utf8("x".repeat(10_000)), null, null, null, null, null));
      assertThat(builder.estimatedBytes()).isGreaterThan(2 * one + 10_000);
      for (int i = 0; i < 10_000; i++) {
        builder.append(mixedRow(i));
      }
      long many = builder.estimatedBytes();
      // Within a factor of two of the bytes the batch's buffers really use.
      long used = 0;
      VectorSchemaRoot root = builder.finishBatch();
      for (FieldVector vector : root.getFieldVectors()) {
        used += vector.getBufferSize();
      }
      assertThat(many).isBetween(used / 2, used * 2);

      builder.reset();
      assertThat(builder.estimatedBytes()).isZero();
      builder.append(mixedRow(1));
      assertThat(builder.estimatedBytes()).isEqualTo(one);
    }
  }

  @Test
  void memoryStaysBoundedOverManyBatches() {
    StructType schema =
        new StructType()
            .add("id", DataTypes.LongType)
            .add("value", DataTypes.DoubleType)
            .add("name", DataTypes.StringType)
            .add("price", DataTypes.createDecimalType(12, 2))
            .add("at", DataTypes.TimestampType)
            .add("tags", DataTypes.createArrayType(DataTypes.IntegerType));
    InternalRow[] rows = new InternalRow[1_000];
    for (int i = 0; i < rows.length; i++) {
      rows[i] =
          row(
              (long) i,
              i * 0.5,
              utf8(String.format("name-%015d", i)),
              Decimal.apply(i * 100L + 5, 12, 2),
              1_700_000_000_000_000L + i,
              i % 10 == 0 ? null : array(i, i + 1, i + 2));
    }
    try (ArrowBatchBuilder builder = ArrowBatchBuilder.create(schema, allocator)) {
      long firstBatch = 0;
      long largest = 0;
      for (int batch = 0; batch < 200; batch++) {
        for (int r = 0; r < 10_000; r++) {
          builder.append(rows[r % rows.length]);
        }
        VectorSchemaRoot root = builder.finishBatch();
        assertThat(root.getRowCount()).isEqualTo(10_000);
        long held = allocator.getAllocatedMemory();
        if (batch == 0) {
          firstBatch = held;
        }
        largest = Math.max(largest, held);
        builder.reset();
      }
      assertThat(largest).isEqualTo(firstBatch);
      // A few bytes per value: nothing but the current batch is held.
      assertThat(largest).isLessThan(10_000L * 200);
    }
  }

  @Test
  void buffersLeftByAnUnusuallyLargeBatchAreGivenBack() {
    StructType schema =
        new StructType().add("id", DataTypes.LongType).add("blob", DataTypes.BinaryType);
    try (ArrowBatchBuilder builder = ArrowBatchBuilder.create(schema, allocator)) {
      long initial = allocator.getAllocatedMemory();
      byte[] large = new byte[8 << 20];
      for (int i = 0; i < 4; i++) {
        builder.append(row((long) i, large));
      }
      builder.finishBatch();
      assertThat(allocator.getAllocatedMemory()).isGreaterThan(32L << 20);
      builder.reset();

      builder.append(row(1L, new byte[] {1}));
      builder.finishBatch();
      builder.reset();
      assertThat(allocator.getAllocatedMemory()).isEqualTo(initial);

      builder.append(row(2L, new byte[] {2, 3}));
      assertThat(readBack(builder.finishBatch()))
          .containsExactly(Arrays.asList(2L, HexFormat.of().formatHex(new byte[] {2, 3})));
    }
  }

  @Test
  void batchesSurviveAnArrowStreamAsDoPutSendsThem() throws IOException {
    List<List<InternalRow>> batches = List.of(scalarRows(), scalarRows().subList(2, 4));
    assertThat(throughStream(SCALARS, batches)).isEqualTo(plainBatches(SCALARS, batches));
    List<List<InternalRow>> nested = List.of(nestedRows(), List.of(), nestedRows().subList(1, 3));
    assertThat(throughStream(NESTED, nested)).isEqualTo(plainBatches(NESTED, nested));
  }

  /** Each batch built, written to an Arrow IPC stream, read back and read through our columns. */
  private List<List<List<Object>>> throughStream(StructType schema, List<List<InternalRow>> batches)
      throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (ArrowBatchBuilder builder = ArrowBatchBuilder.create(schema, allocator);
        ArrowStreamWriter writer =
            new ArrowStreamWriter(builder.finishBatch(), null, Channels.newChannel(bytes))) {
      writer.start();
      for (List<InternalRow> batch : batches) {
        builder.reset();
        batch.forEach(builder::append);
        builder.finishBatch();
        writer.writeBatch();
      }
      writer.end();
    }
    List<List<List<Object>>> read = new ArrayList<>();
    try (ArrowStreamReader reader =
        new ArrowStreamReader(new ByteArrayInputStream(bytes.toByteArray()), allocator)) {
      while (reader.loadNextBatch()) {
        read.add(readBack(reader.getVectorSchemaRoot()));
      }
    }
    return read;
  }

  private static List<List<List<Object>>> plainBatches(
      StructType schema, List<List<InternalRow>> batches) {
    List<List<List<Object>>> result = new ArrayList<>();
    for (List<InternalRow> batch : batches) {
      result.add(plainRows(schema, batch));
    }
    return result;
  }

  @Test
  void closeReleasesEverything() {
    ArrowBatchBuilder builder = ArrowBatchBuilder.create(NESTED, allocator);
    nestedRows().forEach(builder::append);
    builder.finishBatch();
    assertThat(allocator.getAllocatedMemory()).isPositive();
    builder.close();
    assertThat(allocator.getAllocatedMemory()).isZero();
    assertThat(allocator.getChildAllocators()).isEmpty();
  }

  // ---------------------------------------------------------------------------------------------
  // Helpers

  private static ColumnarBatch columns(VectorSchemaRoot root) {
    List<Field> fields = root.getSchema().getFields();
    ColumnVector[] columns = new ColumnVector[fields.size()];
    for (int i = 0; i < columns.length; i++) {
      Field field = fields.get(i);
      ArrowBackedColumnVector column =
          ArrowBackedColumnVector.create(
              field, ArrowToSpark.toSparkType(field, READ), field.getName(), READ, null);
      column.load(root.getVector(i));
      columns[i] = column;
    }
    return new ColumnarBatch(columns, root.getRowCount());
  }

  /** The batch read through the connector's column vectors, as plain Java values. */
  private static List<List<Object>> readBack(VectorSchemaRoot root) {
    ColumnarBatch batch = columns(root);
    List<DataType> types = new ArrayList<>();
    for (Field field : root.getSchema().getFields()) {
      types.add(ArrowToSpark.toSparkType(field, READ));
    }
    List<List<Object>> rows = new ArrayList<>();
    for (int r = 0; r < batch.numRows(); r++) {
      InternalRow row = batch.getRow(r);
      List<Object> values = new ArrayList<>();
      for (int c = 0; c < types.size(); c++) {
        values.add(plain(row, c, types.get(c)));
      }
      rows.add(values);
    }
    return rows;
  }

  private static List<List<Object>> plainRows(StructType schema, List<InternalRow> rows) {
    List<List<Object>> result = new ArrayList<>();
    for (InternalRow row : rows) {
      List<Object> values = new ArrayList<>();
      for (int c = 0; c < schema.size(); c++) {
        values.add(plain(row, c, schema.fields()[c].dataType()));
      }
      result.add(values);
    }
    return result;
  }

  /**
   * A Spark value as a plain Java value that compares by content: lists for arrays and structs,
   * lists of [key, value] for maps, hex for bytes.
   */
  private static Object plain(SpecializedGetters input, int ordinal, DataType type) {
    if (input.isNullAt(ordinal)) {
      return null;
    }
    if (type instanceof UserDefinedType) {
      return plain(input, ordinal, ((UserDefinedType<?>) type).sqlType());
    }
    if (type instanceof BooleanType) {
      return input.getBoolean(ordinal);
    }
    if (type instanceof ByteType) {
      return input.getByte(ordinal);
    }
    if (type instanceof ShortType) {
      return input.getShort(ordinal);
    }
    if (type instanceof IntegerType
        || type instanceof DateType
        || type instanceof YearMonthIntervalType) {
      return input.getInt(ordinal);
    }
    if (type instanceof LongType
        || type instanceof TimestampType
        || type instanceof TimestampNTZType
        || type instanceof DayTimeIntervalType
        || type instanceof TimeType) {
      return input.getLong(ordinal);
    }
    if (type instanceof FloatType) {
      return input.getFloat(ordinal);
    }
    if (type instanceof DoubleType) {
      return input.getDouble(ordinal);
    }
    if (type instanceof DecimalType) {
      DecimalType decimal = (DecimalType) type;
      return input.getDecimal(ordinal, decimal.precision(), decimal.scale()).toJavaBigDecimal();
    }
    if (type instanceof StringType) {
      return input.getUTF8String(ordinal).toString();
    }
    if (type instanceof BinaryType) {
      return HexFormat.of().formatHex(input.getBinary(ordinal));
    }
    if (type instanceof CalendarIntervalType) {
      return input.getInterval(ordinal);
    }
    if (type instanceof NullType) {
      throw new AssertionError("a NULL column holds a value");
    }
    if (type instanceof ArrayType) {
      ArrayData array = input.getArray(ordinal);
      DataType element = ((ArrayType) type).elementType();
      List<Object> values = new ArrayList<>();
      for (int i = 0; i < array.numElements(); i++) {
        values.add(plain(array, i, element));
      }
      return values;
    }
    if (type instanceof MapType) {
      MapType mapType = (MapType) type;
      MapData map = input.getMap(ordinal);
      List<Object> entries = new ArrayList<>();
      for (int i = 0; i < map.numElements(); i++) {
        entries.add(
            Arrays.asList(
                plain(map.keyArray(), i, mapType.keyType()),
                plain(map.valueArray(), i, mapType.valueType())));
      }
      return entries;
    }
    if (type instanceof StructType) {
      StructType struct = (StructType) type;
      InternalRow members = input.getStruct(ordinal, struct.size());
      List<Object> values = new ArrayList<>();
      for (int i = 0; i < struct.size(); i++) {
        values.add(plain(members, i, struct.fields()[i].dataType()));
      }
      return values;
    }
    throw new AssertionError("no plain form for " + type);
  }

  private static List<InternalRow> unsafe(StructType schema, List<InternalRow> rows) {
    UnsafeProjection projection = UnsafeProjection.create(schema);
    List<InternalRow> result = new ArrayList<>();
    for (InternalRow row : rows) {
      result.add(projection.apply(row).copy());
    }
    return result;
  }

  private static InternalRow row(Object... values) {
    return new GenericInternalRow(values);
  }

  private static ArrayData array(Object... values) {
    return new GenericArrayData(values);
  }

  private static MapData map(Object... keysAndValues) {
    Object[] keys = new Object[keysAndValues.length / 2];
    Object[] values = new Object[keys.length];
    for (int i = 0; i < keys.length; i++) {
      keys[i] = keysAndValues[2 * i];
      values[i] = keysAndValues[2 * i + 1];
    }
    return new ArrayBasedMapData(new GenericArrayData(keys), new GenericArrayData(values));
  }

  private static UTF8String utf8(String value) {
    return UTF8String.fromString(value);
  }

  private static Decimal decimal(String value, int precision, int scale) {
    return Decimal.apply(new BigDecimal(value), precision, scale);
  }

  private static long micros(String instant) {
    Instant parsed = Instant.parse(instant);
    return parsed.getEpochSecond() * 1_000_000L + parsed.getNano() / 1_000;
  }
}
