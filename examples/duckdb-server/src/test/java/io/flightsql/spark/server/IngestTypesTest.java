package io.flightsql.spark.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.Period;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.flight.FlightEndpoint;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.flight.sql.FlightSqlClient;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandStatementIngest.TableDefinitionOptions.TableExistsOption;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandStatementIngest.TableDefinitionOptions.TableNotExistOption;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.DateMilliVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.FixedSizeBinaryVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.LargeVarBinaryVector;
import org.apache.arrow.vector.LargeVarCharVector;
import org.apache.arrow.vector.PeriodDuration;
import org.apache.arrow.vector.TimeNanoVector;
import org.apache.arrow.vector.TimeStampNanoVector;
import org.apache.arrow.vector.UInt1Vector;
import org.apache.arrow.vector.UInt2Vector;
import org.apache.arrow.vector.UInt4Vector;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ViewVarBinaryVector;
import org.apache.arrow.vector.ViewVarCharVector;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.complex.LargeListVector;
import org.apache.arrow.vector.complex.ListViewVector;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.IntervalUnit;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.DictionaryEncoding;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Every Arrow type the connector writes, through bulk ingestion and through a prepared INSERT (the
 * bulk path and the row-by-row path): the DuckDB column types created, and the values read back.
 */
@SuppressWarnings("try") // Arrow's FlightStream close() declares Exception
class IngestTypesTest {

  private static DuckDbFlightSqlServer server;
  private static TestClient client;

  @BeforeAll
  static void start() throws Exception {
    server = DuckDbFlightSqlServer.builder().lineitemRows(0).start();
    client = new TestClient(server);
    // A table macro with the column types that ingestion creates, for the prepared inserts.
    List<String> columns = new ArrayList<>();
    for (Map.Entry<String, String> column : WriteData.DUCKDB_TYPES.entrySet()) {
      columns.add("NULL::" + column.getValue() + " AS " + column.getKey());
    }
    server.execute(
        "CREATE MACRO all_types_template() AS TABLE SELECT "
            + String.join(", ", columns)
            + " WHERE false");
  }

  @AfterAll
  static void stop() throws Exception {
    client.close();
    server.close();
  }

  @Test
  void typeTable() {
    Schema schema = WriteData.allTypesSchema();
    List<String> types = new ArrayList<>();
    for (Field field : schema.getFields()) {
      types.add(IngestTypes.duckDbType(field, ""));
    }
    assertThat(types)
        .containsExactly(
            "INTEGER",
            "BOOLEAN",
            "TINYINT",
            "SMALLINT",
            "INTEGER",
            "BIGINT",
            "FLOAT",
            "DOUBLE",
            "DECIMAL(10, 2)",
            "DECIMAL(38, 10)",
            "VARCHAR",
            "BLOB",
            "DATE",
            "TIMESTAMP",
            "TIMESTAMPTZ",
            "TIME",
            "TIME",
            "TIME",
            "INTERVAL",
            "INTERVAL",
            "INTERVAL",
            "INTEGER",
            "INTEGER[]",
            "STRUCT(\"a\" INTEGER, \"b\" VARCHAR)",
            "MAP(VARCHAR, INTEGER)");
    assertThat(IngestTypes.columnDefinitions(schema)).startsWith("\"id\" INTEGER NOT NULL, ");
    assertThat(
            IngestTypes.duckDbType(
                Field.nullable("n", new ArrowType.Timestamp(TimeUnit.NANOSECOND, null)), ""))
        .isEqualTo("TIMESTAMP_NS");
    assertThat(IngestTypes.duckDbType(Field.nullable("u", new ArrowType.Int(16, false)), ""))
        .isEqualTo("USMALLINT");
    assertThat(
            IngestTypes.duckDbType(
                new Field(
                    "f",
                    FieldType.nullable(new ArrowType.FixedSizeList(3)),
                    List.of(Field.nullable("x", ArrowType.Utf8.INSTANCE))),
                ""))
        .isEqualTo("VARCHAR[3]");
  }

