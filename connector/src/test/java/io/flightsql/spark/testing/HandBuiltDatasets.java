package io.flightsql.spark.testing;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.Period;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BaseVariableWidthViewVector;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.DateMilliVector;
import org.apache.arrow.vector.Decimal256Vector;
import org.apache.arrow.vector.DurationVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.FixedSizeBinaryVector;
import org.apache.arrow.vector.Float2Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.IntervalDayVector;
import org.apache.arrow.vector.IntervalMonthDayNanoVector;
import org.apache.arrow.vector.IntervalYearVector;
import org.apache.arrow.vector.LargeVarBinaryVector;
import org.apache.arrow.vector.LargeVarCharVector;
import org.apache.arrow.vector.PeriodDuration;
import org.apache.arrow.vector.TimeMicroVector;
import org.apache.arrow.vector.TimeMilliVector;
import org.apache.arrow.vector.TimeNanoVector;
import org.apache.arrow.vector.TimeSecVector;
import org.apache.arrow.vector.TimeStampVector;
import org.apache.arrow.vector.TinyIntVector;
import org.apache.arrow.vector.UInt1Vector;
import org.apache.arrow.vector.UInt2Vector;
import org.apache.arrow.vector.UInt4Vector;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ViewVarBinaryVector;
import org.apache.arrow.vector.ViewVarCharVector;
import org.apache.arrow.vector.complex.DenseUnionVector;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.complex.LargeListVector;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.ListViewVector;
import org.apache.arrow.vector.complex.MapVector;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.complex.UnionVector;
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

/**
 * Sample datasets of the Arrow types and stream shapes DuckDB cannot produce, one per case, each
 * registered on a {@link HandBuiltFlightSqlServer} as several record batches with NULLs, and each
 * described by the rows a reader should see. Vectors are built from the caller's allocator and
 * closed before the method returns, so the caller's leak check covers them.
 *
 * <h2>Expected rows</h2>
 *
 * <p>{@link Sample#rows()} lists the rows in stream order; each row lists its values in schema
 * order. Every dataset starts with a non-null int32 column {@code id} numbering its rows from 0, so
 * a reader that shuffles rows can sort them back. The values are what the Arrow data means, before
 * any mapping to Spark types:
 *
 * <table>
 *   <caption>Java value of each Arrow type</caption>
 *   <tr><th>Arrow</th><th>Java</th></tr>
 *   <tr><td>null slot, Null type</td><td>{@code null}</td></tr>
 *   <tr><td>Int of any width, signed or not</td><td>Long, or BigInteger beyond a long
 *       (uint64 above 2^63 - 1)</td></tr>
 *   <tr><td>Float16, Float32 / Float64</td><td>Float / Double (NaN and -0.0 as such)</td></tr>
 *   <tr><td>Decimal128/256</td><td>BigDecimal with the type's scale</td></tr>
 *   <tr><td>Utf8, LargeUtf8, Utf8View</td><td>String</td></tr>
 *   <tr><td>Binary, LargeBinary, BinaryView, FixedSizeBinary</td><td>String "0x" + lowercase
 *       hex, as {@link RowValues} writes binaries</td></tr>
 *   <tr><td>Date32/Date64</td><td>LocalDate</td></tr>
 *   <tr><td>Time32/Time64</td><td>LocalTime</td></tr>
 *   <tr><td>Timestamp with a zone / without</td><td>Instant / LocalDateTime (UTC wall clock),
 *       to the nanosecond</td></tr>
 *   <tr><td>Duration</td><td>java.time.Duration</td></tr>
 *   <tr><td>Interval YEAR_MONTH</td><td>{@code Period.ofMonths(months)}, not normalized</td></tr>
 *   <tr><td>Interval DAY_TIME</td><td>{@code PeriodDuration(Period.ofDays(days),
 *       Duration.ofMillis(millis))}</td></tr>
 *   <tr><td>Interval MONTH_DAY_NANO</td><td>{@code PeriodDuration(Period.of(0, months, days),
 *       Duration.ofNanos(nanos))}</td></tr>
 *   <tr><td>List, LargeList, ListView, FixedSizeList</td><td>List of element values</td></tr>
 *   <tr><td>Struct</td><td>LinkedHashMap from child name to value, in child order</td></tr>
 *   <tr><td>Map</td><td>LinkedHashMap from key to value, in entry order</td></tr>
 *   <tr><td>Union</td><td>the value of the member the row selects (null for a Null
 *       member)</td></tr>
 *   <tr><td>Dictionary-encoded</td><td>the decoded value, by the dictionary in force for that
 *       batch</td></tr>
 *   <tr><td>Extension arrow.uuid</td><td>java.util.UUID</td></tr>
 * </table>
 *
 * <p>Slots under a null list or struct, and the views of null list-view slots, hold junk on
 * purpose: a reader that ignores the parent's validity shows it.
 */
public final class HandBuiltDatasets {
  private static final ArrowType.Int INT8 = new ArrowType.Int(8, true);
  private static final ArrowType.Int INT32 = new ArrowType.Int(32, true);
  private static final ArrowType INT64 = new ArrowType.Int(64, true);
  private static final ArrowType UTF8 = ArrowType.Utf8.INSTANCE;
  private static final Field ID = new Field("id", FieldType.notNullable(INT32), null);

  /** Dictionary id of {@link #dictionaryReplaced}. */
  public static final long REPLACED_DICTIONARY_ID = 1;

  /** The dictionary in force for each batch of {@link #dictionaryReplaced}. */
  public static final List<List<String>> REPLACED_DICTIONARIES =
      List.of(
          List.of("red", "green", "blue"),
          List.of("cyan", "magenta", "yellow", "black"),
          List.of("solo"),
          List.of("solo"));

  /** Dictionary id of {@link #dictionaryInt32}. */
  public static final long INT32_DICTIONARY_ID = 2;

  /** Dictionary id of {@link #dictionaryDelta}. */
  public static final long DELTA_DICTIONARY_ID = 3;

  /** The first dictionary of {@link #dictionaryDelta}, and the delta sent before batch 1. */
  public static final List<String> DELTA_BASE = List.of("a", "b");

  public static final List<String> DELTA_EXTENSION = List.of("c", "d");

  private HandBuiltDatasets() {}

  /**
   * One registered dataset and what a reader should see of it.
   *
   * @param name the dataset's name, which is the query text
   * @param schema the schema as Flight clients receive it in FlightInfo and GetSchema: value types
   *     for dictionary-encoded columns, the storage type plus extension metadata for extension
   *     types
   * @param batchSizes the row count of each record batch, in stream order
   * @param rows the expected rows, see the class comment for the value of each type
   * @param notes what the case is about and what a reader should do with it
   */
  public record Sample(
      String name,
      Schema schema,
      List<Integer> batchSizes,
      List<List<Object>> rows,
      String notes) {}

