package io.flightsql.spark.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.flight.FlightEndpoint;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.dictionary.Dictionary;
import org.apache.arrow.vector.dictionary.DictionaryProvider;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.DictionaryEncoding;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;

/**
 * DuckDB's ENUM columns, which DuckDB exports dictionary-encoded and DoGet streams as Arrow IPC
 * dictionaries: values decode right across batches and endpoints, empty results still carry the
 * dictionaries, and no Arrow memory is left behind.
 */
@SuppressWarnings("try") // Arrow's FlightStream and FlightSqlClient close() declare Exception
class EnumColumnsTest {

  private static final String SETUP =
      """
      CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy');
      CREATE TYPE size AS ENUM (SELECT 'size_' || i FROM range(300) AS t(i));
      CREATE TABLE feelings AS
      SELECT
        i,
        CASE
          WHEN i % 7 = 0 THEN NULL
          WHEN i < 2500 THEN 'happy'
          ELSE ['sad', 'ok', 'happy'][i % 3 + 1]
        END::mood AS m,
        ('size_' || (i * 37 % 300))::size AS s
      FROM range(10001) AS t(i);
      """;

  /**
   * The first batches hold only one label of {@code mood}, yet decode the later ones too: DuckDB
   * exports the enum's whole dictionary with every batch, and the stream sends the first one.
   */
  @Test
  void valuesDecodeAcrossBatchesAndEndpoints() throws Exception {
    String sql = "SELECT i, m, s FROM feelings ORDER BY i";
    try (DuckDbFlightSqlServer server =
            DuckDbFlightSqlServer.builder().lineitemRows(0).endpoints(2).batchRows(1_000).start();
        TestClient client = new TestClient(server)) {
      server.execute(SETUP);
      FlightInfo info = client.sql.execute(sql);

      List<Field> announced = TestClient.schema(info).getFields();
      // 256 values and more need a wider index: DuckDB picks the narrowest unsigned one.
      assertThat(announced.get(1).getDictionary().getIndexType())
          .isEqualTo(new ArrowType.Int(8, false));
      assertThat(announced.get(2).getDictionary().getIndexType())
          .isEqualTo(new ArrowType.Int(16, false));
      assertThat(announced.get(1).getDictionary().getId())
          .isNotEqualTo(announced.get(2).getDictionary().getId());
      List<List<String>> actual = new ArrayList<>();
      for (FlightEndpoint endpoint : info.getEndpoints()) {
        TestClient.Stream stream = client.read(endpoint.getTicket());
        // 10,001 rows in 2 endpoints: the second starts mid-batch, after 5 skipped batches.
        assertThat(stream.batches()).hasSizeGreaterThan(1);
        actual.addAll(stream.rows());
      }
      assertThat(actual).hasSize(10_001).isEqualTo(TestClient.jdbcRows(server, sql));
      assertThat(actual.get(7)).containsExactly("7", null, "size_259");
      assertThat(actual.get(2501)).containsExactly("2501", "happy", "size_137");
      assertThat(actual.get(10000)).containsExactly("10000", "ok", "size_100");
    }
  }

  @Test
  void enumsInsideListsAndStructsGetTheirDictionariesToo() throws Exception {
    try (DuckDbFlightSqlServer server =
            DuckDbFlightSqlServer.builder().lineitemRows(0).endpoints(1).start();
        TestClient client = new TestClient(server)) {
      server.execute(SETUP);
      FlightInfo info =
          client.sql.execute(
              "SELECT [CAST('ok' AS mood), NULL, CAST('sad' AS mood)] AS l,"
                  + " {'e': CAST('happy' AS mood)} AS r");

      try (FlightStream stream = client.sql.getStream(info.getEndpoints().get(0).getTicket())) {
        assertThat(stream.next()).isTrue();
        DictionaryProvider dictionaries = stream.getDictionaryProvider();
        ListVector list = (ListVector) stream.getRoot().getVector("l");
        StructVector struct = (StructVector) stream.getRoot().getVector("r");

        assertThat(decode(list.getDataVector(), dictionaries)).containsExactly("ok", null, "sad");
        assertThat(decode(struct.getChild("e"), dictionaries)).containsExactly("happy");
      }
    }
  }

