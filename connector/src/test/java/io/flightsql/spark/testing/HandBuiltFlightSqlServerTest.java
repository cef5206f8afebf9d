package io.flightsql.spark.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.flightsql.spark.client.FlightSqlSession;
import io.flightsql.spark.client.transport.ConnectionSettings;
import io.flightsql.spark.client.transport.FlightUri;
import io.grpc.Status;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.FlightEndpoint;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.FlightStatusCode;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.flight.Location;
import org.apache.arrow.flight.sql.FlightSqlClient;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BaseVariableWidthViewVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float2Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.UInt1Vector;
import org.apache.arrow.vector.UInt2Vector;
import org.apache.arrow.vector.UInt4Vector;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.DenseUnionVector;
import org.apache.arrow.vector.complex.ListViewVector;
import org.apache.arrow.vector.complex.UnionVector;
import org.apache.arrow.vector.types.Types;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.DictionaryEncoding;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** The hand-built server and its samples, as Arrow Java's own Flight SQL client receives them. */
@Timeout(60)
// FlightStream.close() declares Exception, InterruptedException included; tests let it propagate.
@SuppressWarnings("try")
class HandBuiltFlightSqlServerTest {
  private static final Schema IDS =
      new Schema(
          List.of(new Field("id", FieldType.notNullable(new ArrowType.Int(32, true)), null)));

  private static BufferAllocator rootAllocator;
  private static HandBuiltFlightSqlServer server;
  private static List<HandBuiltDatasets.Sample> samples;

  private BufferAllocator allocator;
  private FlightClient client;
  private FlightSqlClient sql;

  @BeforeAll
  static void start() {
    rootAllocator = new RootAllocator();
    server = HandBuiltFlightSqlServer.start();
    // Closing the allocator right after registering fails if the server kept any Arrow memory.
    try (BufferAllocator building = rootAllocator.newChildAllocator("samples", 0, Long.MAX_VALUE)) {
      samples = HandBuiltDatasets.registerAll(server, building);
    }
  }

  @AfterAll
  static void stop() {
    if (server != null) {
      server.close();
    }
    rootAllocator.close();
  }

  @BeforeEach
  void connect() {
    allocator = rootAllocator.newChildAllocator("client", 0, Long.MAX_VALUE);
    client =
        FlightClient.builder(allocator, Location.forGrpcInsecure("127.0.0.1", server.port()))
            .build();
    sql = new FlightSqlClient(client);
  }

  /** Closing the client's allocator fails the test if any received buffer leaked. */
  @AfterEach
  void disconnect() throws Exception {
    client.close();
    allocator.close();
  }

  static Stream<String> sampleNames() {
    return samples.stream().map(HandBuiltDatasets.Sample::name);
  }

  /** Every sample but the dictionary delta, which Arrow Java's FlightStream misreads. */
  static Stream<String> samplesArrowJavaReads() {
    return sampleNames().filter(name -> !name.equals("dictionary_delta"));
  }

  private static HandBuiltDatasets.Sample sample(String name) {
    return samples.stream().filter(s -> s.name().equals(name)).findFirst().orElseThrow();
  }

  @ParameterizedTest
  @MethodSource("sampleNames")
  void schemaIsTheSameInGetSchemaAndFlightInfo(String name) {
    HandBuiltDatasets.Sample sample = sample(name);
    assertThat(sql.getExecuteSchema(name).getSchema()).isEqualTo(sample.schema());
    FlightInfo info = sql.execute(name);
    assertThat(info.getSchemaOptional()).contains(sample.schema());
    assertThat(info.getEndpoints()).hasSize(1);
    assertThat(info.getRecords()).isEqualTo(sample.rows().size());
  }