  @Test
  void typesDuckDbCannotHoldAreRefusedNamingTheColumn() {
    Field wide = Field.nullable("big", new ArrowType.Decimal(76, 0, 256));
    assertThatThrownBy(() -> IngestTypes.duckDbType(wide, ""))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("Column 'big' of Arrow type Decimal(76, 0, 256) does not fit");
    Field nested =
        new Field(
            "s",
            FieldType.nullable(ArrowType.Struct.INSTANCE),
            List.of(
                new Field(
                    "codes",
                    new FieldType(
                        true,
                        new ArrowType.Int(32, true),
                        new DictionaryEncoding(1, false, new ArrowType.Int(32, true))),
                    null)));
    assertThatThrownBy(() -> IngestTypes.duckDbType(nested, ""))
        .hasMessageStartingWith(
            "Column 's.codes' of Arrow type Int(32, true) is dictionary-encoded");
    Field half = Field.nullable("h", new ArrowType.FloatingPoint(FloatingPointPrecision.HALF));
    assertThatThrownBy(() -> IngestTypes.duckDbType(half, ""))
        .hasMessageContaining("is a half float, which DuckDB cannot read");
    assertThatThrownBy(() -> IngestTypes.columnDefinitions(new Schema(List.of())))
        .hasMessageContaining("no columns");
  }

  @Test
  void everyTypeRoundTripsThroughBulkIngestion() throws Exception {
    try (VectorSchemaRoot data = WriteData.allTypes(client.allocator)) {
      long rows =
          client.sql.executeIngest(
              data,
              BulkIngestTest.options(
                  "all_types",
                  TableNotExistOption.TABLE_NOT_EXIST_OPTION_CREATE,
                  TableExistsOption.TABLE_EXISTS_OPTION_FAIL));
      assertThat(rows).isEqualTo(4);
      assertThat(duckDbTypes("all_types")).isEqualTo(WriteData.DUCKDB_TYPES);
      assertReadsBack("all_types", data);
    }
  }

