package io.flightsql.spark.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;

import java.math.BigInteger;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.Period;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.vector.PeriodDuration;
import org.apache.arrow.vector.TimeStampMicroTZVector;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.ValueVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.UnionVector;
import org.apache.arrow.vector.dictionary.Dictionary;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.UnionMode;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.DictionaryEncoding;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.arrow.vector.util.DictionaryUtility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The Arrow types a Flight SQL client receives for DuckDB's types, with the server's defaults and
 * with DuckDB's Arrow settings; ARROW_TYPES.md in this module has the full table.
 */
@SuppressWarnings("try") // Arrow's FlightStream and FlightSqlClient close() declare Exception
class ArrowTypesTest {

  private static final String ENUM_TYPE = "CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy')";

  /** One value of each kind of DuckDB type whose Arrow form the settings change or that is odd. */
  private static final String QUERY =
      """
      SELECT
        CAST('happy' AS mood) AS c_enum,
        true AS c_bool,
        CAST('18446744073709551615' AS UBIGINT) AS c_ubigint,
        CAST('170141183460469231731687303715884105727' AS HUGEINT) AS c_hugeint,
        CAST(123.4 AS DECIMAL(4, 1)) AS c_decimal,
        'héllo' AS c_varchar,
        '\\xAA\\xBB'::BLOB AS c_blob,
        UUID '4ac7a9e9-607c-4c8a-84f3-843f0191e3fd' AS c_uuid,
        '{"a": 1}'::JSON AS c_json,
        INTERVAL '1 month 2 days 3 hours' AS c_interval,
        CAST('2024-02-29 12:34:56.123456789' AS TIMESTAMP_NS) AS c_timestamp_ns,
        TIMESTAMPTZ '2024-02-29 12:34:56.789+02' AS c_timestamptz,
        TIMETZ '12:34:56+02' AS c_timetz,
        [1, 2, NULL] AS c_list,
        CAST([1, 2, 3] AS INTEGER[3]) AS c_array,
        MAP {'k': 1} AS c_map,
        {'a': 1, 'b': 'x'} AS c_struct,
        CAST(union_value(s := 'x') AS UNION(i INTEGER, s VARCHAR)) AS c_union,
        NULL AS c_null
      """;

  /** What FlightInfo announces for {@link #QUERY} with the server's default settings. */
  private static final Map<String, String> DEFAULT_TYPES = defaultTypes();

  private static Map<String, String> defaultTypes() {
    Map<String, String> types = new LinkedHashMap<>();
    types.put("c_enum", "Utf8 dictionary Int(8, false)");
    types.put("c_bool", "Bool");
    types.put("c_ubigint", "Int(64, false)");
    types.put("c_hugeint", "Decimal(38, 0, 128)");
    types.put("c_decimal", "Decimal(4, 1, 128)");
    types.put("c_varchar", "Utf8");
    types.put("c_blob", "Binary");
    types.put("c_uuid", "Utf8");
    types.put("c_json", "Utf8");
    types.put("c_interval", "Interval(MONTH_DAY_NANO)");
    types.put("c_timestamp_ns", "Timestamp(NANOSECOND, null)");
    types.put("c_timestamptz", "Timestamp(MICROSECOND, UTC)");
    types.put("c_timetz", "Time(MICROSECOND, 64)");
    types.put("c_list", "List<Int(32, true)>");
    types.put("c_array", "FixedSizeList(3)<Int(32, true)>");
    types.put("c_map", "Map(false)<Struct<Utf8, Int(32, true)>>");
    types.put("c_struct", "Struct<Int(32, true), Utf8>");
    types.put("c_union", "Union(Sparse, [0, 1])<Int(32, true), Utf8>");
    types.put("c_null", "Int(32, true)");
    return types;
  }

