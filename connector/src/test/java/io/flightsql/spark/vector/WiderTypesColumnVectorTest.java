package io.flightsql.spark.vector;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.flightsql.spark.types.ArrowToSpark;
import io.flightsql.spark.types.ArrowValueException;
import io.flightsql.spark.types.TypeMappingOptions;
import io.flightsql.spark.types.TypeMappingOptions.DecimalOverflow;
import io.flightsql.spark.types.TypeMappingOptions.Nanoseconds;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.memory.util.Float16;
import org.apache.arrow.vector.DateMilliVector;
import org.apache.arrow.vector.Decimal256Vector;
import org.apache.arrow.vector.DurationVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.FixedSizeBinaryVector;
import org.apache.arrow.vector.Float2Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.IntervalDayVector;
import org.apache.arrow.vector.IntervalMonthDayNanoVector;
import org.apache.arrow.vector.NullVector;
import org.apache.arrow.vector.TimeNanoVector;
import org.apache.arrow.vector.TimeSecVector;
import org.apache.arrow.vector.TimeStampNanoVector;
import org.apache.arrow.vector.UInt1Vector;
import org.apache.arrow.vector.UInt2Vector;
import org.apache.arrow.vector.UInt4Vector;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.ViewVarBinaryVector;
import org.apache.arrow.vector.ViewVarCharVector;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.MapVector;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.complex.impl.UnionMapWriter;
import org.apache.arrow.vector.dictionary.Dictionary;
import org.apache.arrow.vector.dictionary.DictionaryProvider;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.DictionaryEncoding;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarArray;
import org.apache.spark.sql.vectorized.ColumnarMap;
import org.apache.spark.unsafe.types.CalendarInterval;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The column vectors of the wider type system over hand-built Arrow vectors, read through the
 * accessors Spark calls. Stream-level cases (views loaded over IPC, unions, list views,
 * dictionaries replaced between batches) are covered end to end by HandBuiltStreamsReadTest.
 */
class WiderTypesColumnVectorTest {
  private static final TypeMappingOptions DEFAULTS = TypeMappingOptions.defaults();
  private BufferAllocator allocator;

  @BeforeEach
  void setUp() {
    allocator = new RootAllocator(Long.MAX_VALUE);
  }

  @AfterEach
  void tearDown() {
    allocator.close();
  }

  private static ArrowBackedColumnVector over(FieldVector vector, TypeMappingOptions options) {
    return over(vector, options, null);
  }

  private static ArrowBackedColumnVector over(
      FieldVector vector, TypeMappingOptions options, DictionaryProvider dictionaries) {
    DataType type = ArrowToSpark.toSparkType(vector.getField(), options);
    ArrowBackedColumnVector column =
        ArrowBackedColumnVector.create(
            vector.getField(), type, vector.getName(), options, dictionaries);
    column.load(vector);
    return column;
  }

  @Test
  void unsignedIntegersAreWidenedWithoutLosingTheTopBit() {
    try (UInt1Vector u8 = new UInt1Vector("u8", allocator);
        UInt2Vector u16 = new UInt2Vector("u16", allocator);
        UInt4Vector u32 = new UInt4Vector("u32", allocator);
        UInt8Vector u64 = new UInt8Vector("u64", allocator)) {
      u8.setSafe(0, 0xFF);
      u8.setSafe(1, 7);
      u8.setNull(2);
      u16.setSafe(0, 0xFFFF);
      u32.setSafe(0, 0xFFFF_FFFF);
      u64.setSafe(0, -1L);
      u64.setSafe(1, Long.MAX_VALUE);
      u64.setSafe(2, 0L);
      for (FieldVector v : List.<FieldVector>of(u8, u16, u32, u64)) {
        v.setValueCount(3);
      }
      ArrowBackedColumnVector c8 = over(u8, DEFAULTS);
      assertThat(c8.dataType()).isEqualTo(DataTypes.ShortType);
      assertThat(c8.getShort(0)).isEqualTo((short) 255);
      assertThat(c8.getShort(1)).isEqualTo((short) 7);
      assertThat(c8.isNullAt(2)).isTrue();
      assertThat(over(u16, DEFAULTS).getInt(0)).isEqualTo(65_535);
      assertThat(over(u32, DEFAULTS).getLong(0)).isEqualTo(4_294_967_295L);
      ArrowBackedColumnVector c64 = over(u64, DEFAULTS);
      assertThat(c64.getDecimal(0, 20, 0).toJavaBigDecimal())
          .isEqualByComparingTo("18446744073709551615");
      assertThat(c64.getDecimal(1, 20, 0).toJavaBigDecimal())
          .isEqualByComparingTo(String.valueOf(Long.MAX_VALUE));
      assertThat(c64.getDecimal(2, 20, 0).toJavaBigDecimal()).isEqualByComparingTo("0");
    }
  }