  /** Registers every sample on {@code server}, in the order of the methods below. */
  public static List<Sample> registerAll(
      HandBuiltFlightSqlServer server, BufferAllocator allocator) {
    return List.of(
        float16(server, allocator),
        date64(server, allocator),
        fixedSizeList(server, allocator),
        listView(server, allocator),
        largeList(server, allocator),
        largeUtf8(server, allocator),
        largeBinary(server, allocator),
        utf8View(server, allocator),
        binaryView(server, allocator),
        fixedSizeBinary(server, allocator),
        decimal256Wide(server, allocator),
        decimal256Narrow(server, allocator),
        unsignedInts(server, allocator),
        nullType(server, allocator),
        times(server, allocator),
        durations(server, allocator),
        intervals(server, allocator),
        timestamps(server, allocator),
        dictionaryReplaced(server, allocator),
        dictionaryInt32(server, allocator),
        dictionaryDelta(server, allocator),
        denseUnionOfInt32AndNull(server, allocator),
        sparseUnionOfInt32AndNull(server, allocator),
        denseUnionOfInt32AndUtf8(server, allocator),
        nestedStruct(server, allocator),
        mapOfUtf8ToInt32(server, allocator),
        listOfStruct(server, allocator),
        uuidExtension(server, allocator));
  }

  public static Sample float16(HandBuiltFlightSqlServer server, BufferAllocator allocator) {
    Column f16 =
        column(
            nullable("f16", new ArrowType.FloatingPoint(FloatingPointPrecision.HALF)),
            (Float2Vector v, int i, Object bits) -> v.setSafe(i, (short) (int) bits),
            cells(
                cell(0x3E00, 1.5f),
                cell(0x7E00, Float.NaN),
                nullCell(),
                cell(0x7C00, Float.POSITIVE_INFINITY),
                cell(0xFC00, Float.NEGATIVE_INFINITY),
                cell(0x0001, (float) Math.scalb(1.0, -24)), // smallest subnormal
                cell(0x0400, (float) Math.scalb(1.0, -14)), // smallest normal
                cell(0x8000, -0.0f),
                cell(0x7BFF, 65504f), // largest finite
                cell(0xC080, -2.25f)));
    return scalarSample(
        server,
        allocator,
        "float16",
        "Half floats given by their bits: NaN, infinities, a subnormal, -0.0 and the largest value",
        new int[] {4, 6},
        f16);
  }

  public static Sample date64(HandBuiltFlightSqlServer server, BufferAllocator allocator) {
    Column d64 =
        column(
            nullable("d64", new ArrowType.Date(DateUnit.MILLISECOND)),
            (DateMilliVector v, int i, Object millis) -> v.setSafe(i, (long) millis),
            cells(
                cell(0L, LocalDate.parse("1970-01-01")),
                cell(-86_400_000L, LocalDate.parse("1969-12-31")),
                nullCell(),
                cell(1_709_164_800_000L, LocalDate.parse("2024-02-29")),
                cell(-62_135_596_800_000L, LocalDate.parse("0001-01-01")),
                cell(253_402_214_400_000L, LocalDate.parse("9999-12-31")),
                cell(-2_208_988_800_000L, LocalDate.parse("1900-01-01"))));
    return scalarSample(
        server,
        allocator,
        "date64",
        "Date64 milliseconds, whole days as Arrow requires, before and after 1970",
        new int[] {3, 4},
        d64);
  }

  public static Sample fixedSizeList(HandBuiltFlightSqlServer server, BufferAllocator allocator) {
    Field field =
        new Field(
            "fsl",
            FieldType.nullable(new ArrowType.FixedSizeList(3)),
            List.of(nullable("item", INT32)));
    Column fsl =
        column(
            field,
            HandBuiltDatasets::write,
            same(
                list(1L, 2L, 3L),
                new NullOver(list(99L, 99L, 99L)),
                list(null, 5L, null),
                list((long) Integer.MIN_VALUE, 0L, (long) Integer.MAX_VALUE),
                list(null, null, null),
                null));
    return scalarSample(
        server,
        allocator,
        "fixed_size_list",
        "fixed_size_list<int32>[3]: null lists (one over non-null junk) and null elements",
        new int[] {3, 3},
        fsl);
  }

