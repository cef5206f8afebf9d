package io.flightsql.spark.vector;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.flightsql.spark.types.ArrowValueException;
import io.flightsql.spark.types.TypeMappingOptions;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.LargeVarBinaryVector;
import org.apache.arrow.vector.LargeVarCharVector;
import org.apache.arrow.vector.SmallIntVector;
import org.apache.arrow.vector.TimeMicroVector;
import org.apache.arrow.vector.TimeStampMicroTZVector;
import org.apache.arrow.vector.TimeStampMilliVector;
import org.apache.arrow.vector.TimeStampNanoTZVector;
import org.apache.arrow.vector.TimeStampSecVector;
import org.apache.arrow.vector.TinyIntVector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.TimeType;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The column vector over hand-built Arrow vectors: every accessor, nulls, offsets, re-pointing. */
class ArrowBackedColumnVectorTest {
  private BufferAllocator allocator;

  @BeforeEach
  void setUp() {
    allocator = new RootAllocator(Long.MAX_VALUE);
  }

  @AfterEach
  void tearDown() {
    // Fails the test when a vector leaked.
    allocator.close();
  }

  private static ArrowBackedColumnVector over(DataType type, FieldVector vector) {
    ArrowBackedColumnVector column =
        ArrowBackedColumnVector.create(
            vector.getField(), type, vector.getName(), TypeMappingOptions.defaults(), null);
    column.load(vector);
    return column;
  }

  @Test
  void integersWithNulls() {
    try (TinyIntVector b = new TinyIntVector("b", allocator);
        SmallIntVector s = new SmallIntVector("s", allocator);
        IntVector i = new IntVector("i", allocator);
        BigIntVector l = new BigIntVector("l", allocator)) {
      b.allocateNew(3);
      s.allocateNew(3);
      i.allocateNew(3);
      l.allocateNew(3);
      b.set(0, Byte.MIN_VALUE);
      b.set(2, Byte.MAX_VALUE);
      s.set(0, Short.MIN_VALUE);
      s.set(2, Short.MAX_VALUE);
      i.set(0, Integer.MIN_VALUE);
      i.set(2, Integer.MAX_VALUE);
      l.set(0, Long.MIN_VALUE);
      l.set(2, Long.MAX_VALUE);
      for (FieldVector v : Arrays.<FieldVector>asList(b, s, i, l)) {
        v.setNull(1);
        v.setValueCount(3);
      }
      ArrowBackedColumnVector cb = over(DataTypes.ByteType, b);
      ArrowBackedColumnVector cs = over(DataTypes.ShortType, s);
      ArrowBackedColumnVector ci = over(DataTypes.IntegerType, i);
      ArrowBackedColumnVector cl = over(DataTypes.LongType, l);
      assertThat(cb.getByte(0)).isEqualTo(Byte.MIN_VALUE);
      assertThat(cb.getByte(2)).isEqualTo(Byte.MAX_VALUE);
      assertThat(cs.getShort(0)).isEqualTo(Short.MIN_VALUE);
      assertThat(cs.getShort(2)).isEqualTo(Short.MAX_VALUE);
      assertThat(ci.getInt(0)).isEqualTo(Integer.MIN_VALUE);
      assertThat(ci.getInt(2)).isEqualTo(Integer.MAX_VALUE);
      assertThat(cl.getLong(0)).isEqualTo(Long.MIN_VALUE);
      assertThat(cl.getLong(2)).isEqualTo(Long.MAX_VALUE);
      for (ArrowBackedColumnVector c : Arrays.asList(cb, cs, ci, cl)) {
        assertThat(c.hasNull()).isTrue();
        assertThat(c.numNulls()).isEqualTo(1);
        assertThat(c.isNullAt(0)).isFalse();
        assertThat(c.isNullAt(1)).isTrue();
        assertThat(c.isNullAt(2)).isFalse();
      }
    }
  }

  @Test
  void booleansFloatsDoublesAndDates() {
    try (BitVector bits = new BitVector("b", allocator);
        Float4Vector f = new Float4Vector("f", allocator);
        Float8Vector d = new Float8Vector("d", allocator);
        DateDayVector date = new DateDayVector("dt", allocator)) {
      bits.allocateNew(10);
      for (int r = 0; r < 10; r++) {
        bits.set(r, r % 3 == 0 ? 1 : 0);
      }
      bits.setNull(5);
      bits.setValueCount(10);
      f.allocateNew(3);
      f.set(0, Float.NaN);
      f.set(1, Float.NEGATIVE_INFINITY);
      f.set(2, -0.5f);
      f.setValueCount(3);
      d.allocateNew(2);
      d.set(0, Double.MAX_VALUE);
      d.set(1, Double.MIN_VALUE);
      d.setValueCount(2);
      date.allocateNew(2);
      date.set(0, -719162); // 0001-01-01
      date.set(1, 2932896); // 9999-12-31
      date.setValueCount(2);

      ArrowBackedColumnVector cb = over(DataTypes.BooleanType, bits);
      for (int r = 0; r < 10; r++) {
        if (r != 5) {
          assertThat(cb.getBoolean(r)).as("row %d", r).isEqualTo(r % 3 == 0);
        }
      }
      assertThat(cb.isNullAt(5)).isTrue();
      ArrowBackedColumnVector cf = over(DataTypes.FloatType, f);
      assertThat(cf.getFloat(0)).isNaN();
      assertThat(cf.getFloat(1)).isEqualTo(Float.NEGATIVE_INFINITY);
      assertThat(cf.getFloat(2)).isEqualTo(-0.5f);
      assertThat(cf.hasNull()).isFalse();
      ArrowBackedColumnVector cd = over(DataTypes.DoubleType, d);
      assertThat(cd.getDouble(0)).isEqualTo(Double.MAX_VALUE);
      assertThat(cd.getDouble(1)).isEqualTo(Double.MIN_VALUE);
      ArrowBackedColumnVector cdate = over(DataTypes.DateType, date);
      assertThat(cdate.getInt(0)).isEqualTo(-719162);
      assertThat(cdate.getInt(1)).isEqualTo(2932896);
    }
  }