  @Test
  void halfFloatsAndMillisecondDates() {
    try (Float2Vector half = new Float2Vector("h", allocator);
        DateMilliVector date = new DateMilliVector("d", allocator)) {
      half.setSafe(0, Float16.toFloat16(65504f));
      half.setSafe(1, Float16.toFloat16(-0.5f));
      half.setSafe(2, Float16.NaN);
      half.setValueCount(3);
      date.setSafe(0, 0L);
      date.setSafe(1, -86_400_000L);
      date.setSafe(2, 2_932_896L * 86_400_000L);
      date.setValueCount(3);
      ArrowBackedColumnVector h = over(half, DEFAULTS);
      assertThat(h.getFloat(0)).isEqualTo(65504f);
      assertThat(h.getFloat(1)).isEqualTo(-0.5f);
      assertThat(h.getFloat(2)).isNaN();
      ArrowBackedColumnVector d = over(date, DEFAULTS);
      assertThat(d.dataType()).isEqualTo(DataTypes.DateType);
      assertThat(d.getInt(0)).isZero();
      assertThat(d.getInt(1)).isEqualTo(-1);
      assertThat(d.getInt(2)).isEqualTo(2_932_896);
    }
  }

  private Decimal256Vector wideDecimals() {
    Decimal256Vector v = new Decimal256Vector("amount", allocator, 76, 10);
    v.allocateNew();
    v.setSafe(0, new BigDecimal("12345678901234567890123456.0123456789"));
    v.setSafe(1, new BigDecimal("-123456789012345678901234567890123456789012345.5000000000"));
    v.setNull(2);
    v.setValueCount(3);
    return v;
  }

  @Test
  void decimalsWiderThan38DigitsAsTextOrAsNullWhereTheyDoNotFit() {
    try (Decimal256Vector v = wideDecimals()) {
      ArrowBackedColumnVector text =
          over(v, TypeMappingOptions.of(DecimalOverflow.STRING, Nanoseconds.TRUNCATE));
      assertThat(text.getUTF8String(0).toString())
          .isEqualTo("12345678901234567890123456.0123456789");
      assertThat(text.getUTF8String(1).toString())
          .isEqualTo("-123456789012345678901234567890123456789012345.5000000000");
      assertThat(text.isNullAt(2)).isTrue();

      ArrowBackedColumnVector nulls =
          over(v, TypeMappingOptions.of(DecimalOverflow.NULL, Nanoseconds.TRUNCATE));
      assertThat(nulls.dataType()).isEqualTo(DataTypes.createDecimalType(38, 10));
      assertThat(nulls.isNullAt(0)).isFalse();
      assertThat(nulls.getDecimal(0, 38, 10).toJavaBigDecimal())
          .isEqualByComparingTo("12345678901234567890123456.0123456789");
      assertThat(nulls.isNullAt(1)).isTrue();
      assertThat(nulls.isNullAt(2)).isTrue();
      assertThat(nulls.numNulls()).isEqualTo(2);
    }
  }