  /**
   * A list_view whose views overlap and come out of order, over a child array shared by the rows of
   * each batch.
   */
  public static Sample listView(HandBuiltFlightSqlServer server, BufferAllocator allocator) {
    Field field =
        new Field(
            "lv",
            FieldType.nullable(ArrowType.ListView.INSTANCE),
            List.of(nullable("item", INT32)));
    Schema schema = new Schema(List.of(ID, field));
    // Per batch: the child values, and each row's view as {offset, size} (null: a null row).
    List<List<Object>> children = List.of(list(10L, 20L, 30L, 40L, null, 60L), list(1L, 2L, 3L));
    List<List<int[]>> views =
        List.of(
            Arrays.asList(
                new int[] {3, 2},
                new int[] {0, 4},
                null,
                new int[] {1, 2},
                new int[] {5, 0},
                new int[] {5, 1}),
            Arrays.asList(new int[] {2, 1}, new int[] {0, 3}, new int[] {2, 1}, null));
    List<Object> expected =
        list(
            list(40L, null),
            list(10L, 20L, 30L, 40L),
            null,
            list(20L, 30L),
            list(),
            list(60L),
            list(3L),
            list(1L, 2L, 3L),
            list(3L),
            null);
    HandBuiltDataset.Builder dataset = server.dataset("list_view", schema);
    int row = 0;
    try (VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator)) {
      for (int b = 0; b < views.size(); b++) {
        root.clear();
        root.allocateNew();
        ListViewVector vector = (ListViewVector) root.getVector(1);
        FieldVector items = vector.getDataVector();
        List<Object> values = children.get(b);
        for (int k = 0; k < values.size(); k++) {
          write(items, k, values.get(k));
        }
        items.setValueCount(values.size());
        List<int[]> batchViews = views.get(b);
        for (int i = 0; i < batchViews.size(); i++, row++) {
          ((IntVector) root.getVector(0)).setSafe(i, row);
          int[] view = batchViews.get(i);
          // A null row still gets an in-bounds view, which a reader must ignore.
          vector.setOffset(i, view == null ? 1 : view[0]);
          vector.setSize(i, view == null ? 2 : view[1]);
          vector.setValidity(i, view == null ? 0 : 1);
        }
        root.setRowCount(batchViews.size());
        dataset.batch(root);
      }
    }
    dataset.register();
    return new Sample(
        "list_view",
        schema,
        List.of(6, 4),
        withIds(List.of(expected)),
        "list_view<int32> with overlapping, out-of-order and empty views, and null rows whose"
            + " views point at values");
  }

  public static Sample largeList(HandBuiltFlightSqlServer server, BufferAllocator allocator) {
    Field field =
        new Field(
            "ll",
            FieldType.nullable(ArrowType.LargeList.INSTANCE),
            List.of(nullable("item", INT32)));
    Column ll =
        column(
            field,
            HandBuiltDatasets::write,
            same(
                list(1L, 2L),
                list(),
                null,
                list((Object) null),
                list(3L, 4L, 5L),
                null,
                list((long) Integer.MIN_VALUE, (long) Integer.MAX_VALUE)));
    return scalarSample(
        server,
        allocator,
        "large_list",
        "large_list<int32> (64-bit offsets)",
        new int[] {4, 3},
        ll);
  }

  public static Sample largeUtf8(HandBuiltFlightSqlServer server, BufferAllocator allocator) {
    Column s =
        column(
            nullable("s", ArrowType.LargeUtf8.INSTANCE),
            (LargeVarCharVector v, int i, Object text) -> v.setSafe(i, utf8((String) text)),
            same("hello", "", null, "ünïcødé ✓", "a".repeat(1000), null, "🙂 emoji"));
    return scalarSample(
        server, allocator, "large_utf8", "large_utf8 (64-bit offsets)", new int[] {4, 3}, s);
  }

  public static Sample largeBinary(HandBuiltFlightSqlServer server, BufferAllocator allocator) {
    Column b =
        column(
            nullable("b", ArrowType.LargeBinary.INSTANCE),
            (LargeVarBinaryVector v, int i, Object bytes) -> v.setSafe(i, (byte[]) bytes),
            binaries(
                bytes(0x00, 0xff),
                new byte[0],
                null,
                bytes(0xde, 0xad, 0xbe, 0xef),
                bytes(0),
                null));
    return scalarSample(
        server, allocator, "large_binary", "large_binary (64-bit offsets)", new int[] {3, 3}, b);
  }

  public static Sample utf8View(HandBuiltFlightSqlServer server, BufferAllocator allocator) {
    Column s =
        column(
            nullable("s", ArrowType.Utf8View.INSTANCE),
            (ViewVarCharVector v, int i, Object text) -> v.setSafe(i, utf8((String) text)),
            same(
                "",
                "short",
                "exactly12byt",
                "thirteen byte",
                null,
                "a longer string kept out of line",
                "ünïcødé beyond twelve bytes",
                null,
                "x",
                "another value longer than twelve bytes"));
    return scalarSample(
        server,
        allocator,
        "utf8_view",
        "utf8_view: values of at most 12 bytes inline, longer ones in several data buffers",
        new int[] {6, 4},
        s);
  }

  public static Sample binaryView(HandBuiltFlightSqlServer server, BufferAllocator allocator) {
    Column b =
        column(
            nullable("b", ArrowType.BinaryView.INSTANCE),
            (ViewVarBinaryVector v, int i, Object bytes) -> v.setSafe(i, (byte[]) bytes),
            binaries(
                new byte[0],
                utf8("thirteen byte"),
                utf8("twelve bytes"),
                null,
                utf8("out-of-line binary value number one"),
                bytes(1, 2, 3),
                null,
                utf8("out-of-line binary value number two"),
                utf8("out-of-line binary value number three")));
    return scalarSample(
        server,
        allocator,
        "binary_view",
        "binary_view: values of at most 12 bytes inline, longer ones in several data buffers",
        new int[] {6, 3},
        b);
  }

  public static Sample fixedSizeBinary(HandBuiltFlightSqlServer server, BufferAllocator allocator) {
    byte[] ascending = new byte[16];
    for (int i = 0; i < 16; i++) {
      ascending[i] = (byte) i;
    }
    byte[] ones = new byte[16];
    Arrays.fill(ones, (byte) 0xff);
    Column b =
        column(
            nullable("b", new ArrowType.FixedSizeBinary(16)),
            (FixedSizeBinaryVector v, int i, Object bytes) -> v.setSafe(i, (byte[]) bytes),
            binaries(ascending, ones, null, new byte[16], utf8("0123456789abcdef"), null));
    return scalarSample(
        server, allocator, "fixed_size_binary", "fixed_size_binary(16)", new int[] {3, 3}, b);
  }

  public static Sample decimal256Wide(HandBuiltFlightSqlServer server, BufferAllocator allocator) {
    Column d =
        column(
            nullable("d", new ArrowType.Decimal(76, 10, 256)),
            (Decimal256Vector v, int i, Object value) -> v.setSafe(i, (BigDecimal) value),
            same(
                new BigDecimal("1.5000000000"),
                new BigDecimal("-0.0000000001"),
                null,
                new BigDecimal("1234567890123456789012345678.0123456789"), // 38 digits
                new BigDecimal("9".repeat(28) + "." + "9".repeat(10)), // 38 digits
                new BigDecimal("1234567890".repeat(6) + "123456.0123456789"), // 76 digits
                new BigDecimal("-" + "9".repeat(66) + "." + "9".repeat(10)), // the minimum
                new BigDecimal("0E-10"),
                new BigDecimal("1" + "0".repeat(29) + ".0000000000"), // 40 digits
                null));
    return scalarSample(
        server,
        allocator,
        "decimal256_76_10",
        "decimal256(76, 10): the first batch fits in 38 digits, the second mostly does not",
        new int[] {5, 5},
        d);
  }

  public static Sample decimal256Narrow(
      HandBuiltFlightSqlServer server, BufferAllocator allocator) {
    Column d =
        column(
            nullable("d", new ArrowType.Decimal(38, 4, 256)),
            (Decimal256Vector v, int i, Object value) -> v.setSafe(i, (BigDecimal) value),
            same(
                new BigDecimal("1.2345"),
                new BigDecimal("-" + "9".repeat(34) + ".9999"),
                null,
                new BigDecimal("0.0000"),
                new BigDecimal("12345678901234567890123456789012.3456"),
                new BigDecimal("0.0001"),
                null));
    return scalarSample(
        server,
        allocator,
        "decimal256_38_4",
        "decimal256(38, 4): a 256-bit decimal whose values all fit a 128-bit one",
        new int[] {4, 3},
        d);
  }

  public static Sample unsignedInts(HandBuiltFlightSqlServer server, BufferAllocator allocator) {
    Column u8 =
        column(
            nullable("u8", new ArrowType.Int(8, false)),
            (UInt1Vector v, int i, Object bits) -> v.setSafe(i, (int) bits),
            cells(
                cell(0, 0L),
                cell(0xFF, 255L),
                cell(0x80, 128L),
                nullCell(),
                cell(1, 1L),
                cell(0x7F, 127L)));
    Column u16 =
        column(
            nullable("u16", new ArrowType.Int(16, false)),
            (UInt2Vector v, int i, Object bits) -> v.setSafe(i, (int) bits),
            cells(
                cell(0, 0L),
                cell(0xFFFF, 65535L),
                cell(0x8000, 32768L),
                cell(1, 1L),
                nullCell(),
                cell(0x7FFF, 32767L)));
    Column u32 =
        column(
            nullable("u32", new ArrowType.Int(32, false)),
            (UInt4Vector v, int i, Object bits) -> v.setSafe(i, (int) bits),
            cells(
                cell(0, 0L),
                cell(-1, 4_294_967_295L),
                cell(Integer.MIN_VALUE, 2_147_483_648L),
                cell(1, 1L),
                cell(Integer.MAX_VALUE, 2_147_483_647L),
                nullCell()));
    Column u64 =
        column(
            nullable("u64", new ArrowType.Int(64, false)),
            (UInt8Vector v, int i, Object bits) -> v.setSafe(i, (long) bits),
            cells(
                cell(0L, 0L),
                cell(-1L, new BigInteger("18446744073709551615")),
                cell(Long.MIN_VALUE, new BigInteger("9223372036854775808")),
                nullCell(),
                cell(1L, 1L),
                cell(Long.MAX_VALUE, Long.MAX_VALUE)));
    return scalarSample(
        server,
        allocator,
        "unsigned_ints",
        "uint8/16/32/64 given by their bits, up to each type's maximum",
        new int[] {3, 3},
        u8,
        u16,
        u32,
        u64);
  }

  public static Sample nullType(HandBuiltFlightSqlServer server, BufferAllocator allocator) {
    Column nothing =
        column(
            new Field("nothing", FieldType.nullable(ArrowType.Null.INSTANCE), null),
            (FieldVector v, int i, Object unused) -> {
              throw new IllegalStateException("A Null column has only nulls");
            },
            same(null, null, null, null, null));
    return scalarSample(
        server, allocator, "null_type", "A column of Arrow's Null type", new int[] {3, 2}, nothing);
  }

  public static Sample times(HandBuiltFlightSqlServer server, BufferAllocator allocator) {
    Column seconds =
        column(
            nullable("t32_s", new ArrowType.Time(TimeUnit.SECOND, 32)),
            (TimeSecVector v, int i, Object raw) -> v.setSafe(i, (int) raw),
            cells(
                cell(0, time("00:00")),
                cell(86_399, time("23:59:59")),
                cell(45_296, time("12:34:56")),
                nullCell(),
                cell(3_600, time("01:00")),
                nullCell(),
                cell(1, time("00:00:01"))));
    Column millis =
        column(
            nullable("t32_ms", new ArrowType.Time(TimeUnit.MILLISECOND, 32)),
            (TimeMilliVector v, int i, Object raw) -> v.setSafe(i, (int) raw),
            cells(
                cell(0, time("00:00")),
                cell(86_399_999, time("23:59:59.999")),
                cell(45_296_789, time("12:34:56.789")),
                nullCell(),
                cell(3_600_000, time("01:00")),
                cell(1, time("00:00:00.001")),
                nullCell()));
    Column micros =
        column(
            nullable("t64_us", new ArrowType.Time(TimeUnit.MICROSECOND, 64)),
            (TimeMicroVector v, int i, Object raw) -> v.setSafe(i, (long) raw),
            cells(
                cell(0L, time("00:00")),
                cell(86_399_999_999L, time("23:59:59.999999")),
                cell(45_296_789_012L, time("12:34:56.789012")),
                nullCell(),
                cell(1L, time("00:00:00.000001")),
                nullCell(),
                cell(43_200_000_000L, time("12:00"))));
    Column nanos =
        column(
            nullable("t64_ns", new ArrowType.Time(TimeUnit.NANOSECOND, 64)),
            (TimeNanoVector v, int i, Object raw) -> v.setSafe(i, (long) raw),
            cells(
                cell(0L, time("00:00")),
                cell(86_399_999_999_999L, time("23:59:59.999999999")),
                cell(45_296_789_012_345L, time("12:34:56.789012345")),
                nullCell(),
                cell(1L, time("00:00:00.000000001")),
                cell(999L, time("00:00:00.000000999")),
                nullCell()));
    return scalarSample(
        server,
        allocator,
        "times",
        "time32 (s, ms) and time64 (us, ns), to the last unit of the day",
        new int[] {4, 3},
        seconds,
        millis,
        micros,
        nanos);
  }

  public static Sample durations(HandBuiltFlightSqlServer server, BufferAllocator allocator) {
    Setter<DurationVector> set = (v, i, raw) -> v.setSafe(i, (long) raw);
    Column seconds =
        column(
            nullable("d_s", new ArrowType.Duration(TimeUnit.SECOND)),
            set,
            cells(
                cell(0L, Duration.ZERO),
                cell(-1L, Duration.ofSeconds(-1)),
                cell(90_061L, Duration.parse("PT25H1M1S")),
                nullCell(),
                cell(100_000_000_000L, Duration.ofSeconds(100_000_000_000L)),
                nullCell(),
                cell(-86_400L, Duration.ofDays(-1))));
    Column millis =
        column(
            nullable("d_ms", new ArrowType.Duration(TimeUnit.MILLISECOND)),
            set,
            cells(
                cell(0L, Duration.ZERO),
                cell(-1_500L, Duration.ofMillis(-1_500)),
                cell(86_400_000L, Duration.ofDays(1)),
                nullCell(),
                cell(1L, Duration.ofMillis(1)),
                nullCell(),
                cell(1_234_567_890_123L, Duration.ofMillis(1_234_567_890_123L))));
    Column micros =
        column(
            nullable("d_us", new ArrowType.Duration(TimeUnit.MICROSECOND)),
            set,
            cells(
                cell(0L, Duration.ZERO),
                cell(-1L, Duration.ofNanos(-1_000)),
                cell(1_500_000L, Duration.ofMillis(1_500)),
                nullCell(),
                cell(1L, Duration.ofNanos(1_000)),
                nullCell(),
                cell(86_400_000_000L, Duration.ofDays(1))));
    Column nanos =
        column(
            nullable("d_ns", new ArrowType.Duration(TimeUnit.NANOSECOND)),
            set,
            cells(
                cell(0L, Duration.ZERO),
                cell(-1L, Duration.ofNanos(-1)),
                cell(123_456_789L, Duration.ofNanos(123_456_789)),
                nullCell(),
                cell(1L, Duration.ofNanos(1)),
                nullCell(),
                cell(1_001L, Duration.ofNanos(1_001))));
    return scalarSample(
        server,
        allocator,
        "durations",
        "duration in s, ms, us and ns, negative ones included; ns values not whole microseconds",
        new int[] {4, 3},
        seconds,
        millis,
        micros,
        nanos);
  }

  public static Sample intervals(HandBuiltFlightSqlServer server, BufferAllocator allocator) {
    Column yearMonth =
        column(
            nullable("ym", new ArrowType.Interval(IntervalUnit.YEAR_MONTH)),
            (IntervalYearVector v, int i, Object months) -> v.setSafe(i, (int) months),
            cells(
                cell(14, Period.ofMonths(14)),
                cell(-1, Period.ofMonths(-1)),
                cell(0, Period.ofMonths(0)),
                nullCell(),
                cell(1_200, Period.ofMonths(1_200))));
    Column dayTime =
        column(
            nullable("dt", new ArrowType.Interval(IntervalUnit.DAY_TIME)),
            (IntervalDayVector v, int i, Object raw) ->
                v.setSafe(i, ((int[]) raw)[0], ((int[]) raw)[1]),
            cells(
                cell(new int[] {1, 1_000}, dayTime(1, 1_000)),
                cell(new int[] {-2, 500}, dayTime(-2, 500)),
                nullCell(),
                cell(new int[] {0, 86_400_000}, dayTime(0, 86_400_000)),
                cell(new int[] {3, -1}, dayTime(3, -1))));
    Column monthDayNano =
        column(
            nullable("mdn", new ArrowType.Interval(IntervalUnit.MONTH_DAY_NANO)),
            (IntervalMonthDayNanoVector v, int i, Object raw) -> {
              long[] parts = (long[]) raw;
              v.setSafe(i, (int) parts[0], (int) parts[1], parts[2]);
            },
            cells(
                cell(new long[] {1, 2, 3_000}, monthDayNano(1, 2, 3_000)),
                nullCell(),
                cell(new long[] {-1, 15, -1}, monthDayNano(-1, 15, -1)),
                cell(new long[] {0, 0, 1}, monthDayNano(0, 0, 1)),
                cell(
                    new long[] {25, -40, 86_400_000_000_001L},
                    monthDayNano(25, -40, 86_400_000_000_001L))));
    return scalarSample(
        server,
        allocator,
        "intervals",
        "interval year_month, day_time and month_day_nano, with mixed signs and nanoseconds",
        new int[] {3, 2},
        yearMonth,
        dayTime,
        monthDayNano);
  }

  /**
   * The same six instants in each unit, with and without a zone: the epoch, one unit before it,
   * 2024-02-29T12:34:56.789012345, 1969-07-20T20:17:40.123456789, null and 1900-01-01.
   */
  public static Sample timestamps(HandBuiltFlightSqlServer server, BufferAllocator allocator) {
    String[] instants = {
      "1970-01-01T00:00:00Z",
      null, // one unit before the epoch, which differs per unit
      "2024-02-29T12:34:56.789012345Z",
      "1969-07-20T20:17:40.123456789Z",
      null,
      "1900-01-01T00:00:00Z"
    };
    long[][] raw = {
      // second, millisecond, microsecond, nanosecond
      {0L, 0L, 0L, 0L},
      {-1L, -1L, -1L, -1L},
      {1_709_210_096L, 1_709_210_096_789L, 1_709_210_096_789_012L, 1_709_210_096_789_012_345L},
      {-14_182_940L, -14_182_939_877L, -14_182_939_876_544L, -14_182_939_876_543_211L},
      null,
      {-2_208_988_800L, -2_208_988_800_000L, -2_208_988_800_000_000L, -2_208_988_800_000_000_000L}
    };
    String[] beforeEpoch = {
      "1969-12-31T23:59:59Z",
      "1969-12-31T23:59:59.999Z",
      "1969-12-31T23:59:59.999999Z",
      "1969-12-31T23:59:59.999999999Z"
    };
    TimeUnit[] units = {
      TimeUnit.SECOND, TimeUnit.MILLISECOND, TimeUnit.MICROSECOND, TimeUnit.NANOSECOND
    };
    ChronoUnit[] precision = {
      ChronoUnit.SECONDS, ChronoUnit.MILLIS, ChronoUnit.MICROS, ChronoUnit.NANOS
    };
    String[] names = {"s", "ms", "us", "ns"};
    String[] zones = {"UTC", "UTC", "Europe/Paris", "America/New_York"};
    List<Column> columns = new ArrayList<>();
    for (boolean zoned : new boolean[] {false, true}) {
      for (int u = 0; u < units.length; u++) {
        List<Cell> cells = new ArrayList<>();
        for (int r = 0; r < raw.length; r++) {
          if (raw[r] == null) {
            cells.add(nullCell());
            continue;
          }
          Instant instant =
              Instant.parse(instants[r] != null ? instants[r] : beforeEpoch[u])
                  .truncatedTo(precision[u]);
          cells.add(
              cell(raw[r][u], zoned ? instant : LocalDateTime.ofInstant(instant, ZoneOffset.UTC)));
        }
        columns.add(
            column(
                nullable(
                    (zoned ? "tstz_" : "ts_") + names[u],
                    new ArrowType.Timestamp(units[u], zoned ? zones[u] : null)),
                (TimeStampVector v, int i, Object value) -> v.setSafe(i, (long) value),
                cells(cells.toArray(new Cell[0]))));
      }
    }
    return scalarSample(
        server,
        allocator,
        "timestamps",
        "timestamp s/ms/us/ns without a zone and with one (UTC, Europe/Paris, America/New_York);"
            + " instants before 1970 with fractions, ns values not whole microseconds",
        new int[] {3, 3},
        columns.toArray(new Column[0]));
  }

  /**
   * A dictionary-encoded utf8 column whose dictionary is replaced before batches 1 and 2 and kept
   * for batch 3; {@link #REPLACED_DICTIONARIES} gives the one in force for each batch.
   */
  public static Sample dictionaryReplaced(
      HandBuiltFlightSqlServer server, BufferAllocator allocator) {
    DictionaryEncoding encoding = new DictionaryEncoding(REPLACED_DICTIONARY_ID, false, INT32);
    List<List<Integer>> indices =
        List.of(
            Arrays.asList(0, 2, null, 1),
            Arrays.asList(3, 0, null, 2),
            Arrays.asList(0, null),
            Arrays.asList(0, 0));
    List<Object> expected =
        list(
            "red", "blue", null, "green", "black", "cyan", null, "yellow", "solo", null, "solo",
            "solo");
    boolean[] resend = {true, true, true, false};
    return dictionarySample(
        server,
        allocator,
        "dictionary_replaced",
        "Dictionary-encoded utf8 whose dictionary is replaced between batches (same id, not a"
            + " delta), then kept for the last batch",
        encoding,
        UTF8,
        REPLACED_DICTIONARIES,
        resend,
        false,
        indices,
        expected);
  }

  /** Int32 values in a dictionary with int8 indices; one dictionary entry is null. */
  public static Sample dictionaryInt32(HandBuiltFlightSqlServer server, BufferAllocator allocator) {
    DictionaryEncoding encoding = new DictionaryEncoding(INT32_DICTIONARY_ID, false, INT8);
    List<Object> dictionary = list(100L, -5L, null, (long) Integer.MAX_VALUE);
    return dictionarySample(
        server,
        allocator,
        "dictionary_int32",
        "Dictionary-encoded int32 with int8 indices; an index may point at a null dictionary entry",
        encoding,
        INT32,
        List.of(dictionary, dictionary),
        new boolean[] {true, false},
        false,
        List.of(Arrays.asList(0, 1, 2, null, 3), Arrays.asList(3, 3, 0)),
        list(
            100L,
            -5L,
            null,
            null,
            (long) Integer.MAX_VALUE,
            (long) Integer.MAX_VALUE,
            (long) Integer.MAX_VALUE,
            100L));
  }

  /**
   * A dictionary extended by a delta batch ({@link #DELTA_EXTENSION} after {@link #DELTA_BASE})
   * between the two record batches; the expected rows follow the IPC format, where the second
   * batch's indices 2 and 3 mean "c" and "d".
   */
  public static Sample dictionaryDelta(HandBuiltFlightSqlServer server, BufferAllocator allocator) {
    DictionaryEncoding encoding = new DictionaryEncoding(DELTA_DICTIONARY_ID, false, INT32);
    return dictionarySample(
        server,
        allocator,
        "dictionary_delta",
        "Dictionary-encoded utf8 extended by a delta dictionary batch (isDelta) between batches",
        encoding,
        UTF8,
        List.of(new ArrayList<>(DELTA_BASE), new ArrayList<>(DELTA_EXTENSION)),
        new boolean[] {true, true},
        true,
        List.of(Arrays.asList(0, 1, null), Arrays.asList(2, 3, 0)),
        list("a", "b", null, "c", "d", "a"));
  }

  /**
   * Registers a one-column dictionary-encoded dataset. Before batch {@code b} it sends {@code
   * dictionaries.get(b)} when {@code resend[b]}; with {@code deltas}, every dictionary after the
   * first is sent as a delta.
   */
  private static Sample dictionarySample(
      HandBuiltFlightSqlServer server,
      BufferAllocator allocator,
      String name,
      String notes,
      DictionaryEncoding encoding,
      ArrowType valueType,
      List<? extends List<?>> dictionaries,
      boolean[] resend,
      boolean deltas,
      List<List<Integer>> indices,
      List<Object> expected) {
    Field indexField =
        new Field("value", new FieldType(true, encoding.getIndexType(), encoding), null);
    Schema schema = new Schema(List.of(ID, indexField));
    HandBuiltDataset.Builder dataset = server.dataset(name, schema);
    List<Integer> sizes = new ArrayList<>();
    int row = 0;
    try (VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator)) {
      for (int b = 0; b < indices.size(); b++) {
        if (resend[b]) {
          try (FieldVector values = nullable("dictionary", valueType).createVector(allocator)) {
            values.allocateNew();
            List<?> entries = dictionaries.get(b);
            for (int k = 0; k < entries.size(); k++) {
              write(values, k, entries.get(k));
            }
            values.setValueCount(entries.size());
            if (deltas && b > 0) {
              dataset.dictionaryDelta(values, encoding.getId());
            } else {
              dataset.dictionary(values, encoding.getId());
            }
          }
        }
        root.clear();
        root.allocateNew();
        List<Integer> batch = indices.get(b);
        FieldVector index = root.getVector(1);
        for (int i = 0; i < batch.size(); i++, row++) {
          ((IntVector) root.getVector(0)).setSafe(i, row);
          Integer value = batch.get(i);
          if (value == null) {
            index.setNull(i);
          } else if (index instanceof TinyIntVector) {
            ((TinyIntVector) index).setSafe(i, value);
          } else {
            ((IntVector) index).setSafe(i, value);
          }
        }
        root.setRowCount(batch.size());
        dataset.batch(root);
        sizes.add(batch.size());
      }
    }
    dataset.register();
    Field wireField = new Field("value", new FieldType(true, valueType, encoding), null);
    return new Sample(
        name, new Schema(List.of(ID, wireField)), sizes, withIds(List.of(expected)), notes);
  }

  public static Sample denseUnionOfInt32AndNull(
      HandBuiltFlightSqlServer server, BufferAllocator allocator) {
    Field union =
        new Field(
            "u",
            FieldType.nullable(new ArrowType.Union(UnionMode.Dense, new int[] {0, 1, 2})),
            List.of(
                nullable("a", INT32),
                nullable("b", INT32),
                nullable("n", ArrowType.Null.INSTANCE)));
    return unionSample(
        server,
        allocator,
        "dense_union_int32_null",
        "Dense union whose members are all int32 but one of Null type, as some servers type a"
            + " column they cannot name; a reader may read it as int32",
        union,
        new int[] {3, 3},
        new Object[][] {
          {0, 5L}, {1, -7L}, {2, null}, {0, null}, {1, (long) Integer.MAX_VALUE}, {2, null}
        });
  }

  /**
   * Sparse union of int32 and Null with type ids 0 and 1, as C++, Go and Rust write them; Arrow
   * Java's own UnionVector would write Types.MinorType ordinals instead.
   */
  public static Sample sparseUnionOfInt32AndNull(
      HandBuiltFlightSqlServer server, BufferAllocator allocator) {
    Field union =
        new Field(
            "u",
            FieldType.nullable(new ArrowType.Union(UnionMode.Sparse, new int[] {0, 1})),
            List.of(nullable("i", INT32), nullable("n", ArrowType.Null.INSTANCE)));
    return unionSample(
        server,
        allocator,
        "sparse_union_int32_null",
        "Sparse union of int32 and Null with type ids 0 and 1; a reader may read it as int32",
        union,
        new int[] {3, 2},
        new Object[][] {{0, 5L}, {1, null}, {0, null}, {0, -1L}, {1, null}});
  }

  public static Sample denseUnionOfInt32AndUtf8(
      HandBuiltFlightSqlServer server, BufferAllocator allocator) {
    Field union =
        new Field(
            "u",
            FieldType.nullable(new ArrowType.Union(UnionMode.Dense, new int[] {0, 1})),
            List.of(nullable("i", INT32), nullable("s", UTF8)));
    return unionSample(
        server,
        allocator,
        "dense_union_int32_utf8",
        "Dense union of int32 and utf8: members of different types, which a reader must reject"
            + " with an error naming the column",
        union,
        new int[] {2, 2},
        new Object[][] {{0, 1L}, {1, "one"}, {1, null}, {0, 2L}});
  }

  /**
   * Registers a one-column union dataset; each row is {type id, value}, the value written to the
   * member with that id (at the row for a sparse union, after the member's earlier values for a
   * dense one).
   */
  private static Sample unionSample(
      HandBuiltFlightSqlServer server,
      BufferAllocator allocator,
      String name,
      String notes,
      Field unionField,
      int[] batchSizes,
      Object[][] rows) {
    Schema schema = new Schema(List.of(ID, unionField));
    int[] typeIds = ((ArrowType.Union) unionField.getType()).getTypeIds();
    HandBuiltDataset.Builder dataset = server.dataset(name, schema);
    List<Object> expected = new ArrayList<>();
    int row = 0;
    try (VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator)) {
      for (int size : batchSizes) {
        root.clear();
        root.allocateNew();
        FieldVector vector = root.getVector(1);
        List<FieldVector> members = vector.getChildrenFromFields();
        int[] used = new int[typeIds.length];
        for (int i = 0; i < size; i++, row++) {
          ((IntVector) root.getVector(0)).setSafe(i, row);
          int typeId = (int) rows[row][0];
          Object value = rows[row][1];
          int member = indexOf(typeIds, typeId);
          if (vector instanceof DenseUnionVector) {
            DenseUnionVector dense = (DenseUnionVector) vector;
            dense.setTypeId(i, (byte) typeId);
            dense.setOffset(i, used[member]);
            writeMember(members.get(member), used[member]++, value);
          } else {
            // Written by hand: UnionVector's own setters would write its MinorType ordinals.
            UnionVector sparse = (UnionVector) vector;
            sparse.getTypeBuffer().setByte(i, typeId);
            for (int m = 0; m < members.size(); m++) {
              writeMember(members.get(m), i, m == member ? value : null);
            }
          }
          expected.add(value);
        }
        root.setRowCount(size);
        if (vector instanceof DenseUnionVector) {
          for (int m = 0; m < members.size(); m++) {
            members.get(m).setValueCount(used[m]);
          }
        }
        dataset.batch(root);
      }
    }
    dataset.register();
    return new Sample(name, schema, sizes(batchSizes), withIds(List.of(expected)), notes);
  }

  private static void writeMember(FieldVector member, int index, Object value) {
    if (member.getField().getType() instanceof ArrowType.Null) {
      return;
    }
    write(member, index, value);
  }

  public static Sample nestedStruct(HandBuiltFlightSqlServer server, BufferAllocator allocator) {
    Field inner =
        new Field(
            "inner",
            FieldType.nullable(ArrowType.Struct.INSTANCE),
            List.of(
                nullable("x", UTF8),
                nullable("y", new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE))));
    Field outer =
        new Field(
            "s",
            FieldType.nullable(ArrowType.Struct.INSTANCE),
            List.of(nullable("a", INT32), inner));
    Column s =
        column(
            outer,
            HandBuiltDatasets::write,
            same(
                struct("a", 1L, "inner", struct("x", "p", "y", 1.5)),
                new NullOver(struct("a", 99L, "inner", struct("x", "junk", "y", 9.9))),
                struct("a", null, "inner", null),
                struct("a", null, "inner", struct("x", null, "y", null)),
                struct("a", 2L, "inner", struct("x", "q", "y", Double.NaN))));
    return scalarSample(
        server,
        allocator,
        "nested_struct",
        "struct<a: int32, inner: struct<x: utf8, y: float64>>: a null struct (over junk), a struct"
            + " of nulls with a null inner struct, and one whose inner struct holds nulls",
        new int[] {3, 2},
        s);
  }

  public static Sample mapOfUtf8ToInt32(
      HandBuiltFlightSqlServer server, BufferAllocator allocator) {
    Field entries =
        new Field(
            MapVector.DATA_VECTOR_NAME,
            FieldType.notNullable(ArrowType.Struct.INSTANCE),
            List.of(
                new Field(MapVector.KEY_NAME, FieldType.notNullable(UTF8), null),
                nullable(MapVector.VALUE_NAME, INT32)));
    Field map = new Field("m", FieldType.nullable(new ArrowType.Map(false)), List.of(entries));
    Column m =
        column(
            map,
            HandBuiltDatasets::write,
            same(
                struct("a", 1L, "b", null),
                struct(),
                null,
                struct("z", -1L),
                struct("k1", 1L, "k2", 2L, "k3", 3L),
                struct()));
    return scalarSample(
        server,
        allocator,
        "map_utf8_int32",
        "map<utf8, int32> with empty maps, a null map and null values",
        new int[] {3, 3},
        m);
  }

  public static Sample listOfStruct(HandBuiltFlightSqlServer server, BufferAllocator allocator) {
    Field item =
        new Field(
            "item",
            FieldType.nullable(ArrowType.Struct.INSTANCE),
            List.of(nullable("k", INT64), nullable("v", UTF8)));
    Field list = new Field("l", FieldType.nullable(ArrowType.List.INSTANCE), List.of(item));
    Column l =
        column(
            list,
            HandBuiltDatasets::write,
            same(
                list(struct("k", 1L, "v", "one"), null, struct("k", null, "v", null)),
                list(),
                null,
                list(struct("k", 2L, "v", "two")),
                list((Object) null)));
    return scalarSample(
        server,
        allocator,
        "list_of_struct",
        "list<struct<k: int64, v: utf8>> with null elements, a struct of nulls, empty and null"
            + " lists",
        new int[] {3, 2},
        l);
  }

  /**
   * The {@code arrow.uuid} extension type, sent without being registered anywhere: the expected
   * schema is what a client that does not know the extension receives.
   */
  public static Sample uuidExtension(HandBuiltFlightSqlServer server, BufferAllocator allocator) {
    Column u =
        column(
            new Field("u", FieldType.nullable(UuidExtensionType.INSTANCE), null),
            (UuidExtensionType.Vector v, int i, Object uuid) -> v.setSafe(i, (UUID) uuid),
            same(
                new UUID(0, 0),
                UUID.fromString("123e4567-e89b-12d3-a456-426614174000"),
                null,
                new UUID(-1, -1),
                null));
    Sample sent =
        scalarSample(
            server,
            allocator,
            "uuid_extension",
            "Extension type arrow.uuid over fixed_size_binary(16)",
            new int[] {3, 2},
            u);
    Map<String, String> metadata = new LinkedHashMap<>();
    metadata.put(ArrowType.ExtensionType.EXTENSION_METADATA_KEY_NAME, UuidExtensionType.NAME);
    metadata.put(ArrowType.ExtensionType.EXTENSION_METADATA_KEY_METADATA, "");
    Field received =
        new Field(
            "u", new FieldType(true, new ArrowType.FixedSizeBinary(16), null, metadata), null);
    return new Sample(
        sent.name(),
        new Schema(List.of(ID, received)),
        sent.batchSizes(),
        sent.rows(),
        sent.notes());
  }

  // --- building blocks ---

  /** Sets one value of a vector from its raw form. */
  @FunctionalInterface
  private interface Setter<V extends FieldVector> {
    void set(V vector, int index, Object raw);
  }

  /** One column of a scalar sample: raw values to write and the values they stand for. */
  private static final class Column {
    private final Field field;
    private final Setter<FieldVector> setter;
    private final Cells cells;

    private Column(Field field, Setter<FieldVector> setter, Cells cells) {
      this.field = field;
      this.setter = setter;
      this.cells = cells;
    }
  }

  @SuppressWarnings("unchecked")
  private static <V extends FieldVector> Column column(Field field, Setter<V> setter, Cells cells) {
    return new Column(field, (Setter<FieldVector>) setter, cells);
  }

  /** Raw values and the values they stand for; a null raw value writes a null slot. */
  private record Cells(List<Object> raw, List<Object> expected) {}

  /** One raw value and the value it stands for. */
  private record Cell(Object raw, Object expected) {}

  private static Cell cell(Object raw, Object expected) {
    return new Cell(raw, expected);
  }

  private static Cell nullCell() {
    return new Cell(null, null);
  }

  private static Cells cells(Cell... cells) {
    List<Object> raw = new ArrayList<>();
    List<Object> expected = new ArrayList<>();
    for (Cell cell : cells) {
      raw.add(cell.raw());
      expected.add(cell.expected());
    }
    return new Cells(raw, expected);
  }

  /** Values written as they are expected; a {@link NullOver} is expected as null. */
  private static Cells same(Object... values) {
    List<Object> expected = new ArrayList<>();
    for (Object value : values) {
      expected.add(value instanceof NullOver ? null : value);
    }
    return new Cells(Arrays.asList(values), expected);
  }

  private static Cells binaries(byte[]... values) {
    List<Object> expected = new ArrayList<>();
    for (byte[] value : values) {
      expected.add(value == null ? null : hex(value));
    }
    return new Cells(Arrays.asList((Object[]) values), expected);
  }

  /** A null slot whose children (of a list or struct) still hold {@code junk}. */
  private record NullOver(Object junk) {}

  /**
   * Registers a dataset of {@link #ID} and the given columns, cut into batches of the given sizes.
   */
  private static Sample scalarSample(
      HandBuiltFlightSqlServer server,
      BufferAllocator allocator,
      String name,
      String notes,
      int[] batchSizes,
      Column... columns) {
    List<Field> fields = new ArrayList<>();
    fields.add(ID);
    for (Column column : columns) {
      fields.add(column.field);
      if (column.cells.raw.size() != Arrays.stream(batchSizes).sum()) {
        throw new IllegalArgumentException(
            "Column " + column.field.getName() + " of " + name + " has the wrong number of rows");
      }
    }
    Schema schema = new Schema(fields);
    HandBuiltDataset.Builder dataset = server.dataset(name, schema);
    int row = 0;
    try (VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator)) {
      for (int size : batchSizes) {
        root.clear();
        for (FieldVector vector : root.getFieldVectors()) {
          if (vector instanceof BaseVariableWidthViewVector) {
            // Small data buffers, so that the long values of a batch spread over several.
            ((BaseVariableWidthViewVector) vector).setInitialCapacity(size, 4);
          }
        }
        root.allocateNew();
        for (int i = 0; i < size; i++, row++) {
          ((IntVector) root.getVector(0)).setSafe(i, row);
          for (int c = 0; c < columns.length; c++) {
            FieldVector vector = root.getVector(c + 1);
            Object raw = columns[c].cells.raw.get(row);
            if (raw == null) {
              vector.setNull(i);
            } else if (raw instanceof NullOver) {
              columns[c].setter.set(vector, i, ((NullOver) raw).junk());
              vector.setNull(i);
            } else {
              columns[c].setter.set(vector, i, raw);
            }
          }
        }
        root.setRowCount(size);
        dataset.batch(root);
      }
    }
    dataset.register();
    List<List<Object>> expected = new ArrayList<>();
    for (Column column : columns) {
      expected.add(column.cells.expected);
    }
    return new Sample(name, schema, sizes(batchSizes), withIds(expected), notes);
  }

  /** Rows of the id and the given columns. */
  private static List<List<Object>> withIds(List<List<Object>> columns) {
    List<List<Object>> rows = new ArrayList<>();
    for (int r = 0; r < columns.get(0).size(); r++) {
      List<Object> row = new ArrayList<>();
      row.add((long) r);
      for (List<Object> column : columns) {
        row.add(column.get(r));
      }
      rows.add(row);
    }
    return rows;
  }

  /**
   * Writes a value in the form of the class comment into a vector of the matching type, for the
   * nested samples.
   */
  private static void write(FieldVector vector, int index, Object value) {
    if (value == null) {
      vector.setNull(index);
    } else if (vector instanceof IntVector) {
      ((IntVector) vector).setSafe(index, ((Number) value).intValue());
    } else if (vector instanceof BigIntVector) {
      ((BigIntVector) vector).setSafe(index, ((Number) value).longValue());
    } else if (vector instanceof Float8Vector) {
      ((Float8Vector) vector).setSafe(index, ((Number) value).doubleValue());
    } else if (vector instanceof VarCharVector) {
      ((VarCharVector) vector).setSafe(index, utf8((String) value));
    } else if (vector instanceof MapVector) {
      MapVector map = (MapVector) vector;
      StructVector entries = (StructVector) map.getDataVector();
      int start = map.startNewValue(index);
      int k = 0;
      for (Map.Entry<?, ?> entry : ((Map<?, ?>) value).entrySet()) {
        entries.setIndexDefined(start + k);
        write(entries.getChild(MapVector.KEY_NAME, FieldVector.class), start + k, entry.getKey());
        write(
            entries.getChild(MapVector.VALUE_NAME, FieldVector.class), start + k, entry.getValue());
        k++;
      }
      map.endValue(index, k);
    } else if (vector instanceof ListVector) {
      ListVector list = (ListVector) vector;
      List<?> elements = (List<?>) value;
      int start = list.startNewValue(index);
      for (int k = 0; k < elements.size(); k++) {
        write(list.getDataVector(), start + k, elements.get(k));
      }
      list.endValue(index, elements.size());
    } else if (vector instanceof LargeListVector) {
      LargeListVector list = (LargeListVector) vector;
      List<?> elements = (List<?>) value;
      long start = list.startNewValue(index);
      for (int k = 0; k < elements.size(); k++) {
        write(list.getDataVector(), (int) start + k, elements.get(k));
      }
      list.endValue(index, elements.size());
    } else if (vector instanceof FixedSizeListVector) {
      FixedSizeListVector list = (FixedSizeListVector) vector;
      List<?> elements = (List<?>) value;
      int start = list.startNewValue(index);
      for (int k = 0; k < elements.size(); k++) {
        write(list.getDataVector(), start + k, elements.get(k));
      }
    } else if (vector instanceof StructVector) {
      StructVector struct = (StructVector) vector;
      Map<?, ?> fields = (Map<?, ?>) value;
      struct.setIndexDefined(index);
      for (FieldVector child : struct.getChildrenFromFields()) {
        write(child, index, fields.get(child.getName()));
      }
    } else {
      throw new IllegalArgumentException("No sample writer for " + vector.getField());
    }
  }

  private static Field nullable(String name, ArrowType type) {
    return new Field(name, FieldType.nullable(type), null);
  }

  private static int indexOf(int[] values, int value) {
    for (int i = 0; i < values.length; i++) {
      if (values[i] == value) {
        return i;
      }
    }
    throw new IllegalArgumentException("No union member with type id " + value);
  }

  private static List<Integer> sizes(int[] batchSizes) {
    List<Integer> sizes = new ArrayList<>();
    for (int size : batchSizes) {
      sizes.add(size);
    }
    return sizes;
  }

  /** A list that may hold nulls. */
  public static List<Object> list(Object... values) {
    return new ArrayList<>(Arrays.asList(values));
  }

  /** A struct or map value: alternating key, value, in order; values may be null. */
  public static Map<Object, Object> struct(Object... keysAndValues) {
    Map<Object, Object> map = new LinkedHashMap<>();
    for (int i = 0; i < keysAndValues.length; i += 2) {
      map.put(keysAndValues[i], keysAndValues[i + 1]);
    }
    return map;
  }

  /** A binary value as the expected rows write it: "0x" and lowercase hex. */
  public static String hex(byte[] bytes) {
    return "0x" + HexFormat.of().formatHex(bytes);
  }

  private static byte[] bytes(int... values) {
    byte[] bytes = new byte[values.length];
    for (int i = 0; i < values.length; i++) {
      bytes[i] = (byte) values[i];
    }
    return bytes;
  }

  private static byte[] utf8(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  private static LocalTime time(String text) {
    return LocalTime.parse(text);
  }

  private static PeriodDuration dayTime(int days, int millis) {
    return new PeriodDuration(Period.ofDays(days), Duration.ofMillis(millis));
  }

  private static PeriodDuration monthDayNano(int months, int days, long nanos) {
    return new PeriodDuration(Period.of(0, months, days), Duration.ofNanos(nanos));
  }
}