  @ParameterizedTest
  @MethodSource("samplesArrowJavaReads")
  void doGetYieldsTheExpectedBatches(String name) throws Exception {
    HandBuiltDatasets.Sample sample = sample(name);
    FlightInfo info = sql.execute(name);
    List<Integer> sizes = new ArrayList<>();
    List<List<Object>> rows = new ArrayList<>();
    try (FlightStream stream = sql.getStream(info.getEndpoints().get(0).getTicket())) {
      assertThat(stream.getSchema()).isEqualTo(inMemory(sample.schema()));
      while (stream.next()) {
        sizes.add(stream.getRoot().getRowCount());
        rows.addAll(ArrowValues.rows(stream.getRoot(), stream.getDictionaryProvider()));
      }
    }
    assertThat(sizes).isEqualTo(sample.batchSizes());
    assertThat(rows).isEqualTo(sample.rows());
  }

  @Test
  void replacedDictionaryIsInForceAfterTheNextBatch() throws Exception {
    FlightInfo info = sql.execute("dictionary_replaced");
    try (FlightStream stream = sql.getStream(info.getEndpoints().get(0).getTicket())) {
      for (List<String> dictionary : HandBuiltDatasets.REPLACED_DICTIONARIES) {
        assertThat(stream.next()).isTrue();
        assertThat(dictionary(stream, HandBuiltDatasets.REPLACED_DICTIONARY_ID))
            .isEqualTo(new ArrayList<Object>(dictionary));
      }
      assertThat(stream.next()).isFalse();
    }
  }

  /**
   * Arrow Java's FlightStream ignores isDelta: the delta's values replace the dictionary instead of
   * extending it, so the second batch's indices 2 and 3 fall outside it.
   */
  @Test
  void arrowJavaReplacesTheDictionaryOnADelta() throws Exception {
    FlightInfo info = sql.execute("dictionary_delta");
    try (FlightStream stream = sql.getStream(info.getEndpoints().get(0).getTicket())) {
      assertThat(stream.next()).isTrue();
      assertThat(dictionary(stream, HandBuiltDatasets.DELTA_DICTIONARY_ID))
          .isEqualTo(new ArrayList<Object>(HandBuiltDatasets.DELTA_BASE));
      assertThat(stream.next()).isTrue();
      assertThat(dictionary(stream, HandBuiltDatasets.DELTA_DICTIONARY_ID))
          .isEqualTo(new ArrayList<Object>(HandBuiltDatasets.DELTA_EXTENSION));
      IntVector indices = (IntVector) stream.getRoot().getVector(1);
      assertThat(List.of(indices.get(0), indices.get(1), indices.get(2))).containsExactly(2, 3, 0);
      assertThat(stream.next()).isFalse();
    }
  }

  /**
   * The views of a list_view arrive intact; only Arrow Java's ListViewVector.getElementEndIndex is
   * wrong (it returns the size), so readers must add offset and size themselves.
   */
  @Test
  void listViewArrivesIntactButGetElementEndIndexIsTheSize() throws Exception {
    FlightInfo info = sql.execute("list_view");
    try (FlightStream stream = sql.getStream(info.getEndpoints().get(0).getTicket())) {
      assertThat(stream.next()).isTrue();
      ListViewVector views = (ListViewVector) stream.getRoot().getVector(1);
      // Row 0 is the view {offset 3, size 2}.
      assertThat(views.getElementStartIndex(0)).isEqualTo(3);
      assertThat(views.getElementEndIndex(0)).isEqualTo(2);
      assertThat(new ArrayList<Object>(views.getObject(0))).containsExactly(40, null);
    }
  }