  @Test
  void emptyResultsStillSendTheSchemaAndEmptyDictionaries() throws Exception {
    try (DuckDbFlightSqlServer server =
            DuckDbFlightSqlServer.builder().lineitemRows(0).endpoints(2).start();
        TestClient client = new TestClient(server)) {
      server.execute(SETUP);
      FlightInfo info = client.sql.execute("SELECT m, s FROM feelings WHERE i < 0");

      assertThat(info.getRecords()).isZero();
      for (FlightEndpoint endpoint : info.getEndpoints()) {
        try (FlightStream stream = client.sql.getStream(endpoint.getTicket())) {
          assertThat(ArrowTypesTest.messageSchema(stream)).isEqualTo(TestClient.schema(info));
          assertThat(stream.next()).isFalse();
          for (Field field : stream.getSchema().getFields()) {
            DictionaryEncoding encoding = field.getDictionary();
            Dictionary dictionary = stream.getDictionaryProvider().lookup(encoding.getId());
            assertThat(dictionary.getVector().getValueCount()).isZero();
          }
        }
      }
    }
  }

  @Test
  void getSchemaAndGetTablesAnnounceTheColumnsAsTheStreamDoes() throws Exception {
    try (DuckDbFlightSqlServer server = DuckDbFlightSqlServer.builder().lineitemRows(0).start();
        TestClient client = new TestClient(server)) {
      server.execute(SETUP);
      Schema announced = TestClient.schema(client.sql.execute("SELECT * FROM feelings"));
      Field mood = announced.findField("m");

      assertThat(mood.getType()).isEqualTo(ArrowType.Utf8.INSTANCE);
      assertThat(mood.getDictionary().getIndexType()).isEqualTo(new ArrowType.Int(8, false));
      assertThat(client.sql.getExecuteSchema("SELECT * FROM feelings").getSchema())
          .isEqualTo(announced);
      FlightInfo tables =
          client.sql.getTables(null, null, "feelings", null, /* includeSchema= */ true);
      try (FlightStream stream = client.sql.getStream(tables.getEndpoints().get(0).getTicket())) {
        assertThat(stream.next()).isTrue();
        VarBinaryVector schemas = (VarBinaryVector) stream.getRoot().getVector("table_schema");
        assertThat(Schema.deserializeMessage(ByteBuffer.wrap(schemas.get(0)))).isEqualTo(announced);
      }
    }
  }

  @Test
  void cancellingAnEnumStreamReleasesEverything() throws Exception {
    DuckDbFlightSqlServer server =
        DuckDbFlightSqlServer.builder().lineitemRows(0).endpoints(1).batchRows(100).start();
    try (TestClient client = new TestClient(server)) {
      server.execute(SETUP);
      FlightInfo info = client.sql.execute("SELECT m, s FROM feelings");
      try (FlightStream stream = client.sql.getStream(info.getEndpoints().get(0).getTicket())) {
        assertThat(stream.next()).isTrue();
        stream.cancel("enough", null);
      }
      assertThat(client.rows(client.sql.execute("SELECT m FROM feelings WHERE i = 10000")))
          .containsExactly(List.of("ok"));
    }
    // close() checks the server's allocators: dictionaries left behind by the call would throw.
    server.close();
  }

  /** The values of a dictionary-encoded vector, through the stream's dictionaries. */
  private static List<String> decode(FieldVector indices, DictionaryProvider dictionaries) {
    Dictionary dictionary = dictionaries.lookup(indices.getField().getDictionary().getId());
    List<String> values = new ArrayList<>();
    for (int i = 0; i < indices.getValueCount(); i++) {
      Object index = indices.getObject(i);
      values.add(
          index == null
              ? null
              : TestClient.value(dictionary.getVector(), ((Number) index).intValue()));
    }
    return values;
  }
}