  /** Arrow types beyond those the connector sends, and their DuckDB columns and values. */
  @Test
  void otherArrowTypesIngestToo() throws Exception {
    Schema schema =
        new Schema(
            List.of(
                Field.nullable("u8", new ArrowType.Int(8, false)),
                Field.nullable("u16", new ArrowType.Int(16, false)),
                Field.nullable("u32", new ArrowType.Int(32, false)),
                Field.nullable("u64", new ArrowType.Int(64, false)),
                Field.nullable("large_text", ArrowType.LargeUtf8.INSTANCE),
                Field.nullable("view_text", ArrowType.Utf8View.INSTANCE),
                Field.nullable("large_bytes", ArrowType.LargeBinary.INSTANCE),
                Field.nullable("view_bytes", ArrowType.BinaryView.INSTANCE),
                Field.nullable("fixed_bytes", new ArrowType.FixedSizeBinary(3)),
                Field.nullable("date_ms", new ArrowType.Date(DateUnit.MILLISECOND)),
                Field.nullable("ts_ns", new ArrowType.Timestamp(TimeUnit.NANOSECOND, null)),
                Field.nullable("time_ns", new ArrowType.Time(TimeUnit.NANOSECOND, 64)),
                new Field(
                    "large_list",
                    FieldType.nullable(ArrowType.LargeList.INSTANCE),
                    List.of(Field.nullable("item", ArrowType.Utf8.INSTANCE))),
                new Field(
                    "fixed_list",
                    FieldType.nullable(new ArrowType.FixedSizeList(3)),
                    List.of(Field.nullable("item", new ArrowType.Int(32, true)))),
                new Field(
                    "list_view",
                    FieldType.nullable(ArrowType.ListView.INSTANCE),
                    List.of(Field.nullable("item", new ArrowType.Int(64, true))))));
    try (VectorSchemaRoot root = VectorSchemaRoot.create(schema, client.allocator)) {
      root.allocateNew();
      ((UInt1Vector) root.getVector("u8")).setSafe(0, 255);
      ((UInt2Vector) root.getVector("u16")).setSafe(0, 65_535);
      ((UInt4Vector) root.getVector("u32")).setSafe(0, -1);
      ((UInt8Vector) root.getVector("u64")).setSafe(0, -1L);
      ((LargeVarCharVector) root.getVector("large_text")).setSafe(0, bytes("large"));
      ((ViewVarCharVector) root.getVector("view_text")).setSafe(0, bytes("a view of a string"));
      ((LargeVarBinaryVector) root.getVector("large_bytes")).setSafe(0, new byte[] {1, 2});
      ((ViewVarBinaryVector) root.getVector("view_bytes")).setSafe(0, new byte[] {3});
      ((FixedSizeBinaryVector) root.getVector("fixed_bytes")).setSafe(0, new byte[] {4, 5, 6});
      ((DateMilliVector) root.getVector("date_ms"))
          .setSafe(0, LocalDate.of(2024, 2, 29).toEpochDay() * 86_400_000L);
      ((TimeStampNanoVector) root.getVector("ts_ns")).setSafe(0, 1);
      ((TimeNanoVector) root.getVector("time_ns")).setSafe(0, 3_723_456_789_123L);
      LargeListVector largeList = (LargeListVector) root.getVector("large_list");
      VarCharVector items = (VarCharVector) largeList.getDataVector();
      long start = largeList.startNewValue(0);
      items.setSafe((int) start, bytes("a"));
      items.setSafe((int) start + 1, bytes("b"));
      largeList.endValue(0, 2);
      FixedSizeListVector fixedList = (FixedSizeListVector) root.getVector("fixed_list");
      IntVector numbers = (IntVector) fixedList.getDataVector();
      fixedList.setNotNull(0);
      numbers.setSafe(0, 1);
      numbers.setNull(1);
      numbers.setSafe(2, 3);
      ListViewVector listView = (ListViewVector) root.getVector("list_view");
      BigIntVector longs = (BigIntVector) listView.getDataVector();
      int first = listView.startNewValue(0);
      longs.setSafe(first, 7);
      longs.setSafe(first + 1, 8);
      listView.endValue(0, 2);
      root.setRowCount(1);
      client.sql.executeIngest(
          root,
          BulkIngestTest.options(
              "other_types",
              TableNotExistOption.TABLE_NOT_EXIST_OPTION_CREATE,
              TableExistsOption.TABLE_EXISTS_OPTION_FAIL));
    }
    assertThat(duckDbTypes("other_types").values())
        .containsExactly(
            "UTINYINT",
            "USMALLINT",
            "UINTEGER",
            "UBIGINT",
            "VARCHAR",
            "VARCHAR",
            "BLOB",
            "BLOB",
            "BLOB",
            "DATE",
            "TIMESTAMP_NS",
            "TIME",
            "VARCHAR[]",
            "INTEGER[3]",
            "BIGINT[]");
    assertThat(
            TestClient.jdbcRows(
                server,
                "SELECT u8, u16, u32, u64, large_text, view_text, hex(large_bytes),"
                    + " hex(view_bytes), hex(fixed_bytes), date_ms, ts_ns::VARCHAR,"
                    + " time_ns::VARCHAR, large_list::VARCHAR, fixed_list::VARCHAR,"
                    + " list_view::VARCHAR"
                    + " FROM other_types"))
        .containsExactly(
            List.of(
                "255",
                "65535",
                "4294967295",
                "18446744073709551615",
                "large",
                "a view of a string",
                "0102",
                "03",
                "040506",
                "2024-02-29",
                "1970-01-01 00:00:00.000000001",
                "01:02:03.456789",
                "[a, b]",
                "[1, NULL, 3]",
                "[7, 8]"));
  }

  private static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  /** A plain INSERT ... VALUES (?, ...) runs as one INSERT ... SELECT over the upload. */
  @Test
  void everyTypeRoundTripsThroughAPreparedInsert() throws Exception {
    server.execute("CREATE TABLE all_types_bulk AS SELECT * FROM all_types_template()");
    assertPreparedInsertRoundTrips(
        "INSERT INTO all_types_bulk VALUES (" + markers() + ")", "all_types_bulk");
  }