  /**
   * A sparse union with type ids 0 and 1 (as other Arrow implementations write them) loads and
   * getObject reads it right, but the UnionVector's field reports type ids of its own
   * (Types.MinorType ordinals); the root's schema keeps the stream's. Unions have no validity, and
   * isNull is false even where the selected member's slot is null.
   */
  @Test
  void unionVectorsReportTheirOwnTypeIdsAndNoNulls() throws Exception {
    FlightInfo sparse = sql.execute("sparse_union_int32_null");
    try (FlightStream stream = sql.getStream(sparse.getEndpoints().get(0).getTicket())) {
      assertThat(stream.next()).isTrue();
      UnionVector union = (UnionVector) stream.getRoot().getVector(1);
      assertThat(
              ((ArrowType.Union) stream.getRoot().getSchema().getFields().get(1).getType())
                  .getTypeIds())
          .containsExactly(0, 1);
      assertThat(((ArrowType.Union) union.getField().getType()).getTypeIds())
          .containsExactly(Types.MinorType.INT.ordinal(), Types.MinorType.NULL.ordinal());
      assertThat(List.of(union.getTypeValue(0), union.getTypeValue(1))).containsExactly(0, 1);
      assertThat(objectsAndNulls(union, stream.getRoot().getRowCount()))
          .containsExactly("5/false", "null/false", "null/false");
    }
    FlightInfo dense = sql.execute("dense_union_int32_null");
    try (FlightStream stream = sql.getStream(dense.getEndpoints().get(0).getTicket())) {
      assertThat(stream.next()).isTrue();
      DenseUnionVector union = (DenseUnionVector) stream.getRoot().getVector(1);
      assertThat(((ArrowType.Union) union.getField().getType()).getTypeIds())
          .containsExactly(0, 1, 2);
      assertThat(objectsAndNulls(union, stream.getRoot().getRowCount()))
          .containsExactly("5/false", "-7/false", "null/false");
    }
  }

  private static List<String> objectsAndNulls(FieldVector vector, int rows) {
    List<String> values = new ArrayList<>();
    for (int i = 0; i < rows; i++) {
      values.add(vector.getObject(i) + "/" + vector.isNull(i));
    }
    return values;
  }

  @Test
  void viewTypesArriveInSeveralDataBuffers() throws Exception {
    for (String name : List.of("utf8_view", "binary_view")) {
      FlightInfo info = sql.execute(name);
      List<Integer> dataBuffers = new ArrayList<>();
      try (FlightStream stream = sql.getStream(info.getEndpoints().get(0).getTicket())) {
        while (stream.next()) {
          BaseVariableWidthViewVector views =
              (BaseVariableWidthViewVector) stream.getRoot().getVector(1);
          dataBuffers.add(views.getDataBuffers().size());
        }
      }
      assertThat(dataBuffers).as(name).allMatch(count -> count > 1);
    }
  }

  /** The connector's own session finds the schema with GetSchema and reads the endpoint. */
  @Test
  void connectorSessionReadsASample() throws Exception {
    HandBuiltDatasets.Sample sample = sample("timestamps");
    try (FlightSqlSession session =
        FlightSqlSession.open(
            ConnectionSettings.of(FlightUri.parse(server.uri())), "handbuilt-test")) {
      assertThat(session.resultSchema(sample.name())).isEqualTo(sample.schema());
      FlightInfo info = session.execute(sample.name());
      FlightEndpoint endpoint = info.getEndpoints().get(0);
      List<List<Object>> rows = new ArrayList<>();
      try (FlightStream stream = session.stream(session.targets(endpoint), endpoint.getTicket())) {
        while (stream.next()) {
          rows.addAll(ArrowValues.rows(stream.getRoot(), stream.getDictionaryProvider()));
        }
      }
      assertThat(rows).isEqualTo(sample.rows());
    }
  }

  @Test
  void endpointsEachServeTheirOwnBatches() throws Exception {
    try (VectorSchemaRoot root = VectorSchemaRoot.create(IDS, allocator)) {
      server
          .dataset("three_endpoints", IDS)
          .batch(ids(root, 0, 1, 2))
          .endpoint()
          .endpoint()
          .batch(ids(root, 3, 4))
          .batch(ids(root, 5))
          .register();
    }
    FlightInfo info = sql.execute("three_endpoints");
    assertThat(info.getRecords()).isEqualTo(6);
    assertThat(info.getEndpoints()).hasSize(3);
    List<List<Integer>> read = new ArrayList<>();
    for (FlightEndpoint endpoint : info.getEndpoints()) {
      assertThat(endpoint.getLocations()).isEmpty();
      read.add(readIds(endpoint));
    }
    assertThat(read).containsExactly(List.of(0, 1, 2), List.of(), List.of(3, 4, 5));
  }

