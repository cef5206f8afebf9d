package io.flightsql.spark.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Field;
import org.junit.jupiter.api.Test;

/** The demo tables: their Arrow types, their values, and that they are the same on every start. */
@SuppressWarnings("try") // Arrow's FlightStream and FlightSqlClient close() declare Exception
class DemoDataTest {

  /** A few aggregates of a 10,000-row lineitem, as the generator produced them when written. */
  private static final String LINEITEM_FINGERPRINT =
      "SELECT count(*), sum(l_orderkey), sum(l_partkey), sum(l_suppkey), sum(l_linenumber),"
          + " sum(l_quantity), sum(l_extendedprice), sum(l_discount), sum(l_tax),"
          + " string_agg(DISTINCT l_returnflag || l_linestatus, ','"
          + " ORDER BY l_returnflag || l_linestatus),"
          + " min(l_shipdate), max(l_receiptdate), sum(l_commitdate - l_shipdate),"
          + " count(DISTINCT l_shipinstruct), count(DISTINCT l_shipmode),"
          + " min(length(l_comment)), max(length(l_comment)), sum(length(l_comment))"
          + " FROM lineitem";

  @Test
  void typesDemoColumnsExportAsTheseArrowTypes() throws Exception {
    try (DuckDbFlightSqlServer server = DuckDbFlightSqlServer.builder().lineitemRows(0).start();
        TestClient client = new TestClient(server)) {
      FlightInfo info = client.sql.execute("SELECT * FROM types_demo ORDER BY id");

      Map<String, String> types = new LinkedHashMap<>();
      for (Field field : TestClient.schema(info).getFields()) {
        types.put(field.getName(), field.getType().toString());
      }
      assertThat(types)
          .containsExactly(
              Map.entry("id", "Int(32, true)"),
              Map.entry("c_tinyint", "Int(8, true)"),
              Map.entry("c_smallint", "Int(16, true)"),
              Map.entry("c_int", "Int(32, true)"),
              Map.entry("c_bigint", "Int(64, true)"),
              Map.entry("c_float", "FloatingPoint(SINGLE)"),
              Map.entry("c_double", "FloatingPoint(DOUBLE)"),
              Map.entry("c_dec_short", "Decimal(10, 2, 128)"),
              Map.entry("c_dec_long", "Decimal(38, 10, 128)"),
              Map.entry("c_varchar", "Utf8"),
              Map.entry("c_blob", "Binary"),
              Map.entry("c_bool", "Bool"),
              Map.entry("c_date", "Date(DAY)"),
              Map.entry("c_ts", "Timestamp(MICROSECOND, null)"),
              Map.entry("c_tstz", "Timestamp(MICROSECOND, UTC)"));
      assertThat(info.getRecords()).isEqualTo(10);
    }
  }

