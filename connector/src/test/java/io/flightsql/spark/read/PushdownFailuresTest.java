package io.flightsql.spark.read;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.flightsql.spark.client.metadata.ServerFacts;
import io.flightsql.spark.client.transport.Allocators;
import io.flightsql.spark.client.transport.FlightSqlConnectorException;
import io.flightsql.spark.config.FlightSqlReadConfig;
import io.flightsql.spark.dialect.ResolvedDialect;
import io.flightsql.spark.server.DuckDbFlightSqlServer;
import io.flightsql.spark.testing.ArrowLeakCheckExtension;
import io.flightsql.spark.testing.HandBuiltFlightSqlServer;
import io.flightsql.spark.testing.LogCapture;
import io.flightsql.spark.testing.SparkSessionExtension;
import java.io.IOException;
import java.net.ServerSocket;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.spark.sql.connector.expressions.Expression;
import org.apache.spark.sql.connector.expressions.Expressions;
import org.apache.spark.sql.connector.expressions.aggregate.AggregateFunc;
import org.apache.spark.sql.connector.expressions.aggregate.Aggregation;
import org.apache.spark.sql.connector.expressions.aggregate.CountStar;
import org.apache.spark.sql.connector.expressions.filter.Predicate;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * What pushdown does when asking the server fails. A server that refuses a probe's SQL has
 * answered: that step stays with Spark and the read works. A failure of the call itself
 * (credentials refused, the server out of reach) is raised as such, with the server's words,
 * instead of being taken for "nothing pushed"; the one session the scan builder asks through is
 * closed either way.
 */
@ExtendWith(ArrowLeakCheckExtension.class)
class PushdownFailuresTest {
  private static final String PASSWORD = "pw-Secr3t-pushdown";
  private static final StructType ID = new StructType().add("id", DataTypes.LongType, false);

  @RegisterExtension static final SparkSessionExtension spark = SparkSessionExtension.local();

  private static DuckDbFlightSqlServer duckDb(String... without) throws IOException {
    DuckDbFlightSqlServer server =
        DuckDbFlightSqlServer.builder().port(0).lineitemRows(0).without(without).start();
    server.execute("CREATE TABLE t AS SELECT i AS id FROM range(10) r(i)");
    return server;
  }

  private static FlightSqlReadConfig config(String uri) {
    return FlightSqlReadConfig.from(Map.of("uri", uri, "dbtable", "t", "maxRetries", "0"));
  }

  private static FlightSqlScanBuilder builder(String uri) {
    return new FlightSqlScanBuilder(ID, config(uri), null, new AtomicReference<>());
  }

  private static Predicate idAbove(long value) {
    return new Predicate(
        ">", new Expression[] {Expressions.column("id"), Expressions.literal(value)});
  }

