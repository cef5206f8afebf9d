package io.flightsql.spark.server;

import java.io.IOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.DurationVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.IntervalMonthDayNanoVector;
import org.apache.arrow.vector.IntervalYearVector;
import org.apache.arrow.vector.SmallIntVector;
import org.apache.arrow.vector.TimeMicroVector;
import org.apache.arrow.vector.TimeMilliVector;
import org.apache.arrow.vector.TimeSecVector;
import org.apache.arrow.vector.TimeStampMicroTZVector;
import org.apache.arrow.vector.TimeStampMicroVector;
import org.apache.arrow.vector.TinyIntVector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.MapVector;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.IntervalUnit;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Uploads for the write-path tests: one batch with a column of every Arrow type the connector sends
 * (as its docs/types.md lists them), and generated streams of many batches.
 */
final class WriteData {

  private WriteData() {}

  /** Each column of {@link #allTypes} with the DuckDB type bulk ingestion creates for it. */
  static final Map<String, String> DUCKDB_TYPES =
      orderedMap(
          "id", "INTEGER",
          "c_bool", "BOOLEAN",
          "c_int8", "TINYINT",
          "c_int16", "SMALLINT",
          "c_int32", "INTEGER",
          "c_int64", "BIGINT",
          "c_float32", "FLOAT",
          "c_float64", "DOUBLE",
          "c_decimal", "DECIMAL(10,2)",
          "c_decimal38", "DECIMAL(38,10)",
          "c_utf8", "VARCHAR",
          "c_binary", "BLOB",
          "c_date", "DATE",
          "c_ts", "TIMESTAMP",
          "c_tstz", "TIMESTAMP WITH TIME ZONE",
          "c_time_s", "TIME",
          "c_time_ms", "TIME",
          "c_time_us", "TIME",
          "c_duration", "INTERVAL",
          "c_year_month", "INTERVAL",
          "c_month_day_nano", "INTERVAL",
          "c_null", "INTEGER",
          "c_list", "INTEGER[]",
          "c_struct", "STRUCT(a INTEGER, b VARCHAR)",
          "c_map", "MAP(VARCHAR, INTEGER)");

  private static Map<String, String> orderedMap(String... pairs) {
    Map<String, String> map = new LinkedHashMap<>();
    for (int i = 0; i < pairs.length; i += 2) {
      map.put(pairs[i], pairs[i + 1]);
    }
    return Collections.unmodifiableMap(map);
  }

