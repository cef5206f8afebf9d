package io.flightsql.spark.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.flight.FlightEndpoint;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.sql.FlightSqlClient;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Query streams compressed with each codec (option {@code compression}): every record batch leaves
 * the server compressed, in fewer bytes than the same stream uncompressed, and Arrow's client reads
 * DuckDB's own answer from it, whichever way the stream is made (a query per endpoint, slices of a
 * computed result, a prepared query with parameters, ENUM columns with their dictionaries).
 */
@SuppressWarnings("try") // Arrow's FlightSqlClient.PreparedStatement close() declares Exception
class DoGetCompressionTest {

  private static final String LINEITEM = "SELECT * FROM lineitem ORDER BY l_orderkey, l_linenumber";
  private static final String MOODS = "SELECT id, m FROM moods ORDER BY id";

  @ParameterizedTest(name = "{0}, without {2}")
  @CsvSource({
    "zstd, ZSTD, nothing",
    "lz4, LZ4_FRAME, nothing",
    "zstd, ZSTD, QueryPerEndpoint",
    "lz4, LZ4_FRAME, QueryPerEndpoint"
  })
  void everyBatchIsCompressedAndReadsAsDuckDbsAnswer(String codec, String sent, String without)
      throws Exception {
    try (DuckDbFlightSqlServer plain = server("none", without);
        DuckDbFlightSqlServer compressing = server(codec, without);
        TestClient plainClient = new TestClient(plain);
        TestClient client = new TestClient(compressing)) {
      for (String sql : List.of(LINEITEM, MOODS)) {
        List<List<String>> expected = TestClient.jdbcRows(compressing, sql);
        long plainBefore = plain.bytesSent();
        assertThat(plainClient.rows(plainClient.sql.execute(sql))).as(sql).isEqualTo(expected);
        long plainBytes = plain.bytesSent() - plainBefore;

        long before = compressing.bytesSent();
        assertThat(client.rows(client.sql.execute(sql))).as(sql).isEqualTo(expected);
        long compressedBytes = compressing.bytesSent() - before;
        assertThat(compressedBytes).as(sql + ": bytes sent").isLessThan(plainBytes);

        List<String> codecs = new ArrayList<>();
        for (FlightEndpoint endpoint : client.sql.execute(sql).getEndpoints()) {
          codecs.addAll(codecs(compressing, endpoint));
        }
        assertThat(codecs).as(sql).isNotEmpty().containsOnly(sent);
      }
    }
  }

  @Test
  void aPreparedQueryWithParametersStreamsCompressedToo() throws Exception {
    try (DuckDbFlightSqlServer server = server("zstd", "nothing");
        TestClient client = new TestClient(server);
        FlightSqlClient.PreparedStatement query =
            client.sql.prepare(
                "SELECT * FROM lineitem WHERE l_orderkey = ? ORDER BY l_linenumber");
        VectorSchemaRoot parameters =
            VectorSchemaRoot.create(query.getParameterSchema(), client.allocator)) {
      parameters.allocateNew();
      ((BigIntVector) parameters.getVector(0)).setSafe(0, 7);
      ((BigIntVector) parameters.getVector(0)).setSafe(1, 32);
      parameters.setRowCount(2);
      query.setParameters(parameters);
      FlightInfo info = query.execute();

      List<List<String>> expected = new ArrayList<>();
      expected.addAll(
          TestClient.jdbcRows(
              server, "SELECT * FROM lineitem WHERE l_orderkey = 7 ORDER BY l_linenumber"));
      expected.addAll(
          TestClient.jdbcRows(
              server, "SELECT * FROM lineitem WHERE l_orderkey = 32 ORDER BY l_linenumber"));
      assertThat(expected).isNotEmpty();
      assertThat(client.rows(info)).isEqualTo(expected);
      assertThat(codecs(server, info.getEndpoints().get(0))).isNotEmpty().containsOnly("ZSTD");
    }
  }

  @Test
  void theBuilderNamesTheCodecsItTakes() {
    assertThatThrownBy(() -> DuckDbFlightSqlServer.builder().compression("ZSTD"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Invalid value 'ZSTD' for option 'compression': expected none, zstd or lz4");
  }

  private static DuckDbFlightSqlServer server(String codec, String without) throws Exception {
    DuckDbFlightSqlServerBuilder builder =
        DuckDbFlightSqlServer.builder().lineitemRows(20_000).batchRows(2_000).compression(codec);
    if (!without.equals("nothing")) {
      builder.without(without);
    }
    DuckDbFlightSqlServer server = builder.start();
    server.execute("CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy')");
    server.execute(
        "CREATE TABLE moods AS SELECT id, (['sad', 'ok', 'happy'][id % 3 + 1])::mood AS m"
            + " FROM range(10000) t(id)");
    return server;
  }

  private static List<String> codecs(DuckDbFlightSqlServer server, FlightEndpoint endpoint) {
    return RecordBatchCodecs.of("127.0.0.1", server.port(), endpoint.getTicket().getBytes());
  }
}