  /** Any other INSERT runs once per row, DuckDB binding each row's values. */
  @Test
  void everyTypeRoundTripsThroughAPreparedInsertRunRowByRow() throws Exception {
    server.execute("CREATE TABLE all_types_rows AS SELECT * FROM all_types_template()");
    assertPreparedInsertRoundTrips(
        "/* not plain */ INSERT INTO all_types_rows VALUES (" + markers() + ")", "all_types_rows");
  }

  private static String markers() {
    return String.join(", ", Collections.nCopies(WriteData.DUCKDB_TYPES.size(), "?"));
  }

  private static void assertPreparedInsertRoundTrips(String sql, String table) throws Exception {
    try (FlightSqlClient.PreparedStatement insert = client.sql.prepare(sql)) {
      Schema parameters = insert.getParameterSchema();
      assertThat(parameters.getFields()).hasSize(WriteData.DUCKDB_TYPES.size());
      // The parameter types are the columns' types, as DuckDB exports them.
      assertThat(parameters.getFields().get(8).getType())
          .isEqualTo(new ArrowType.Decimal(10, 2, 128));
      VectorSchemaRoot data = WriteData.allTypes(client.allocator);
      // The client closes the parameters when it closes the statement.
      insert.setParameters(data);
      assertThat(insert.executeUpdate()).isEqualTo(4);
      assertThat(duckDbTypes(table).keySet()).isEqualTo(WriteData.DUCKDB_TYPES.keySet());
      assertReadsBack(table, data);
    }
  }

  private static Map<String, String> duckDbTypes(String table) throws Exception {
    Map<String, String> types = new LinkedHashMap<>();
    for (List<String> row :
        TestClient.jdbcRows(
            server,
            "SELECT column_name, data_type FROM duckdb_columns() WHERE table_name = '"
                + table
                + "' ORDER BY column_index")) {
      types.put(row.get(0), row.get(1));
    }
    return types;
  }

  /**
   * The table's rows, read through Flight, against the uploaded ones: equal where DuckDB keeps the
   * Arrow type, and as DuckDB converts them where it does not (times come back in microseconds,
   * durations and year-month intervals as month-day-nano intervals, the null type as INTEGER).
   */
  private static void assertReadsBack(String table, VectorSchemaRoot sent) throws Exception {
    FlightInfo info = client.sql.execute("SELECT * FROM " + table + " ORDER BY id");
    List<Map<String, Object>> read = new ArrayList<>();
    for (FlightEndpoint endpoint : info.getEndpoints()) {
      try (FlightStream stream = client.sql.getStream(endpoint.getTicket())) {
        while (stream.next()) {
          VectorSchemaRoot root = stream.getRoot();
          for (int row = 0; row < root.getRowCount(); row++) {
            Map<String, Object> values = new LinkedHashMap<>();
            for (FieldVector vector : root.getFieldVectors()) {
              values.put(vector.getName(), TestClient.value(vector, row));
            }
            read.add(values);
          }
        }
      }
    }
    assertThat(read).hasSize(4);
    for (FieldVector expected : sent.getFieldVectors()) {
      for (int row = 0; row < 4; row++) {
        assertThat(read.get(row).get(expected.getName()))
            .as("%s row %d", expected.getName(), row)
            .isEqualTo(expectedValue(expected, row));
      }
    }
  }

  private static Object expectedValue(FieldVector sent, int row) {
    if (sent.isNull(row)) {
      return null;
    }
    Object value = sent.getObject(row);
    ArrowType type = sent.getField().getType();
    if (type instanceof ArrowType.Time time) {
      long micros =
          switch (time.getUnit()) {
            case SECOND -> ((Integer) value) * 1_000_000L;
            case MILLISECOND -> ((LocalDateTime) value).toLocalTime().toNanoOfDay() / 1_000;
            default -> (Long) value;
          };
      return String.valueOf(micros);
    }
    if (type instanceof ArrowType.Duration) {
      return new PeriodDuration(Period.ZERO, (Duration) value).toString();
    }
    if (type instanceof ArrowType.Interval interval
        && interval.getUnit() == IntervalUnit.YEAR_MONTH) {
      Period months = Period.ofMonths((int) ((Period) value).toTotalMonths());
      return new PeriodDuration(months, Duration.ZERO).toString();
    }
    return TestClient.value(sent, row);
  }
}