  static Stream<Arguments> settingsAndTheTypesTheyChange() {
    return Stream.of(
        Arguments.of("defaults", List.of(), Map.of()),
        Arguments.of(
            "large buffers",
            List.of("arrow_large_buffer_size=true"),
            Map.of(
                "c_varchar", "LargeUtf8",
                "c_blob", "LargeBinary",
                "c_uuid", "LargeUtf8",
                "c_json", "LargeUtf8",
                "c_list", "LargeList<Int(32, true)>",
                "c_map", "Map(false)<Struct<LargeUtf8, Int(32, true)>>",
                "c_struct", "Struct<Int(32, true), LargeUtf8>",
                "c_union", "Union(Sparse, [0, 1])<Int(32, true), LargeUtf8>")),
        // DuckDB ignores the view settings below Arrow format 1.4, its default being 1.0.
        Arguments.of(
            "string view without format 1.4",
            List.of("produce_arrow_string_view=true", "arrow_output_list_view=true"),
            Map.of()),
        Arguments.of(
            "string view",
            List.of("arrow_output_version=1.4", "produce_arrow_string_view=true"),
            Map.of(
                "c_varchar", "Utf8View",
                "c_blob", "BinaryView",
                "c_json", "Utf8View",
                "c_map", "Map(false)<Struct<Utf8View, Int(32, true)>>",
                "c_struct", "Struct<Int(32, true), Utf8View>",
                "c_union", "Union(Sparse, [0, 1])<Int(32, true), Utf8View>")),
        // Format 1.4 alone already turns BLOB into binary_view.
        Arguments.of(
            "list view",
            List.of("arrow_output_version=1.4", "arrow_output_list_view=true"),
            Map.of("c_blob", "BinaryView", "c_list", "ListView<Int(32, true)>")),
        Arguments.of(
            "lossless",
            List.of("arrow_lossless_conversion=true"),
            Map.of(
                "c_bool", "Int(8, true) extension arrow.bool8",
                "c_hugeint", "FixedSizeBinary(16) extension arrow.opaque",
                "c_uuid", "FixedSizeBinary(16) extension arrow.uuid",
                "c_json", "Utf8 extension arrow.json",
                "c_timetz", "FixedSizeBinary(8) extension arrow.opaque")),
        Arguments.of(
            "all of them",
            List.of(
                "arrow_output_version=1.4",
                "produce_arrow_string_view=true",
                "arrow_large_buffer_size=true",
                "arrow_lossless_conversion=true",
                "arrow_output_list_view=true"),
            Map.ofEntries(
                entry("c_bool", "Int(8, true) extension arrow.bool8"),
                entry("c_hugeint", "FixedSizeBinary(16) extension arrow.opaque"),
                entry("c_varchar", "Utf8View"),
                entry("c_blob", "BinaryView"),
                entry("c_uuid", "FixedSizeBinary(16) extension arrow.uuid"),
                entry("c_json", "Utf8View extension arrow.json"),
                entry("c_timetz", "FixedSizeBinary(8) extension arrow.opaque"),
                entry("c_list", "LargeListView<Int(32, true)>"),
                entry("c_map", "Map(false)<Struct<Utf8View, Int(32, true)>>"),
                entry("c_struct", "Struct<Int(32, true), Utf8View>"),
                entry("c_union", "Union(Sparse, [0, 1])<Int(32, true), Utf8View>"))));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("settingsAndTheTypesTheyChange")
  void clientsReceiveTheseArrowTypes(
      String name, List<String> settings, Map<String, String> changed) throws Exception {
    Map<String, String> expected = new LinkedHashMap<>(DEFAULT_TYPES);
    expected.putAll(changed);
    DuckDbFlightSqlServerBuilder builder =
        DuckDbFlightSqlServer.builder().lineitemRows(0).endpoints(1);
    for (String setting : settings) {
      DuckDbSetting parsed = DuckDbSetting.parse(setting);
      builder.setting(parsed.name(), parsed.value());
    }
    try (DuckDbFlightSqlServer server = builder.start();
        TestClient client = new TestClient(server)) {
      server.execute(ENUM_TYPE);
      FlightInfo info = client.sql.execute(QUERY);
      Schema announced = TestClient.schema(info);

      assertThat(describe(announced)).containsExactlyEntriesOf(expected);
      assertThat(client.sql.getExecuteSchema(QUERY).getSchema()).isEqualTo(announced);
      try (FlightStream stream = client.sql.getStream(info.getEndpoints().get(0).getTicket())) {
        // The stream's schema message, before Flight's reader turns encoded columns into index
        // vectors, is what FlightInfo announced.
        assertThat(messageSchema(stream)).isEqualTo(announced);
        assertThat(stream.next()).isTrue();
        List<String> row = TestClient.rows(stream.getRoot(), stream.getDictionaryProvider()).get(0);
        Map<String, String> values = new LinkedHashMap<>();
        for (int i = 0; i < announced.getFields().size(); i++) {
          values.put(announced.getFields().get(i).getName(), row.get(i));
        }
        assertThat(values)
            .contains(
                entry("c_enum", "happy"),
                entry("c_varchar", "héllo"),
                entry("c_list", "[1,2,null]"),
                entry("c_null", null));
        assertThat(stream.next()).isFalse();
      }
    }
  }

  @Test
  void valuesOfTheTypesWithoutASparkTwinArriveIntact() throws Exception {
    try (DuckDbFlightSqlServer server =
            DuckDbFlightSqlServer.builder().lineitemRows(0).endpoints(1).start();
        TestClient client = new TestClient(server)) {
      server.execute(ENUM_TYPE);
      FlightInfo info = client.sql.execute(QUERY);
      try (FlightStream stream = client.sql.getStream(info.getEndpoints().get(0).getTicket())) {
        assertThat(stream.next()).isTrue();
        VectorSchemaRoot root = stream.getRoot();

        Field mood = root.getVector("c_enum").getField();
        Dictionary moods = stream.getDictionaryProvider().lookup(mood.getDictionary().getId());
        assertThat(strings(moods.getVector())).containsExactly("sad", "ok", "happy");
        assertThat(root.getVector("c_enum").getObject(0)).isEqualTo((byte) 2);
        assertThat(((UInt8Vector) root.getVector("c_ubigint")).getObjectNoOverflow(0))
            .isEqualTo(new BigInteger("18446744073709551615"));
        assertThat(root.getVector("c_interval").getObject(0))
            .isEqualTo(new PeriodDuration(Period.of(0, 1, 2), Duration.ofHours(3)));
        assertThat(root.getVector("c_timestamp_ns").getObject(0))
            .isEqualTo(LocalDateTime.parse("2024-02-29T12:34:56.123456789"));
        TimeStampMicroTZVector instant = (TimeStampMicroTZVector) root.getVector("c_timestamptz");
        assertThat(instant.getTimeZone()).isEqualTo("UTC");
        assertThat(instant.get(0))
            .isEqualTo(
                ChronoUnit.MICROS.between(
                    Instant.EPOCH, Instant.parse("2024-02-29T10:34:56.789Z")));
        // TIMETZ loses its offset: the local time of day as written, not normalised to UTC.
        assertThat(root.getVector("c_timetz").getObject(0))
            .isEqualTo(Duration.ofHours(12).plusMinutes(34).plusSeconds(56).toNanos() / 1000);
        // A sparse union whose type ids are the member positions. (The vector's own getField()
        // reports Arrow Java's minor type ordinals as type ids instead, [4, 24] here.)
        assertThat(stream.getSchema().findField("c_union").getType())
            .isEqualTo(new ArrowType.Union(UnionMode.Sparse, new int[] {0, 1}));
        UnionVector union = (UnionVector) root.getVector("c_union");
        assertThat(union.getTypeValue(0)).isEqualTo(1);
        assertThat(union.getObject(0).toString()).isEqualTo("x");
        assertThat(root.getVector("c_null").isNull(0)).isTrue();
      }
    }
  }

  @Test
  void timestampWithTimeZoneCarriesTheServersTimeZoneSetting() throws Exception {
    try (DuckDbFlightSqlServer server =
            DuckDbFlightSqlServer.builder()
                .lineitemRows(0)
                .setting("TimeZone", "America/New_York")
                .start();
        TestClient client = new TestClient(server)) {
      FlightInfo info = client.sql.execute("SELECT TIMESTAMPTZ '2024-02-29 12:00:00+00' AS t");

      assertThat(TestClient.schema(info).getFields().get(0).getType())
          .isEqualTo(new ArrowType.Timestamp(TimeUnit.MICROSECOND, "America/New_York"));
    }
  }

  /**
   * A field as {@code Type}, {@code Type dictionary IndexType} or {@code Type extension name}, with
   * the children's descriptions in angle brackets.
   */
  static Map<String, String> describe(Schema schema) {
    Map<String, String> types = new LinkedHashMap<>();
    for (Field field : schema.getFields()) {
      types.put(field.getName(), describe(field));
    }
    return types;
  }

  private static String describe(Field field) {
    StringBuilder text = new StringBuilder(field.getType().toString());
    DictionaryEncoding dictionary = field.getDictionary();
    if (dictionary != null) {
      text.append(" dictionary ").append(dictionary.getIndexType());
    }
    String extension = field.getMetadata().get(ArrowType.ExtensionType.EXTENSION_METADATA_KEY_NAME);
    if (extension != null) {
      text.append(" extension ").append(extension);
    }
    if (!field.getChildren().isEmpty()) {
      text.append(
          field.getChildren().stream()
              .map(ArrowTypesTest::describe)
              .collect(Collectors.joining(", ", "<", ">")));
    }
    return text.toString();
  }

  /** The values of a dictionary or other vector, as text. */
  static List<String> strings(ValueVector vector) {
    List<String> values = new ArrayList<>();
    for (int i = 0; i < vector.getValueCount(); i++) {
      values.add(TestClient.value(vector, i));
    }
    return values;
  }

  /** The stream's schema in IPC message form, dictionary-encoded columns with their value type. */
  static Schema messageSchema(FlightStream stream) {
    return new Schema(
        stream.getSchema().getFields().stream()
            .map(
                field ->
                    DictionaryUtility.toMessageFormat(
                        field, stream.getDictionaryProvider(), new HashSet<>()))
            .toList(),
        stream.getSchema().getCustomMetadata());
  }
}