  @Test
  void decimal256WithinSparksDigitsAndValuesBeyondTheirDeclaredPrecision() {
    try (Decimal256Vector v = new Decimal256Vector("d", allocator, 38, 4)) {
      v.setSafe(0, new BigDecimal("-9999999999999999999999999999999999.9999"));
      v.setSafe(1, new BigDecimal("1.5000"));
      v.setValueCount(2);
      ArrowBackedColumnVector column = over(v, DEFAULTS);
      assertThat(column.getDecimal(0, 38, 4).toJavaBigDecimal())
          .isEqualByComparingTo("-9999999999999999999999999999999999.9999");
      assertThat(column.getDecimal(1, 38, 4).toJavaBigDecimal()).isEqualByComparingTo("1.5");
    }
    // DuckDB sends HUGEINT as decimal(38, 0) though its extremes have 39 digits.
    try (Decimal256Vector v = new Decimal256Vector("h", allocator, 38, 0)) {
      v.setBigEndianSafe(
          0, new java.math.BigInteger("170141183460469231731687303715884105727").toByteArray());
      v.setValueCount(1);
      assertThatThrownBy(() -> over(v, DEFAULTS).getDecimal(0, 38, 0))
          .isInstanceOf(ArrowValueException.class)
          .hasMessage(
              "Column 'h' (Arrow Decimal(38, 0, 256)) holds 170141183460469231731687303715884105727,"
                  + " which does not fit Spark's decimal(38,0). Set option 'decimalOverflow' to"
                  + " 'null' to read such values as NULL, or cast the column in the query (for"
                  + " example to VARCHAR).");
      ArrowBackedColumnVector lenient =
          over(v, TypeMappingOptions.of(DecimalOverflow.NULL, Nanoseconds.TRUNCATE));
      assertThat(lenient.isNullAt(0)).isTrue();
    }
  }

  @Test
  void viewsInlineAndOutOfLineAndFixedSizeBinary() {
    String shortText = "short";
    String longText = "a string longer than twelve bytes, élan";
    try (ViewVarCharVector s = new ViewVarCharVector("s", allocator);
        ViewVarBinaryVector b = new ViewVarBinaryVector("b", allocator);
        FixedSizeBinaryVector f = new FixedSizeBinaryVector("f", allocator, 4)) {
      s.setSafe(0, shortText.getBytes(StandardCharsets.UTF_8));
      s.setNull(1);
      s.setSafe(2, longText.getBytes(StandardCharsets.UTF_8));
      s.setSafe(3, new byte[0]);
      s.setValueCount(4);
      b.setSafe(0, new byte[] {1, 2, 3});
      b.setSafe(1, new byte[20]);
      b.setValueCount(2);
      f.setSafe(0, new byte[] {9, 8, 7, 6});
      f.setNull(1);
      f.setValueCount(2);
      ArrowBackedColumnVector strings = over(s, DEFAULTS);
      assertThat(strings.getUTF8String(0).toString()).isEqualTo(shortText);
      assertThat(strings.isNullAt(1)).isTrue();
      assertThat(strings.getUTF8String(2).toString()).isEqualTo(longText);
      assertThat(strings.getUTF8String(3).numBytes()).isZero();
      ArrowBackedColumnVector bytes = over(b, DEFAULTS);
      assertThat(bytes.getBinary(0)).containsExactly(1, 2, 3);
      assertThat(bytes.getBinary(1)).hasSize(20);
      ArrowBackedColumnVector fixed = over(f, DEFAULTS);
      assertThat(fixed.getBinary(0)).containsExactly(9, 8, 7, 6);
      assertThat(fixed.isNullAt(1)).isTrue();
    }
  }

