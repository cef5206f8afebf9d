package io.flightsql.spark.types;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.flightsql.spark.testing.ArrowLeakCheckExtension;
import io.flightsql.spark.testing.HandBuiltDatasets;
import io.flightsql.spark.testing.HandBuiltDatasets.Sample;
import io.flightsql.spark.testing.HandBuiltFlightSqlServer;
import io.flightsql.spark.testing.SparkSessionExtension;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.Period;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Stream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.PeriodDuration;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.BinaryType;
import org.apache.spark.sql.types.CalendarIntervalType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.DayTimeIntervalType;
import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.sql.types.MapType;
import org.apache.spark.sql.types.StringType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.types.YearMonthIntervalType;
import org.apache.spark.unsafe.types.CalendarInterval;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import scala.jdk.javaapi.CollectionConverters;

/**
 * The types DuckDB cannot produce, read end to end: a real Flight SQL server (at the gRPC level)
 * streams hand-built Arrow batches, and Spark's collected rows must be exactly what the Arrow data
 * means, in a session in UTC and in America/Los_Angeles alike.
 */
@ExtendWith(ArrowLeakCheckExtension.class)
class HandBuiltStreamsReadTest {
  private static final String[] ZONES = {"UTC", "America/Los_Angeles"};

  @RegisterExtension static final SparkSessionExtension spark = SparkSessionExtension.local();

  private static BufferAllocator allocator;
  private static HandBuiltFlightSqlServer server;
  private static List<Sample> samples;

  @BeforeAll
  static void start() {
    allocator = new RootAllocator(Long.MAX_VALUE);
    server = HandBuiltFlightSqlServer.start();
    samples = HandBuiltDatasets.registerAll(server, allocator);
  }

  @AfterAll
  static void stop() {
    if (server != null) {
      server.close();
    }
    if (allocator != null) {
      allocator.close();
    }
  }

  @AfterEach
  void restoreSession() {
    spark.session().conf().set("spark.sql.session.timeZone", "UTC");
    spark.session().conf().unset("spark.sql.timeType.enabled");
  }

  private static Sample sample(String name) {
    return samples.stream()
        .filter(s -> s.name().equals(name))
        .findFirst()
        .orElseThrow(() -> new IllegalArgumentException("No sample " + name));
  }

  static Stream<Arguments> readableSamples() {
    List<Arguments> cases = new ArrayList<>();
    for (String zone : ZONES) {
      for (String name :
          List.of(
              "float16",
              "date64",
              "fixed_size_list",
              "list_view",
              "large_list",
              "large_utf8",
              "large_binary",
              "utf8_view",
              "binary_view",
              "fixed_size_binary",
              "decimal256_38_4",
              "unsigned_ints",
              "null_type",
              "times",
              "durations",
              "intervals",
              "timestamps",
              "dictionary_replaced",
              "dictionary_int32",
              "dense_union_int32_null",
              "sparse_union_int32_null",
              "nested_struct",
              "map_utf8_int32",
              "list_of_struct",
              "uuid_extension")) {
        cases.add(Arguments.of(name, zone));
      }
    }
    return cases.stream();
  }

  private static Dataset<Row> read(String query, String... options) {
    var reader =
        spark
            .session()
            .read()
            .format("flightsql")
            .option("uri", server.uri())
            .option("query", query);
    for (int i = 0; i < options.length; i += 2) {
      reader = reader.option(options[i], options[i + 1]);
    }
    return reader.load();
  }

  private static void assertReadsAsExpected(Sample sample, String... options) {
    Dataset<Row> df = read(sample.name(), options);
    StructType schema = df.schema();
    List<Row> rows = df.collectAsList();
    List<List<Object>> actual = new ArrayList<>();
    for (Row row : rows) {
      List<Object> values = new ArrayList<>();
      for (int i = 0; i < schema.size(); i++) {
        values.add(fromSpark(schema.fields()[i].dataType(), row.get(i)));
      }
      actual.add(values);
    }
    List<List<Object>> expected = new ArrayList<>();
    for (List<Object> row : sample.rows()) {
      List<Object> values = new ArrayList<>();
      for (int i = 0; i < schema.size(); i++) {
        values.add(expected(schema.fields()[i].dataType(), row.get(i)));
      }
      expected.add(values);
    }
    assertThat(actual).as("%s: %s", sample.name(), sample.notes()).isEqualTo(expected);
  }

  @ParameterizedTest(name = "{0} in {1}")
  @MethodSource("readableSamples")
  void everySampleReadsAsWhatItsArrowDataMeans(String name, String zone) {
    spark.session().conf().set("spark.sql.session.timeZone", zone);
    assertReadsAsExpected(sample(name));
  }