  @Test
  void shortAndLongDecimalsIncludingNegatives() {
    try (DecimalVector small = new DecimalVector("s", allocator, 15, 2);
        DecimalVector large = new DecimalVector("l", allocator, 38, 10)) {
      small.allocateNew(3);
      small.set(0, new BigDecimal("-1234567890123.45"));
      small.set(1, new BigDecimal("9999999999999.99"));
      small.setNull(2);
      small.setValueCount(3);
      large.allocateNew(3);
      large.set(0, new BigDecimal("-9999999999999999999999999999.9999999999"));
      large.set(1, new BigDecimal("12345678901234567890.0123456789"));
      large.set(2, new BigDecimal("-0.0000000001"));
      large.setValueCount(3);

      ArrowBackedColumnVector cs = over(DataTypes.createDecimalType(15, 2), small);
      assertThat(cs.getDecimal(0, 15, 2).toJavaBigDecimal())
          .isEqualByComparingTo("-1234567890123.45");
      assertThat(cs.getDecimal(1, 15, 2).toJavaBigDecimal())
          .isEqualByComparingTo("9999999999999.99");
      assertThat(cs.getDecimal(0, 15, 2).precision()).isEqualTo(15);
      assertThat(cs.isNullAt(2)).isTrue();
      ArrowBackedColumnVector cl = over(DataTypes.createDecimalType(38, 10), large);
      assertThat(cl.getDecimal(0, 38, 10).toJavaBigDecimal())
          .isEqualTo(new BigDecimal("-9999999999999999999999999999.9999999999"));
      assertThat(cl.getDecimal(1, 38, 10).toJavaBigDecimal())
          .isEqualTo(new BigDecimal("12345678901234567890.0123456789"));
      assertThat(cl.getDecimal(2, 38, 10).toJavaBigDecimal())
          .isEqualTo(new BigDecimal("-0.0000000001"));
    }
  }

  @Test
  void stringsAndBinariesWithSmallAndLargeOffsets() {
    try (VarCharVector s = new VarCharVector("s", allocator);
        LargeVarCharVector ls = new LargeVarCharVector("ls", allocator);
        VarBinaryVector b = new VarBinaryVector("b", allocator);
        LargeVarBinaryVector lb = new LargeVarBinaryVector("lb", allocator)) {
      String[] values = {"", "ünïcødé ✓", null, "a longer string with 'quotes'"};
      s.allocateNew();
      ls.allocateNew();
      b.allocateNew();
      lb.allocateNew();
      for (int r = 0; r < values.length; r++) {
        if (values[r] == null) {
          s.setNull(r);
          ls.setNull(r);
          b.setNull(r);
          lb.setNull(r);
        } else {
          byte[] bytes = values[r].getBytes(StandardCharsets.UTF_8);
          s.setSafe(r, bytes);
          ls.setSafe(r, bytes);
          b.setSafe(r, bytes);
          lb.setSafe(r, bytes);
        }
      }
      for (FieldVector v : Arrays.<FieldVector>asList(s, ls, b, lb)) {
        v.setValueCount(values.length);
      }
      ArrowBackedColumnVector cs = over(DataTypes.StringType, s);
      ArrowBackedColumnVector cls = over(DataTypes.StringType, ls);
      ArrowBackedColumnVector cb = over(DataTypes.BinaryType, b);
      ArrowBackedColumnVector clb = over(DataTypes.BinaryType, lb);
      for (int r = 0; r < values.length; r++) {
        for (ArrowBackedColumnVector c : Arrays.asList(cs, cls, cb, clb)) {
          assertThat(c.isNullAt(r)).isEqualTo(values[r] == null);
        }
        if (values[r] != null) {
          assertThat(cs.getUTF8String(r).toString()).isEqualTo(values[r]);
          assertThat(cls.getUTF8String(r).toString()).isEqualTo(values[r]);
          assertThat(cb.getBinary(r)).isEqualTo(values[r].getBytes(StandardCharsets.UTF_8));
          assertThat(clb.getBinary(r)).isEqualTo(values[r].getBytes(StandardCharsets.UTF_8));
        }
      }
    }
  }