  @Test
  void streamFailsWithTheGivenStatusAfterItsBatches() throws Exception {
    try (VectorSchemaRoot root = VectorSchemaRoot.create(IDS, allocator)) {
      server
          .dataset("fails_after_two", IDS)
          .batch(ids(root, 0, 1))
          .batch(ids(root, 2))
          .fail(Status.UNAVAILABLE.withDescription("backend went away"))
          .endpoint()
          .fail(Status.INTERNAL.withDescription("fails before any batch"))
          .register();
    }
    FlightInfo info = sql.execute("fails_after_two");
    try (FlightStream stream = sql.getStream(info.getEndpoints().get(0).getTicket())) {
      assertThat(stream.next()).isTrue();
      assertThat(stream.next()).isTrue();
      assertThat(stream.getRoot().getRowCount()).isEqualTo(1);
      assertThatThrownBy(stream::next)
          .isInstanceOfSatisfying(
              FlightRuntimeException.class,
              e -> assertThat(e.status().code()).isEqualTo(FlightStatusCode.UNAVAILABLE))
          .hasMessageContaining("backend went away");
    }
    try (FlightStream stream = sql.getStream(info.getEndpoints().get(1).getTicket())) {
      assertThat(stream.getSchema()).isEqualTo(IDS);
      assertThatThrownBy(stream::next)
          .isInstanceOfSatisfying(
              FlightRuntimeException.class,
              e -> assertThat(e.status().code()).isEqualTo(FlightStatusCode.INTERNAL))
          .hasMessageContaining("fails before any batch");
    }
  }

  /**
   * Several megabytes, more than gRPC's flow-control window, so the server waits for the client; a
   * client that closes the stream early cancels the call without harm to the next one.
   */
  @Test
  void largeStreamFollowsTheClientAndMayBeClosedEarly() throws Exception {
    int batches = 100;
    int[] ids = new int[10_000];
    try (VectorSchemaRoot root = VectorSchemaRoot.create(IDS, allocator)) {
      HandBuiltDataset.Builder dataset = server.dataset("large", IDS);
      for (int b = 0; b < batches; b++) {
        for (int i = 0; i < ids.length; i++) {
          ids[i] = b * ids.length + i;
        }
        dataset.batch(ids(root, ids));
      }
      dataset.register();
    }
    FlightInfo info = sql.execute("large");
    try (FlightStream stream = sql.getStream(info.getEndpoints().get(0).getTicket())) {
      assertThat(stream.next()).isTrue();
    }
    long rows = 0;
    int last = -1;
    try (FlightStream stream = sql.getStream(info.getEndpoints().get(0).getTicket())) {
      while (stream.next()) {
        IntVector vector = (IntVector) stream.getRoot().getVector(0);
        rows += stream.getRoot().getRowCount();
        last = vector.get(stream.getRoot().getRowCount() - 1);
      }
    }
    assertThat(rows).isEqualTo((long) batches * ids.length);
    assertThat(last).isEqualTo(batches * ids.length - 1);
  }

  /**
   * Arrow Java getters that do not give the value: Float2Vector.getObject returns the raw half
   * bits, and getObject of unsigned vectors returns the signed (or char) reinterpretation.
   */
  @Test
  void someArrowJavaGettersReturnRawBits() throws Exception {
    FlightInfo floats = sql.execute("float16");
    try (FlightStream stream = sql.getStream(floats.getEndpoints().get(0).getTicket())) {
      assertThat(stream.next()).isTrue();
      Float2Vector vector = (Float2Vector) stream.getRoot().getVector(1);
      assertThat(vector.getObject(0)).isEqualTo((short) 0x3E00);
      assertThat(vector.getValueAsFloat(0)).isEqualTo(1.5f);
    }
    FlightInfo unsigned = sql.execute("unsigned_ints");
    try (FlightStream stream = sql.getStream(unsigned.getEndpoints().get(0).getTicket())) {
      assertThat(stream.next()).isTrue();
      VectorSchemaRoot root = stream.getRoot();
      assertThat(((UInt1Vector) root.getVector("u8")).getObject(1)).isEqualTo((byte) -1);
      assertThat(((UInt2Vector) root.getVector("u16")).getObject(1)).isEqualTo((char) 0xFFFF);
      assertThat(((UInt4Vector) root.getVector("u32")).getObject(1)).isEqualTo(-1);
      assertThat(((UInt8Vector) root.getVector("u64")).getObject(1)).isEqualTo(-1L);
    }
  }

