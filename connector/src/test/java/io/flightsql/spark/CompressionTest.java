package io.flightsql.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.flightsql.spark.server.DuckDbFlightSqlServer;
import io.flightsql.spark.server.RecordBatchCodecs;
import io.flightsql.spark.testing.ArrowLeakCheckExtension;
import io.flightsql.spark.testing.EmbeddedServerExtension;
import io.flightsql.spark.testing.SparkSessionExtension;
import java.net.URI;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.FlightEndpoint;
import org.apache.arrow.flight.Location;
import org.apache.arrow.flight.sql.FlightSqlClient;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Compressed record batches end to end with the embedded DuckDB server: reads of query streams that
 * the server compresses with each codec of the Arrow IPC format, and writes with option {@code
 * compression}, whose rows reach DuckDB exactly, in fewer bytes than without it. No Arrow memory is
 * left after any of them.
 */
@ExtendWith(ArrowLeakCheckExtension.class)
class CompressionTest {
  private static final long LINEITEM_ROWS = 5_000;
  private static final int UPLOAD_ROWS = 20_000;

  // Every server holds the same data; they differ in how they send query streams.
  @RegisterExtension
  @Order(1)
  static final EmbeddedServerExtension plain = compressing("none");

  @RegisterExtension
  @Order(2)
  static final EmbeddedServerExtension zstd = compressing("zstd");

  @RegisterExtension
  @Order(3)
  static final EmbeddedServerExtension lz4 = compressing("lz4");

  @RegisterExtension
  @Order(4)
  static final SparkSessionExtension spark = SparkSessionExtension.local();

  private static EmbeddedServerExtension compressing(String codec) {
    return EmbeddedServerExtension.duckDb(
        server -> server.lineitemRows(LINEITEM_ROWS).batchRows(1_000).compression(codec));
  }

  /** The server that sends query streams compressed with {@code codec}, or not for "none". */
  private static DuckDbFlightSqlServer server(String codec) {
    return switch (codec) {
      case "none" -> plain.server();
      case "zstd" -> zstd.server();
      case "lz4" -> lz4.server();
      default -> throw new IllegalArgumentException("No server compresses with " + codec);
    };
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource({"zstd, ZSTD", "lz4, LZ4_FRAME"})
  void readsCompressedStreamsAsTheSameRowsAsUncompressedOnes(String codec, String sent)
      throws Exception {
    DuckDbFlightSqlServer compressing = server(codec);
    for (String table : List.of("lineitem", "types_demo")) {
      List<String> expected = rows(read(server("none"), table));
      assertThat(expected).as(table).hasSize((int) count(compressing, table));
      assertThat(rows(read(compressing, table))).as(table).isEqualTo(expected);
    }
    assertThat(codecs(compressing, "SELECT * FROM lineitem")).isNotEmpty().containsOnly(sent);
  }

  /**
   * The same rows written with each compression reach DuckDB value for value; the compressed
   * uploads take fewer bytes on the wire than the plain one.
   */
  @ParameterizedTest(name = "writeMethod={0}")
  @ValueSource(strings = {"ingest", "prepared"})
  void uploadsRoundTripExactlyInFewerBytes(String method) throws Exception {
    DuckDbFlightSqlServer server = server("none");
    Dataset<Row> data = uploadRows();
    List<String> expected = rows(data);
    Map<String, Long> bytes = new LinkedHashMap<>();
    for (String codec : List.of("none", "zstd", "lz4")) {
      String table = "uploaded_" + method + "_" + codec;
      long before = server.bytesReceived();
      data.write()
          .format("flightsql")
          .option("uri", server.uri())
          .option("dbtable", table)
          .option("writeMethod", method)
          .option("compression", codec)
          .save();
      bytes.put(codec, server.bytesReceived() - before);
      assertThat(rows(read(server, table))).as(codec).isEqualTo(expected);
    }
    assertThat(bytes.get("zstd")).as("bytes received: %s", bytes).isLessThan(bytes.get("none"));
    assertThat(bytes.get("lz4")).as("bytes received: %s", bytes).isLessThan(bytes.get("none"));
  }

  @Test
  void anUnknownCompressionNamesTheOptionAndTheChoices() {
    assertThatThrownBy(
            () ->
                uploadRows()
                    .write()
                    .format("flightsql")
                    .option("uri", server("none").uri())
                    .option("dbtable", "never_written")
                    .option("compression", "gzip")
                    .save())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "Invalid value 'gzip' for option 'compression': expected `none`, `zstd` or `lz4`");
  }

  /** Rows of every family the write path sends, with NULLs; compressible, as real data is. */
  private static Dataset<Row> uploadRows() {
    return spark
        .session()
        .sql(
            "SELECT id,"
                + " IF(id % 7 = 0, NULL, CAST(id % 1000 AS INT)) AS small,"
                + " CAST(id AS DOUBLE) / 8 AS ratio,"
                + " IF(id % 11 = 0, NULL, concat('name ', CAST(id % 500 AS STRING), ' é✓')) AS name,"
                + " CAST(id * 1.25 AS DECIMAL(14, 2)) AS amount,"
                + " date_add(DATE'2020-01-01', CAST(id % 3650 AS INT)) AS day,"
                + " timestamp_seconds(1600000000 + id * 61) AS seen,"
                + " id % 3 = 0 AS flag,"
                + " IF(id % 5 = 0, NULL, array(CAST(id % 10 AS INT), NULL)) AS list,"
                + " CAST(concat('b', CAST(id % 97 AS STRING)) AS BINARY) AS bytes"
                + " FROM range(0, "
                + UPLOAD_ROWS
                + ", 1, 2)");
  }

  private static Dataset<Row> read(DuckDbFlightSqlServer server, String table) {
    return spark
        .session()
        .read()
        .format("flightsql")
        .option("uri", server.uri())
        .option("dbtable", table)
        .load();
  }

  /** The rows as text, in a fixed order. */
  private static List<String> rows(Dataset<Row> df) {
    return df.collectAsList().stream()
        .map(CompressionTest::text)
        .sorted()
        .collect(Collectors.toList());
  }

  private static String text(Row row) {
    List<String> values = new ArrayList<>();
    for (int i = 0; i < row.length(); i++) {
      Object value = row.get(i);
      values.add(
          value instanceof byte[]
              ? java.util.HexFormat.of().formatHex((byte[]) value)
              : String.valueOf(value));
    }
    return values.toString();
  }

  private static long count(DuckDbFlightSqlServer server, String table) throws Exception {
    try (Connection connection = server.newConnection();
        Statement statement = connection.createStatement();
        ResultSet result = statement.executeQuery("SELECT count(*) FROM " + table)) {
      result.next();
      return result.getLong(1);
    }
  }

  /** The codec of each record batch of each endpoint of {@code sql}, as the server sent it. */
  private static List<String> codecs(DuckDbFlightSqlServer server, String sql) throws Exception {
    List<String> codecs = new ArrayList<>();
    try (BufferAllocator allocator = new RootAllocator();
        FlightSqlClient client =
            new FlightSqlClient(
                FlightClient.builder(allocator, new Location(URI.create(server.uri()))).build())) {
      for (FlightEndpoint endpoint : client.execute(sql).getEndpoints()) {
        codecs.addAll(
            RecordBatchCodecs.of("127.0.0.1", server.port(), endpoint.getTicket().getBytes()));
      }
    }
    return codecs;
  }
}