  @Test
  void nanosecondsTruncateTowardsThePastOrFailNamingTheOption() {
    try (TimeStampNanoVector ts = new TimeStampNanoVector("ts", allocator);
        DurationVector d =
            new DurationVector(
                "d", FieldType.nullable(new ArrowType.Duration(TimeUnit.NANOSECOND)), allocator)) {
      ts.setSafe(0, -1_500L);
      ts.setSafe(1, 2_000L);
      ts.setValueCount(2);
      d.setSafe(0, 3_999L);
      d.setValueCount(1);
      ArrowBackedColumnVector truncating = over(ts, DEFAULTS);
      assertThat(truncating.dataType()).isEqualTo(DataTypes.TimestampNTZType);
      assertThat(truncating.getLong(0)).isEqualTo(-2L);
      assertThat(truncating.getLong(1)).isEqualTo(2L);
      assertThat(over(d, DEFAULTS).getLong(0)).isEqualTo(3L);

      TypeMappingOptions strict = TypeMappingOptions.of(DecimalOverflow.ERROR, Nanoseconds.ERROR);
      ArrowBackedColumnVector failing = over(ts, strict);
      assertThat(failing.getLong(1)).isEqualTo(2L);
      assertThatThrownBy(() -> failing.getLong(0))
          .isInstanceOf(ArrowValueException.class)
          .hasMessage(
              "Column 'ts' (Arrow Timestamp(NANOSECOND, null)) holds the value -1500, which has"
                  + " nanoseconds that Spark's microseconds cannot hold, and option 'nanoseconds'"
                  + " is 'error'. Set it to 'truncate' to read such values truncated to the"
                  + " microsecond.");
    }
  }

  @Test
  void timesAsSparkTimeNanosOrAsMicrosecondsOfTheDay() {
    try (TimeSecVector sec = new TimeSecVector("s", allocator);
        TimeNanoVector nano = new TimeNanoVector("n", allocator)) {
      sec.setSafe(0, 3_661);
      sec.setValueCount(1);
      nano.setSafe(0, 45_296_123_456_789L);
      nano.setValueCount(1);
      TypeMappingOptions time = DEFAULTS.withSparkTime(true);
      assertThat(over(sec, time).getLong(0)).isEqualTo(3_661_000_000_000L);
      assertThat(over(nano, time).getLong(0)).isEqualTo(45_296_123_456_000L);
      TypeMappingOptions longs = DEFAULTS.withSparkTime(false);
      assertThat(over(sec, longs).getLong(0)).isEqualTo(3_661_000_000L);
      assertThat(over(nano, longs).getLong(0)).isEqualTo(45_296_123_456L);
    }
  }

  @Test
  void intervals() {
    try (IntervalDayVector dayTime = new IntervalDayVector("dt", allocator);
        IntervalMonthDayNanoVector mdn = new IntervalMonthDayNanoVector("mdn", allocator)) {
      dayTime.setSafe(0, 2, 1_500);
      dayTime.setSafe(1, -1, 0);
      dayTime.setValueCount(2);
      mdn.setSafe(0, 14, -3, 5_000_001_999L);
      mdn.setNull(1);
      mdn.setValueCount(2);
      ArrowBackedColumnVector dt = over(dayTime, DEFAULTS);
      assertThat(dt.getLong(0)).isEqualTo(2 * 86_400_000_000L + 1_500_000L);
      assertThat(dt.getLong(1)).isEqualTo(-86_400_000_000L);
      ArrowBackedColumnVector calendar = over(mdn, DEFAULTS);
      assertThat(calendar.getInterval(0)).isEqualTo(new CalendarInterval(14, -3, 5_000_001L));
      assertThat(calendar.getInterval(1)).isNull();
    }
  }

  @Test
  void nullTypeIsAllNulls() {
    try (NullVector v = new NullVector("n", 3)) {
      ArrowBackedColumnVector column = over(v, DEFAULTS);
      assertThat(column.dataType()).isEqualTo(DataTypes.NullType);
      assertThat(column.isNullAt(2)).isTrue();
      assertThat(column.numNulls()).isEqualTo(3);
    }
  }