  @Test
  void timesReadAsSparksTimeTypeWhereTheSessionEnablesIt() {
    spark.session().conf().set("spark.sql.timeType.enabled", "true");
    Dataset<Row> df = read("times");
    assertThat(df.schema().fields()[1].dataType().sql()).isEqualTo("TIME(0)");
    assertThat(df.schema().fields()[4].dataType().sql()).isEqualTo("TIME(6)");
    assertReadsAsExpected(sample("times"));
  }

  @Test
  void wideDecimalsFailAtPlanningUnlessDecimalOverflowSaysOtherwise() {
    assertThatThrownBy(() -> read("decimal256_76_10"))
        .isInstanceOf(UnsupportedArrowTypeException.class)
        .hasMessageContaining("has Arrow type Decimal(76, 10, 256)")
        .hasMessageContaining("Set option 'decimalOverflow' to 'string'");
    Dataset<Row> text = read("decimal256_76_10", "decimalOverflow", "string");
    assertThat(text.schema().fields()[1].dataType()).isEqualTo(DataTypes.StringType);
    assertReadsAsExpected(sample("decimal256_76_10"), "decimalOverflow", "string");
    // With 'null', values beyond DECIMAL(38, 10) read as NULL; the expected conversion below
    // turns such values into null.
    assertReadsAsExpected(sample("decimal256_76_10"), "decimalOverflow", "NULL");
  }