  @Test
  void typesDemoValuesSurviveTheTrip() throws Exception {
    try (DuckDbFlightSqlServer server = DuckDbFlightSqlServer.builder().lineitemRows(0).start();
        TestClient client = new TestClient(server)) {
      FlightInfo info = client.sql.execute("SELECT * FROM types_demo ORDER BY id");
      Map<Integer, Map<String, Object>> rows = new LinkedHashMap<>();
      for (var endpoint : info.getEndpoints()) {
        try (FlightStream stream = client.sql.getStream(endpoint.getTicket())) {
          while (stream.next()) {
            VectorSchemaRoot root = stream.getRoot();
            for (int row = 0; row < root.getRowCount(); row++) {
              Map<String, Object> values = new LinkedHashMap<>();
              for (FieldVector vector : root.getFieldVectors()) {
                Object value = vector.getObject(row);
                values.put(
                    vector.getName(), value instanceof byte[] b ? List.of(toInts(b)) : value);
              }
              rows.put((Integer) values.get("id"), values);
            }
          }
        }
      }

      assertThat(rows).hasSize(10);
      assertThat(rows.get(4)).containsEntry("id", 4);
      assertThat(rows.get(4).entrySet())
          .filteredOn(e -> !e.getKey().equals("id"))
          .allSatisfy(e -> assertThat(e.getValue()).as(e.getKey()).isNull());

      Map<String, Object> two = rows.get(2);
      assertThat(two.get("c_varchar")).hasToString("ünïcødé ✓");
      assertThat(two.get("c_bigint")).isEqualTo(Long.MAX_VALUE);
      assertThat(two.get("c_dec_long")).hasToString("9999999999999999999999999999.9999999999");
      assertThat(two.get("c_blob")).isEqualTo(List.of(0xDE, 0xAD, 0xBE, 0xEF));
      assertThat(two.get("c_ts")).hasToString("2024-02-29T12:34:56.789012");

      Map<String, Object> one = rows.get(1);
      assertThat(one.get("c_varchar")).hasToString("");
      assertThat(one.get("c_date")).isEqualTo(0);
      assertThat(one.get("c_tstz")).isEqualTo(0L);

      Map<String, Object> three = rows.get(3);
      assertThat(three.get("c_date")).isEqualTo(-165); // 1969-07-20
      assertThat(three.get("c_ts")).hasToString("1969-07-20T20:17:40.123456");
      // 22:17:40.5+02 is 20:17:40.5 UTC, 14,182,939.5 seconds before the epoch.
      assertThat(three.get("c_tstz")).isEqualTo(-14_182_939_500_000L);
    }
  }

  @Test
  void lineitemHasTheRequestedRowsAndIsTheSameOnEveryStart() throws Exception {
    List<List<String>> first;
    List<List<String>> firstRows;
    try (DuckDbFlightSqlServer server =
            DuckDbFlightSqlServer.builder().lineitemRows(10_000).start();
        TestClient client = new TestClient(server)) {
      first = TestClient.jdbcRows(server, LINEITEM_FINGERPRINT);
      firstRows = client.rows(client.sql.execute("SELECT * FROM lineitem"));
    }
    try (DuckDbFlightSqlServer server =
            DuckDbFlightSqlServer.builder().lineitemRows(10_000).start();
        TestClient client = new TestClient(server)) {
      assertThat(TestClient.jdbcRows(server, LINEITEM_FINGERPRINT)).isEqualTo(first);
      assertThat(client.rows(client.sql.execute("SELECT * FROM lineitem"))).isEqualTo(firstRows);
    }

    assertThat(firstRows).hasSize(10_000);
    assertThat(first.get(0))
        .containsExactly(
            "10000",
            "12505000",
            "1001117730",
            "50012730",
            "25000",
            "254945.00",
            "256176253.69",
            "499.87",
            "400.08",
            "AF,NF,NO,RF",
            "1992-01-02",
            "1998-09-02",
            "-37",
            "4",
            "7",
            "10",
            "40",
            "250016");
    // The first row, as a sample of every column.
    assertThat(firstRows.get(0))
        .containsExactly(
            "1",
            "104224",
            "4225",
            "1",
            "18.00",
            "17035.38",
            "0.06",
            "0.07",
            "A",
            "F",
            "1994-05-10",
            "1994-05-23",
            "1994-06-03",
            "TAKE BACK RETURN",
            "MAIL",
            "s detect slyly. ironic requests slee");
  }

  @Test
  void lineitemCanBeLeftOut() throws Exception {
    try (DuckDbFlightSqlServer server = DuckDbFlightSqlServer.builder().lineitemRows(0).start();
        TestClient client = new TestClient(server)) {
      assertThat(client.rows(client.sql.getTables(null, null, "lineitem", null, false))).isEmpty();
    }
  }

  private static Integer[] toInts(byte[] bytes) {
    Integer[] ints = new Integer[bytes.length];
    for (int i = 0; i < bytes.length; i++) {
      ints[i] = bytes[i] & 0xFF;
    }
    return ints;
  }
}