  @Test
  void listsOfEachLayoutWithNullListsAndNullElements() {
    try (ListVector list = ListVector.empty("l", allocator);
        FixedSizeListVector fixed = FixedSizeListVector.empty("f", 2, allocator)) {
      var writer = list.getWriter();
      writer.setPosition(0);
      writer.startList();
      writer.integer().writeInt(1);
      writer.integer().writeNull();
      writer.endList();
      writer.setPosition(2);
      writer.startList();
      writer.endList();
      list.setNull(1);
      list.setValueCount(3);

      IntVector values =
          (IntVector)
              fixed.addOrGetVector(FieldType.nullable(new ArrowType.Int(32, true))).getVector();
      fixed.allocateNew();
      values.allocateNew(4);
      values.set(0, 10);
      values.set(1, 11);
      values.setNull(2);
      values.setNull(3);
      values.setValueCount(4);
      fixed.setNotNull(0);
      fixed.setNull(1);
      fixed.setValueCount(2);

      ArrowBackedColumnVector l = over(list, DEFAULTS);
      ColumnarArray first = l.getArray(0);
      assertThat(first.numElements()).isEqualTo(2);
      assertThat(first.getInt(0)).isEqualTo(1);
      assertThat(first.isNullAt(1)).isTrue();
      assertThat(l.isNullAt(1)).isTrue();
      assertThat(l.isNullAt(2)).isFalse();
      assertThat(l.getArray(2).numElements()).isZero();

      ArrowBackedColumnVector f = over(fixed, DEFAULTS);
      assertThat(f.getArray(0).toIntArray()).containsExactly(10, 11);
      assertThat(f.isNullAt(1)).isTrue();
    }
  }

  @Test
  void nullStructIsNotAStructOfNulls() {
    try (StructVector struct = StructVector.empty("s", allocator)) {
      IntVector a =
          struct.addOrGet("a", FieldType.nullable(new ArrowType.Int(32, true)), IntVector.class);
      VarCharVector b =
          struct.addOrGet("b", FieldType.nullable(ArrowType.Utf8.INSTANCE), VarCharVector.class);
      struct.allocateNew();
      a.setSafe(0, 5);
      b.setSafe(0, "x".getBytes(StandardCharsets.UTF_8));
      struct.setIndexDefined(0);
      struct.setNull(1);
      a.setNull(1);
      b.setNull(1);
      struct.setIndexDefined(2);
      a.setNull(2);
      b.setNull(2);
      struct.setValueCount(3);
      a.setValueCount(3);
      b.setValueCount(3);
      ArrowBackedColumnVector column = over(struct, DEFAULTS);
      assertThat(column.getStruct(0).getInt(0)).isEqualTo(5);
      assertThat(column.getStruct(0).getUTF8String(1).toString()).isEqualTo("x");
      assertThat(column.isNullAt(1)).isTrue();
      assertThat(column.isNullAt(2)).isFalse();
      assertThat(column.getStruct(2).isNullAt(0)).isTrue();
      assertThat(column.getStruct(2).isNullAt(1)).isTrue();
    }
  }

  @Test
  void mapsWithEmptyAndNullValues() {
    try (MapVector map = MapVector.empty("m", allocator, false)) {
      UnionMapWriter writer = map.getWriter();
      writer.setPosition(0);
      writer.startMap();
      writer.startEntry();
      writer.key().varChar().writeVarChar("k");
      writer.value().integer().writeInt(1);
      writer.endEntry();
      writer.startEntry();
      writer.key().varChar().writeVarChar("j");
      writer.value().integer().writeNull();
      writer.endEntry();
      writer.endMap();
      writer.setPosition(1);
      writer.startMap();
      writer.endMap();
      writer.setValueCount(3);
      map.setNull(2);
      map.setValueCount(3);
      ArrowBackedColumnVector column = over(map, DEFAULTS);
      ColumnarMap first = column.getMap(0);
      assertThat(first.numElements()).isEqualTo(2);
      assertThat(first.keyArray().getUTF8String(0).toString()).isEqualTo("k");
      assertThat(first.valueArray().getInt(0)).isEqualTo(1);
      assertThat(first.keyArray().getUTF8String(1).toString()).isEqualTo("j");
      assertThat(first.valueArray().isNullAt(1)).isTrue();
      assertThat(column.getMap(1).numElements()).isZero();
      assertThat(column.isNullAt(2)).isTrue();
    }
  }