  static Schema allTypesSchema() {
    return new Schema(
        List.of(
            new Field("id", FieldType.notNullable(new ArrowType.Int(32, true)), null),
            nullable("c_bool", ArrowType.Bool.INSTANCE),
            nullable("c_int8", new ArrowType.Int(8, true)),
            nullable("c_int16", new ArrowType.Int(16, true)),
            nullable("c_int32", new ArrowType.Int(32, true)),
            nullable("c_int64", new ArrowType.Int(64, true)),
            nullable("c_float32", new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE)),
            nullable("c_float64", new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE)),
            nullable("c_decimal", new ArrowType.Decimal(10, 2, 128)),
            nullable("c_decimal38", new ArrowType.Decimal(38, 10, 128)),
            nullable("c_utf8", ArrowType.Utf8.INSTANCE),
            nullable("c_binary", ArrowType.Binary.INSTANCE),
            nullable("c_date", new ArrowType.Date(DateUnit.DAY)),
            nullable("c_ts", new ArrowType.Timestamp(TimeUnit.MICROSECOND, null)),
            nullable("c_tstz", new ArrowType.Timestamp(TimeUnit.MICROSECOND, "UTC")),
            nullable("c_time_s", new ArrowType.Time(TimeUnit.SECOND, 32)),
            nullable("c_time_ms", new ArrowType.Time(TimeUnit.MILLISECOND, 32)),
            nullable("c_time_us", new ArrowType.Time(TimeUnit.MICROSECOND, 64)),
            nullable("c_duration", new ArrowType.Duration(TimeUnit.MICROSECOND)),
            nullable("c_year_month", new ArrowType.Interval(IntervalUnit.YEAR_MONTH)),
            nullable("c_month_day_nano", new ArrowType.Interval(IntervalUnit.MONTH_DAY_NANO)),
            nullable("c_null", ArrowType.Null.INSTANCE),
            new Field(
                "c_list",
                FieldType.nullable(ArrowType.List.INSTANCE),
                List.of(nullable("element", new ArrowType.Int(32, true)))),
            new Field(
                "c_struct",
                FieldType.nullable(ArrowType.Struct.INSTANCE),
                List.of(
                    nullable("a", new ArrowType.Int(32, true)),
                    nullable("b", ArrowType.Utf8.INSTANCE))),
            new Field(
                "c_map",
                FieldType.nullable(new ArrowType.Map(false)),
                List.of(
                    new Field(
                        "entries",
                        FieldType.notNullable(ArrowType.Struct.INSTANCE),
                        List.of(
                            new Field("key", FieldType.notNullable(ArrowType.Utf8.INSTANCE), null),
                            nullable("value", new ArrowType.Int(32, true))))))));
  }

  /**
   * Four rows: three with values (extremes, zero, negatives, empty strings, lists and maps, a
   * struct of NULLs, NULL list elements and map values), and row 3 NULL in every column but id.
   */
  static VectorSchemaRoot allTypes(BufferAllocator allocator) {
    VectorSchemaRoot root = VectorSchemaRoot.create(allTypesSchema(), allocator);
    root.allocateNew();
    for (int row = 0; row < 4; row++) {
      ((IntVector) root.getVector("id")).setSafe(row, row);
    }
    BitVector bool = (BitVector) root.getVector("c_bool");
    bool.setSafe(0, 1);
    bool.setSafe(1, 0);
    bool.setSafe(2, 1);
    TinyIntVector int8 = (TinyIntVector) root.getVector("c_int8");
    int8.setSafe(0, Byte.MIN_VALUE);
    int8.setSafe(1, 0);
    int8.setSafe(2, Byte.MAX_VALUE);
    SmallIntVector int16 = (SmallIntVector) root.getVector("c_int16");
    int16.setSafe(0, Short.MIN_VALUE);
    int16.setSafe(1, 1);
    int16.setSafe(2, Short.MAX_VALUE);
    IntVector int32 = (IntVector) root.getVector("c_int32");
    int32.setSafe(0, Integer.MIN_VALUE);
    int32.setSafe(1, 2);
    int32.setSafe(2, Integer.MAX_VALUE);
    BigIntVector int64 = (BigIntVector) root.getVector("c_int64");
    int64.setSafe(0, Long.MIN_VALUE);
    int64.setSafe(1, 3);
    int64.setSafe(2, Long.MAX_VALUE);
    Float4Vector float32 = (Float4Vector) root.getVector("c_float32");
    float32.setSafe(0, 1.5f);
    float32.setSafe(1, -0.25f);
    float32.setSafe(2, 1e30f);
    Float8Vector float64 = (Float8Vector) root.getVector("c_float64");
    float64.setSafe(0, 2.5);
    float64.setSafe(1, -1e300);
    float64.setSafe(2, Math.PI);
    DecimalVector decimal = (DecimalVector) root.getVector("c_decimal");
    decimal.setSafe(0, new BigDecimal("12345678.90"));
    decimal.setSafe(1, new BigDecimal("-0.01"));
    decimal.setSafe(2, new BigDecimal("0.00"));
    DecimalVector decimal38 = (DecimalVector) root.getVector("c_decimal38");
    decimal38.setSafe(0, new BigDecimal("1234567890123456789012345678.1234567890"));
    decimal38.setSafe(1, new BigDecimal("-0.0000000001"));
    decimal38.setSafe(2, new BigDecimal("-9999999999999999999999999999.9999999999"));
    VarCharVector utf8 = (VarCharVector) root.getVector("c_utf8");
    utf8.setSafe(0, "héllo ✓".getBytes(StandardCharsets.UTF_8));
    utf8.setSafe(1, new byte[0]);
    utf8.setSafe(2, "it's \"quoted\"".getBytes(StandardCharsets.UTF_8));
    VarBinaryVector binary = (VarBinaryVector) root.getVector("c_binary");
    binary.setSafe(0, new byte[] {0, (byte) 0xff, 0x10});
    binary.setSafe(1, new byte[0]);
    binary.setSafe(2, "abc".getBytes(StandardCharsets.UTF_8));
    DateDayVector date = (DateDayVector) root.getVector("c_date");
    date.setSafe(0, 0);
    date.setSafe(1, (int) LocalDate.of(2024, 2, 29).toEpochDay());
    date.setSafe(2, (int) LocalDate.of(1900, 1, 1).toEpochDay());
    long[] micros = {0, 1_700_000_000_123_456L, -1};
    TimeStampMicroVector timestamp = (TimeStampMicroVector) root.getVector("c_ts");
    TimeStampMicroTZVector instant = (TimeStampMicroTZVector) root.getVector("c_tstz");
    for (int row = 0; row < 3; row++) {
      timestamp.setSafe(row, micros[row]);
      instant.setSafe(row, micros[row]);
    }
    TimeSecVector timeSeconds = (TimeSecVector) root.getVector("c_time_s");
    timeSeconds.setSafe(0, 0);
    timeSeconds.setSafe(1, 3723);
    timeSeconds.setSafe(2, 86_399);
    TimeMilliVector timeMillis = (TimeMilliVector) root.getVector("c_time_ms");
    timeMillis.setSafe(0, 0);
    timeMillis.setSafe(1, 3_723_456);
    timeMillis.setSafe(2, 86_399_999);
    TimeMicroVector timeMicros = (TimeMicroVector) root.getVector("c_time_us");
    timeMicros.setSafe(0, 0);
    timeMicros.setSafe(1, 3_723_456_789L);
    timeMicros.setSafe(2, 86_399_999_999L);
    DurationVector duration = (DurationVector) root.getVector("c_duration");
    duration.setSafe(0, 0);
    duration.setSafe(1, 90_061_000_001L);
    duration.setSafe(2, -1_000_000);
    IntervalYearVector yearMonth = (IntervalYearVector) root.getVector("c_year_month");
    yearMonth.setSafe(0, 0);
    yearMonth.setSafe(1, 14);
    yearMonth.setSafe(2, -3);
    IntervalMonthDayNanoVector monthDayNano =
        (IntervalMonthDayNanoVector) root.getVector("c_month_day_nano");
    monthDayNano.setSafe(0, 0, 0, 0);
    monthDayNano.setSafe(1, 1, 2, 3_000_000_000L);
    monthDayNano.setSafe(2, -1, -2, 1_000);
    fillList((ListVector) root.getVector("c_list"));
    fillStruct((StructVector) root.getVector("c_struct"));
    fillMap((MapVector) root.getVector("c_map"));
    root.setRowCount(4);
    return root;
  }

  /** [1, 2, 3], [], [NULL, 4], NULL. */
  private static void fillList(ListVector list) {
    Integer[][] values = {{1, 2, 3}, {}, {null, 4}};
    IntVector elements = (IntVector) list.getDataVector();
    for (int row = 0; row < values.length; row++) {
      int offset = list.startNewValue(row);
      for (int i = 0; i < values[row].length; i++) {
        if (values[row][i] == null) {
          elements.setNull(offset + i);
        } else {
          elements.setSafe(offset + i, values[row][i]);
        }
      }
      list.endValue(row, values[row].length);
    }
    list.setNull(3);
  }

  /** {a: 1, b: 'x'}, {a: NULL, b: NULL}, {a: 3, b: ''}, NULL. */
  private static void fillStruct(StructVector struct) {
    IntVector a = (IntVector) struct.getChild("a");
    VarCharVector b = (VarCharVector) struct.getChild("b");
    struct.setIndexDefined(0);
    a.setSafe(0, 1);
    b.setSafe(0, "x".getBytes(StandardCharsets.UTF_8));
    struct.setIndexDefined(1);
    a.setNull(1);
    b.setNull(1);
    struct.setIndexDefined(2);
    a.setSafe(2, 3);
    b.setSafe(2, new byte[0]);
    struct.setNull(3);
  }

  /** {a: 1, b: 2}, {}, {k: NULL}, NULL. */
  private static void fillMap(MapVector map) {
    StructVector entries = (StructVector) map.getDataVector();
    VarCharVector keys = (VarCharVector) entries.getChild("key");
    IntVector values = (IntVector) entries.getChild("value");
    String[][] keyRows = {{"a", "b"}, {}, {"k"}};
    Integer[][] valueRows = {{1, 2}, {}, {null}};
    for (int row = 0; row < keyRows.length; row++) {
      int offset = map.startNewValue(row);
      for (int i = 0; i < keyRows[row].length; i++) {
        entries.setIndexDefined(offset + i);
        keys.setSafe(offset + i, keyRows[row][i].getBytes(StandardCharsets.UTF_8));
        if (valueRows[row][i] == null) {
          values.setNull(offset + i);
        } else {
          values.setSafe(offset + i, valueRows[row][i]);
        }
      }
      map.endValue(row, keyRows[row].length);
    }
    map.setNull(3);
  }

  private static Field nullable(String name, ArrowType type) {
    return new Field(name, FieldType.nullable(type), null);
  }

  /**
   * A stream of {@code batches} batches of {@code rows} rows: {@code id} (BIGINT, counting from 0),
   * {@code name} (text), {@code amount} (DECIMAL(12, 2)) and {@code ts} (an instant). With {@code
   * nullIdInBatch} at 0 or more, that batch's last id is NULL.
   */
  static ArrowReader generated(
      BufferAllocator allocator, int batches, int rows, int nullIdInBatch) {
    return new GeneratedReader(allocator, batches, rows, nullIdInBatch);
  }

  static Schema generatedSchema() {
    return new Schema(
        List.of(
            nullable("id", new ArrowType.Int(64, true)),
            nullable("name", ArrowType.Utf8.INSTANCE),
            nullable("amount", new ArrowType.Decimal(12, 2, 128)),
            nullable("ts", new ArrowType.Timestamp(TimeUnit.MICROSECOND, "UTC"))));
  }

  private static final class GeneratedReader extends ArrowReader {
    private final int batches;
    private final int rows;
    private final int nullIdInBatch;
    private int batch;

    GeneratedReader(BufferAllocator allocator, int batches, int rows, int nullIdInBatch) {
      super(allocator);
      this.batches = batches;
      this.rows = rows;
      this.nullIdInBatch = nullIdInBatch;
    }

    @Override
    public boolean loadNextBatch() throws IOException {
      if (batch == batches) {
        return false;
      }
      VectorSchemaRoot root = getVectorSchemaRoot();
      root.allocateNew();
      BigIntVector id = (BigIntVector) root.getVector("id");
      VarCharVector name = (VarCharVector) root.getVector("name");
      DecimalVector amount = (DecimalVector) root.getVector("amount");
      TimeStampMicroTZVector ts = (TimeStampMicroTZVector) root.getVector("ts");
      for (int i = 0; i < rows; i++) {
        long n = (long) batch * rows + i;
        id.setSafe(i, n);
        name.setSafe(i, ("row " + n).getBytes(StandardCharsets.UTF_8));
        amount.setSafe(i, n * 7 % 100_000);
        ts.setSafe(i, 1_600_000_000_000_000L + n * 1_000_000);
      }
      if (batch == nullIdInBatch) {
        id.setNull(rows - 1);
      }
      root.setRowCount(rows);
      batch++;
      return true;
    }

    @Override
    public long bytesRead() {
      return 0;
    }

    @Override
    protected void closeReadSource() {}

    @Override
    protected Schema readSchema() {
      return generatedSchema();
    }
  }

  /** The names of {@link #allTypes}'s columns, in order. */
  static List<String> allTypesColumns() {
    return new ArrayList<>(DUCKDB_TYPES.keySet());
  }
}