  @Test
  void unknownDatasetIsNotFoundByName() {
    assertThatThrownBy(() -> sql.execute("no_such_dataset"))
        .isInstanceOfSatisfying(
            FlightRuntimeException.class,
            e -> assertThat(e.status().code()).isEqualTo(FlightStatusCode.NOT_FOUND))
        .hasMessageContaining("No dataset named 'no_such_dataset'");
    assertThatThrownBy(() -> sql.getExecuteSchema("no_such_dataset"))
        .isInstanceOfSatisfying(
            FlightRuntimeException.class,
            e -> assertThat(e.status().code()).isEqualTo(FlightStatusCode.NOT_FOUND))
        .hasMessageContaining("'no_such_dataset'");
  }

  @Test
  void preparedStatementsAreUnimplemented() {
    assertThatThrownBy(() -> sql.prepare("float16"))
        .isInstanceOfSatisfying(
            FlightRuntimeException.class,
            e -> assertThat(e.status().code()).isEqualTo(FlightStatusCode.UNIMPLEMENTED));
  }

  @Test
  void batchOfAnotherSchemaIsRefused() {
    Schema two =
        new Schema(
            List.of(
                IDS.getFields().get(0),
                new Field("s", FieldType.nullable(ArrowType.Utf8.INSTANCE), null)));
    try (VectorSchemaRoot root = VectorSchemaRoot.create(IDS, allocator)) {
      assertThatThrownBy(() -> server.dataset("wrong", two).batch(ids(root, 0)))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage("A batch of 1 columns for dataset 'wrong', whose schema has 2");
    }
  }

  @Test
  void dictionaryColumnNeedsADictionaryBatch() {
    Field encoded =
        new Field(
            "code",
            new FieldType(
                true,
                new ArrowType.Int(32, true),
                new DictionaryEncoding(7, false, new ArrowType.Int(32, true))),
            null);
    assertThatThrownBy(() -> server.dataset("undefined", new Schema(List.of(encoded))).register())
        .isInstanceOf(IllegalStateException.class)
        .hasMessage(
            "Column 'code' of dataset 'undefined' is encoded with dictionary 7, but no dictionary"
                + " batch with that id was added");
  }

  private static List<Object> dictionary(FlightStream stream, long id) {
    return ArrowValues.values(
        stream.getDictionaryProvider().lookup(id).getVector(), stream.getDictionaryProvider());
  }

  private static VectorSchemaRoot ids(VectorSchemaRoot root, int... ids) {
    root.allocateNew();
    IntVector vector = (IntVector) root.getVector(0);
    for (int i = 0; i < ids.length; i++) {
      vector.setSafe(i, ids[i]);
    }
    root.setRowCount(ids.length);
    return root;
  }

  private List<Integer> readIds(FlightEndpoint endpoint) throws Exception {
    List<Integer> ids = new ArrayList<>();
    try (FlightStream stream = sql.getStream(endpoint.getTicket())) {
      while (stream.next()) {
        IntVector vector = (IntVector) stream.getRoot().getVector(0);
        for (int i = 0; i < stream.getRoot().getRowCount(); i++) {
          ids.add(vector.get(i));
        }
      }
    }
    return ids;
  }

  /** The schema as a FlightStream's root holds it: dictionary-encoded columns by their indices. */
  private static Schema inMemory(Schema wire) {
    List<Field> fields = new ArrayList<>();
    for (Field field : wire.getFields()) {
      DictionaryEncoding encoding = field.getDictionary();
      fields.add(
          encoding == null
              ? field
              : new Field(
                  field.getName(),
                  new FieldType(
                      field.isNullable(), encoding.getIndexType(), encoding, field.getMetadata()),
                  null));
    }
    return new Schema(fields, wire.getCustomMetadata());
  }
}