  /** The messages of an exception and its causes, one a line. */
  private static String messages(Throwable e) {
    StringBuilder out = new StringBuilder();
    for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
      out.append(t.getMessage()).append('\n');
    }
    return out.toString();
  }

  /**
   * With a schema given, no call precedes pushdown: the first is GetSqlInfo, for the dialect. Its
   * refusal of the credentials fails planning with the server's words, where it used to be logged
   * as "nothing is pushed" and the read sent on without its filter.
   */
  @Test
  void refusedCredentialsSurfaceFromPushdownWithTheServersWords() throws Exception {
    try (DuckDbFlightSqlServer server =
            DuckDbFlightSqlServer.builder()
                .port(0)
                .lineitemRows(0)
                .basicAuth("alice", PASSWORD)
                .start();
        LogCapture logs = LogCapture.start()) {
      // The user schema is checked against the server's at load, so the failure may come there.
      assertThatThrownBy(
              () ->
                  spark
                      .session()
                      .read()
                      .schema(ID)
                      .format("flightsql")
                      .option("uri", server.uri())
                      .option("username", "alice")
                      .option("password", "wrong-pw")
                      .option("dbtable", "t")
                      .load()
                      .filter("id > 5")
                      .queryExecution()
                      .optimizedPlan())
          .satisfies(
              e ->
                  assertThat(messages(e))
                      .contains("failed for " + server.uri() + ": UNAUTHENTICATED: ")
                      .contains("basic authentication (Handshake) as user 'alice' failed")
                      .contains("Check the credentials")
                      .doesNotContain("wrong-pw"));
      assertThat(logs.text()).doesNotContain("Nothing is pushed");
    }
  }

  @Test
  void anUnreachableServerSurfacesFromPushdown() throws Exception {
    int port;
    try (ServerSocket socket = new ServerSocket(0)) {
      port = socket.getLocalPort();
    }
    String uri = "grpc://127.0.0.1:" + port;
    assertThatThrownBy(
            () ->
                spark
                    .session()
                    .read()
                    .schema(ID)
                    .format("flightsql")
                    .option("uri", uri)
                    .option("maxRetries", "0")
                    .option("dbtable", "t")
                    .load()
                    .filter("id > 5")
                    .queryExecution()
                    .optimizedPlan())
        .satisfies(
            e ->
                assertThat(messages(e))
                    .contains("failed for " + uri + ": UNAVAILABLE: ")
                    .contains("Check that the server is running"));
  }

  /**
   * A guessed dialect has each step checked by the server: the server going away between two steps
   * fails the next check with UNAVAILABLE, and the probe session is closed.
   */
  @Test
  void aServerLostBetweenTwoChecksOfAGuessedDialectFailsTheNextOne() throws Exception {
    DuckDbFlightSqlServer server = duckDb("GetSqlInfo");
    String uri = server.uri();
    FlightSqlScanBuilder builder;
    AtomicReference<ResolvedDialect> dialect = new AtomicReference<>();
    try {
      builder = new FlightSqlScanBuilder(ID, config(uri), null, dialect);
      assertThat(builder.pushPredicates(new Predicate[] {idAbove(5)})).isEmpty();
      assertThat(dialect.get().sqlGuessed()).isTrue();
      assertThat(dialect.get().quoting()).isEqualTo(ResolvedDialect.Quoting.PROBE);
    } finally {
      server.close();
    }
    assertThatThrownBy(() -> builder.pushLimit(3))
        .isInstanceOf(FlightSqlConnectorException.class)
        .hasMessageContaining("failed for " + uri + ": UNAVAILABLE: ");
  }

  /** The aggregate's schema is asked whatever the dialect: the same there. */
  @Test
  void aServerLostBeforeTheAggregateIsCheckedFailsThePushedAggregation() throws Exception {
    DuckDbFlightSqlServer server = duckDb();
    String uri = server.uri();
    FlightSqlScanBuilder builder;
    try {
      builder = builder(uri);
      assertThat(builder.pushPredicates(new Predicate[] {idAbove(5)})).isEmpty();
    } finally {
      server.close();
    }
    Aggregation count = new Aggregation(new AggregateFunc[] {new CountStar()}, new Expression[0]);
    assertThatThrownBy(() -> builder.pushAggregation(count))
        .isInstanceOf(FlightSqlConnectorException.class)
        .hasMessageContaining("failed for " + uri + ": UNAVAILABLE: ");
  }

  /**
   * A server that refuses the checked SQL has answered: the filter stays with Spark, the scan sends
   * the table as it is, and build() closes the session the checks used.
   */
  @Test
  void aRefusedCheckIsAnAnswerAndTheWorkStaysWithSpark() throws Exception {
    ServerFacts.forgetAll();
    try (HandBuiltFlightSqlServer server = HandBuiltFlightSqlServer.start();
        BufferAllocator allocator = new RootAllocator()) {
      // The quoting probe finds ANSI quotes; nothing else is known to the server, so it refuses
      // the filter's check (NOT_FOUND naming the query) and the NULL comparison probe.
      Schema one =
          new Schema(
              List.of(new Field("c", FieldType.nullable(new ArrowType.Int(32, true)), null)));
      try (VectorSchemaRoot root = VectorSchemaRoot.create(one, allocator)) {
        root.allocateNew();
        ((IntVector) root.getVector(0)).setSafe(0, 1);
        root.setRowCount(1);
        server.dataset("SELECT \"c\" FROM (SELECT 1 AS c) t", one).batch(root).register();
      }
      Schema ids =
          new Schema(
              List.of(new Field("id", FieldType.notNullable(new ArrowType.Int(64, true)), null)));
      try (VectorSchemaRoot root = VectorSchemaRoot.create(ids, allocator)) {
        root.allocateNew();
        ((BigIntVector) root.getVector(0)).setSafe(0, 7);
        root.setRowCount(1);
        server.dataset("SELECT * FROM t", ids).batch(root).register();
      }
      FlightSqlScanBuilder builder =
          new FlightSqlScanBuilder(ID, config(server.uri()), Set.of("id"), new AtomicReference<>());
      Predicate above = idAbove(5);
      assertThat(builder.pushPredicates(new Predicate[] {above})).containsExactly(above);
      assertThat(builder.pushedPredicates()).isEmpty();
      assertThat(builder.build().description())
          .contains("Dialect: ansi", "PushedFilters: []", "SQL: SELECT * FROM t]");
    }
  }

  /**
   * A builder that Spark drops without building it (another optimizer rule failing after its
   * pushdown) does not keep its probe session: the session's allocator is closed once the garbage
   * collector finds the builder unreachable.
   */
  @Test
  void theProbeSessionOfADroppedBuilderIsClosed() throws Exception {
    try (DuckDbFlightSqlServer server = duckDb()) {
      long before = Allocators.openChildren();
      openProbeSessionAndDrop(server.uri());
      assertThat(Allocators.openChildren())
          .as("the probe session's allocator")
          .isEqualTo(before + 1);
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (Allocators.openChildren() > before && System.nanoTime() < deadline) {
        System.gc();
        Thread.sleep(20);
      }
      assertThat(Allocators.openChildren())
          .as("allocators open once the builder is gone")
          .isEqualTo(before);
    }
  }

  /** Opens a builder's probe session, as its first probe does, and keeps no reference to it. */
  private static void openProbeSessionAndDrop(String uri) {
    new PushdownProbes(config(uri)).session();
  }

  /** Which failures are answers (nothing pushed) and which are raised, by status. */
  @Test
  void aFailureOfTheCallIsRaisedAndARefusalOfTheSqlIsAnAnswer() {
    try (PushdownProbes probes = new PushdownProbes(config("grpc://127.0.0.1:1"))) {
      for (String status :
          List.of("UNAUTHENTICATED", "UNAUTHORIZED", "UNAVAILABLE", "CANCELLED", "TIMED_OUT")) {
        FlightSqlConnectorException failure = failure(status);
        assertThatThrownBy(() -> probes.raiseUnlessAnswer(failure)).as(status).isSameAs(failure);
      }
      for (String status : List.of("INVALID_ARGUMENT", "NOT_FOUND", "INTERNAL", "UNIMPLEMENTED")) {
        probes.raiseUnlessAnswer(failure(status));
      }
    }
  }

  private static FlightSqlConnectorException failure(String status) {
    return new FlightSqlConnectorException(
        "[flightsql] GetSchema failed for grpc://127.0.0.1:1: " + status + ": the server's words",
        status,
        "the server's words",
        null);
  }
}