  @Test
  void timestampsInEveryUnitBecomeMicrosecondsAndNanosecondsTruncateDownwards() {
    try (TimeStampSecVector sec = new TimeStampSecVector("s", allocator);
        TimeStampMilliVector milli = new TimeStampMilliVector("ms", allocator);
        TimeStampMicroTZVector micro = new TimeStampMicroTZVector("us", allocator, "UTC");
        TimeStampNanoTZVector nano = new TimeStampNanoTZVector("ns", allocator, "Europe/Paris")) {
      sec.allocateNew(1);
      sec.set(0, -1L);
      sec.setValueCount(1);
      milli.allocateNew(1);
      milli.set(0, 1_700_000_000_123L);
      milli.setValueCount(1);
      micro.allocateNew(1);
      micro.set(0, -62_135_596_800_000_000L); // 0001-01-01T00:00:00Z
      micro.setValueCount(1);
      nano.allocateNew(2);
      nano.set(0, 1_500L);
      nano.set(1, -1_500L);
      nano.setValueCount(2);

      assertThat(over(DataTypes.TimestampNTZType, sec).getLong(0)).isEqualTo(-1_000_000L);
      assertThat(over(DataTypes.TimestampNTZType, milli).getLong(0))
          .isEqualTo(1_700_000_000_123_000L);
      assertThat(over(DataTypes.TimestampType, micro).getLong(0))
          .isEqualTo(-62_135_596_800_000_000L);
      ArrowBackedColumnVector ns = over(DataTypes.TimestampType, nano);
      assertThat(ns.getLong(0)).isEqualTo(1L);
      assertThat(ns.getLong(1)).isEqualTo(-2L);
    }
  }

  @Test
  void timesOfDayBeyondSparksTimeFailNamingTheColumn() {
    try (TimeMicroVector micros = new TimeMicroVector("t", allocator)) {
      micros.allocateNew(3);
      micros.set(0, 0L);
      micros.set(1, 86_399_999_999L); // 23:59:59.999999
      micros.set(2, 86_400_000_000L); // 24:00:00, which DuckDB allows
      micros.setValueCount(3);
      ArrowBackedColumnVector time = over(TimeType.apply(6), micros);
      assertThat(time.getLong(0)).isZero();
      assertThat(time.getLong(1)).isEqualTo(86_399_999_999_000L);
      assertThatThrownBy(() -> time.getLong(2))
          .isInstanceOf(ArrowValueException.class)
          .hasMessageStartingWith("Column 't' (Arrow Time(MICROSECOND, 64)) holds a time")
          .hasMessageContaining("outside the range of Spark's time(6)");
      assertThat(over(DataTypes.LongType, micros).getLong(2)).isEqualTo(86_400_000_000L);
    }
  }

  @Test
  void reloadingRepointsTheSameColumnAtTheNextBatch() {
    try (IntVector v = new IntVector("i", allocator)) {
      v.allocateNew(2);
      v.set(0, 1);
      v.setNull(1);
      v.setValueCount(2);
      ArrowBackedColumnVector column = over(DataTypes.IntegerType, v);
      ColumnarBatch batch =
          new ColumnarBatch(new org.apache.spark.sql.vectorized.ColumnVector[] {column});
      batch.setNumRows(2);
      assertThat(batch.getRow(0).getInt(0)).isEqualTo(1);
      assertThat(batch.getRow(1).isNullAt(0)).isTrue();

      // The next batch: new buffers, no nulls, more rows.
      v.clear();
      v.allocateNew(3);
      v.set(0, 7);
      v.set(1, 8);
      v.set(2, 9);
      v.setValueCount(3);
      column.load(v);
      batch.setNumRows(3);
      assertThat(column.hasNull()).isFalse();
      assertThat(batch.getRow(1).getInt(0)).isEqualTo(8);
      assertThat(batch.getRow(2).getInt(0)).isEqualTo(9);

      // Spark 4 frees "freeable" vectors after each batch: ours stay usable, the reader owns them.
      batch.closeIfFreeable();
      assertThat(column.getInt(0)).isEqualTo(7);
    }
  }

  @Test
  void wrongAccessorSaysWhichAndOnWhatType() {
    try (IntVector v = new IntVector("i", allocator)) {
      v.allocateNew(1);
      v.set(0, 1);
      v.setValueCount(1);
      ArrowBackedColumnVector column = over(DataTypes.IntegerType, v);
      assertThatThrownBy(() -> column.getUTF8String(0))
          .isInstanceOf(UnsupportedOperationException.class)
          .hasMessage("getUTF8String is not supported on a int column");
    }
  }

  @Test
  void emptyBatchHasNoRowsAndNoNulls() {
    try (VarCharVector v = new VarCharVector("s", allocator)) {
      v.setValueCount(0);
      ArrowBackedColumnVector column = over(DataTypes.StringType, v);
      assertThat(column.hasNull()).isFalse();
      assertThat(column.numNulls()).isZero();
    }
  }
}