  @Test
  void nanosecondsFailTheTaskWhenAskedToNamingColumnAndOption() {
    assertThatThrownBy(() -> read("timestamps", "nanoseconds", "error").collectAsList())
        .hasStackTraceContaining("ArrowValueException")
        .hasStackTraceContaining("which has nanoseconds that Spark's microseconds cannot hold")
        .hasStackTraceContaining("option 'nanoseconds' is 'error'");
    assertThatThrownBy(() -> read("timestamps", "nanoseconds", "sometimes"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "Invalid value 'sometimes' for option 'nanoseconds': expected `truncate` or `error`");
  }

  @Test
  void unionOfDifferentTypesFailsAtPlanningNamingTheColumn() {
    assertThatThrownBy(() -> read("dense_union_int32_utf8"))
        .isInstanceOf(UnsupportedArrowTypeException.class)
        .hasMessageStartingWith("Column 'u' has Arrow type Union(Dense, [0, 1])")
        .hasMessageContaining("its members have different types (int and string)");
  }

  @Test
  void unionOfDifferentTypesReadsAsTextWithMixedUnionsString() {
    Sample sample = sample("dense_union_int32_utf8");
    Dataset<Row> df = read(sample.name(), "mixedUnions", "string");
    assertThat(df.schema().fields()[1].dataType()).isEqualTo(DataTypes.StringType);
    List<List<Object>> expected = new ArrayList<>();
    for (List<Object> row : sample.rows()) {
      Object value = row.get(1);
      expected.add(
          java.util.Arrays.asList(
              ((Number) row.get(0)).intValue(), value == null ? null : String.valueOf(value)));
    }
    List<List<Object>> actual = new ArrayList<>();
    for (Row row : df.collectAsList()) {
      actual.add(java.util.Arrays.asList(row.get(0), row.get(1)));
    }
    assertThat(actual).isEqualTo(expected);
  }

  @Test
  void dictionaryDeltasThatArrowJavaCannotFollowFailInsteadOfReadingWrongValues() {
    // Arrow Java's FlightStream applies a delta as a replacement, so indices into the appended
    // part point past the dictionary it keeps.
    assertThatThrownBy(() -> read("dictionary_delta").collectAsList())
        .hasStackTraceContaining("beyond the dictionary")
        .hasStackTraceContaining("dictionary delta");
  }

  // ---------------------------------------------------------------------------------------------
  // Both sides in one form: what Spark returned, and what the Arrow data means as the Spark type.

  private static Instant toMicros(Instant i) {
    return Instant.ofEpochSecond(i.getEpochSecond(), i.getNano() / 1000 * 1000);
  }

  private static Duration toMicros(Duration d) {
    return Duration.ofSeconds(d.getSeconds(), d.getNano() / 1000 * 1000);
  }

  private static Object fromSpark(DataType type, Object value) {
    if (value == null) {
      return null;
    }
    if (value instanceof Byte || value instanceof Short || value instanceof Integer) {
      return ((Number) value).longValue();
    }
    if (value instanceof BigDecimal) {
      return ((BigDecimal) value).stripTrailingZeros().toPlainString();
    }
    if (value instanceof byte[]) {
      return "0x" + HexFormat.of().formatHex((byte[]) value);
    }
    if (value instanceof Period) {
      return "months:" + ((Period) value).toTotalMonths();
    }
    if (type instanceof ArrayType) {
      List<Object> out = new ArrayList<>();
      for (Object element : CollectionConverters.asJava((scala.collection.Seq<?>) value)) {
        out.add(fromSpark(((ArrayType) type).elementType(), element));
      }
      return out;
    }
    if (type instanceof MapType) {
      Map<Object, Object> out = new LinkedHashMap<>();
      CollectionConverters.asJava((scala.collection.Map<?, ?>) value)
          .forEach(
              (k, v) ->
                  out.put(
                      fromSpark(((MapType) type).keyType(), k),
                      fromSpark(((MapType) type).valueType(), v)));
      return out;
    }
    if (type instanceof StructType) {
      Row row = (Row) value;
      Map<Object, Object> out = new LinkedHashMap<>();
      StructField[] fields = ((StructType) type).fields();
      for (int i = 0; i < fields.length; i++) {
        out.put(fields[i].name(), fromSpark(fields[i].dataType(), row.get(i)));
      }
      return out;
    }
    return value;
  }

  private static Object expected(DataType type, Object value) {
    if (value == null) {
      return null;
    }
    if (type instanceof DecimalType) {
      BigDecimal decimal =
          value instanceof BigDecimal ? (BigDecimal) value : new BigDecimal(value.toString());
      DecimalType d = (DecimalType) type;
      if (decimal.setScale(d.scale(), java.math.RoundingMode.UNNECESSARY).precision()
          > d.precision()) {
        return null;
      }
      return decimal.stripTrailingZeros().toPlainString();
    }
    if (type instanceof StringType && value instanceof BigDecimal) {
      // decimalOverflow=string: the exact text, with the type's scale.
      return ((BigDecimal) value).toPlainString();
    }
    if (value instanceof Long || value instanceof BigInteger) {
      return ((Number) value).longValue();
    }
    if (type instanceof BinaryType && value instanceof UUID) {
      UUID uuid = (UUID) value;
      ByteBuffer bytes = ByteBuffer.allocate(16);
      bytes.putLong(uuid.getMostSignificantBits()).putLong(uuid.getLeastSignificantBits());
      return "0x" + HexFormat.of().formatHex(bytes.array());
    }
    if (value instanceof Instant) {
      return toMicros((Instant) value);
    }
    if (value instanceof LocalDateTime) {
      LocalDateTime t = (LocalDateTime) value;
      return t.withNano(t.getNano() / 1000 * 1000);
    }
    if (value instanceof LocalTime) {
      LocalTime t = (LocalTime) value;
      if (type == DataTypes.LongType) {
        return t.toNanoOfDay() / 1000;
      }
      return t.withNano(t.getNano() / 1000 * 1000);
    }
    if (value instanceof Duration) {
      return toMicros((Duration) value);
    }
    if (value instanceof Period) {
      return "months:" + ((Period) value).toTotalMonths();
    }
    if (value instanceof PeriodDuration) {
      PeriodDuration pd = (PeriodDuration) value;
      if (type instanceof DayTimeIntervalType) {
        return toMicros(Duration.ofDays(pd.getPeriod().getDays()).plus(pd.getDuration()));
      }
      if (type instanceof CalendarIntervalType) {
        long nanos = pd.getDuration().toNanos();
        return new CalendarInterval(
            (int) pd.getPeriod().toTotalMonths(),
            pd.getPeriod().getDays(),
            Math.floorDiv(nanos, 1000L));
      }
      if (type instanceof YearMonthIntervalType) {
        return "months:" + pd.getPeriod().toTotalMonths();
      }
    }
    if (type instanceof ArrayType) {
      List<Object> out = new ArrayList<>();
      for (Object element : (List<?>) value) {
        out.add(expected(((ArrayType) type).elementType(), element));
      }
      return out;
    }
    if (type instanceof MapType) {
      Map<Object, Object> out = new LinkedHashMap<>();
      ((Map<?, ?>) value)
          .forEach(
              (k, v) ->
                  out.put(
                      expected(((MapType) type).keyType(), k),
                      expected(((MapType) type).valueType(), v)));
      return out;
    }
    if (type instanceof StructType) {
      Map<Object, Object> out = new LinkedHashMap<>();
      for (StructField field : ((StructType) type).fields()) {
        out.put(field.name(), expected(field.dataType(), ((Map<?, ?>) value).get(field.name())));
      }
      return out;
    }
    return value;
  }
}