  @Test
  void dictionaryColumnsFollowTheDictionaryTheyAreLoadedWith() {
    DictionaryEncoding encoding = new DictionaryEncoding(7, false, new ArrowType.Int(8, false));
    try (VarCharVector words = new VarCharVector("words", allocator);
        UInt1Vector indices =
            new UInt1Vector(
                "status", new FieldType(true, new ArrowType.Int(8, false), encoding), allocator)) {
      words.setSafe(0, "open".getBytes(StandardCharsets.UTF_8));
      words.setNull(1);
      words.setSafe(2, "closed".getBytes(StandardCharsets.UTF_8));
      words.setValueCount(3);
      indices.setSafe(0, 2);
      indices.setSafe(1, 0);
      indices.setSafe(2, 1);
      indices.setNull(3);
      indices.setValueCount(4);
      DictionaryProvider.MapDictionaryProvider provider =
          new DictionaryProvider.MapDictionaryProvider(new Dictionary(words, encoding));
      // The field of a dictionary-encoded vector has the index type; the stream's schema field
      // has the value type, which is what the mapping sees.
      org.apache.arrow.vector.types.pojo.Field schemaField =
          new org.apache.arrow.vector.types.pojo.Field(
              "status", new FieldType(true, ArrowType.Utf8.INSTANCE, encoding), null);
      DataType type = ArrowToSpark.toSparkType(schemaField, DEFAULTS);
      ArrowBackedColumnVector column =
          ArrowBackedColumnVector.create(schemaField, type, "status", DEFAULTS, provider);
      column.load(indices);
      assertThat(column.getUTF8String(0).toString()).isEqualTo("closed");
      assertThat(column.getUTF8String(1).toString()).isEqualTo("open");
      assertThat(column.isNullAt(2)).as("NULL among the dictionary's values").isTrue();
      assertThat(column.isNullAt(3)).as("NULL index").isTrue();
      assertThat(column.numNulls()).isEqualTo(2);

      // The server replaces the dictionary: the next batch reads the new values.
      words.reset();
      words.setSafe(0, "neu".getBytes(StandardCharsets.UTF_8));
      words.setSafe(1, "alt".getBytes(StandardCharsets.UTF_8));
      words.setValueCount(2);
      indices.reset();
      indices.setSafe(0, 1);
      indices.setValueCount(1);
      column.load(indices);
      assertThat(column.getUTF8String(0).toString()).isEqualTo("alt");
      assertThat(column.numNulls()).isZero();
    }
  }

  @Test
  void structsReadThroughADictionaryRouteTheirMembers() {
    DictionaryEncoding encoding = new DictionaryEncoding(3, false, new ArrowType.Int(32, true));
    try (StructVector points = StructVector.empty("points", allocator);
        IntVector indices =
            new IntVector(
                "p", new FieldType(true, new ArrowType.Int(32, true), encoding), allocator)) {
      IntVector x =
          points.addOrGet("x", FieldType.nullable(new ArrowType.Int(32, true)), IntVector.class);
      points.allocateNew();
      x.setSafe(0, 100);
      x.setSafe(1, 200);
      points.setIndexDefined(0);
      points.setIndexDefined(1);
      points.setValueCount(2);
      x.setValueCount(2);
      indices.setSafe(0, 1);
      indices.setSafe(1, 0);
      indices.setValueCount(2);
      org.apache.arrow.vector.types.pojo.Field schemaField =
          new org.apache.arrow.vector.types.pojo.Field(
              "p",
              new FieldType(true, ArrowType.Struct.INSTANCE, encoding),
              points.getField().getChildren());
      DataType type = ArrowToSpark.toSparkType(schemaField, DEFAULTS);
      ArrowBackedColumnVector column =
          ArrowBackedColumnVector.create(
              schemaField,
              type,
              "p",
              DEFAULTS,
              new DictionaryProvider.MapDictionaryProvider(new Dictionary(points, encoding)));
      column.load(indices);
      ColumnVector xs = column.getChild(0);
      assertThat(xs.getInt(0)).isEqualTo(200);
      assertThat(column.getStruct(1).getInt(0)).isEqualTo(100);
    }
  }
}
