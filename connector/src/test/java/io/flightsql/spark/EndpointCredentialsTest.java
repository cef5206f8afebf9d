package io.flightsql.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.flightsql.spark.testing.ArrowLeakCheckExtension;
import io.flightsql.spark.testing.HandBuiltFlightSqlServer;
import io.flightsql.spark.testing.HandBuiltFlightSqlServer.ReceivedCall;
import io.flightsql.spark.testing.SparkSessionExtension;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Where a read's credentials go when the server's endpoints name other hosts: a coordinator on
 * 127.0.0.1 plans, and its endpoints send the DoGet to a worker on 127.0.0.2 (another loopback
 * address, standing for another machine). Both are real Flight servers that record the headers of
 * every call they receive. The credentials (a token and a {@code header.*} value) go to the worker
 * only when option {@code credentialHosts} names it; otherwise the read fails naming the location
 * and the option, and the worker receives no call at all.
 */
@ExtendWith(ArrowLeakCheckExtension.class)
class EndpointCredentialsTest {
  private static final String TOKEN = "tok-Secr3t-endpoint";
  private static final String API_KEY = "key-Secr3t-endpoint";
  private static final int ROWS = 1_000;

  @RegisterExtension static final SparkSessionExtension spark = SparkSessionExtension.local();

  private static HandBuiltFlightSqlServer coordinator;
  private static HandBuiltFlightSqlServer worker;
  private static HandBuiltFlightSqlServer sameHost;

  @BeforeAll
  static void start() {
    coordinator = HandBuiltFlightSqlServer.start("127.0.0.1");
    worker = HandBuiltFlightSqlServer.start("127.0.0.2");
    sameHost = HandBuiltFlightSqlServer.start("127.0.0.1");
    for (HandBuiltFlightSqlServer server : List.of(coordinator, worker, sameHost)) {
      registerIds(server);
    }
  }

  /** Serves {@code ids}, one endpoint of {@link #ROWS} BIGINTs; any server's ticket names it. */
  private static void registerIds(HandBuiltFlightSqlServer server) {
    Schema schema = new Schema(List.of(Field.notNullable("id", new ArrowType.Int(64, true))));
    try (BufferAllocator allocator = new RootAllocator();
        VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator)) {
      BigIntVector id = (BigIntVector) root.getVector(0);
      id.allocateNew(ROWS);
      for (int i = 0; i < ROWS; i++) {
        id.set(i, i);
      }
      root.setRowCount(ROWS);
      server.dataset("ids", schema).batch(root).register();
    }
  }

  @AfterAll
  static void stop() {
    for (HandBuiltFlightSqlServer server :
        new HandBuiltFlightSqlServer[] {coordinator, worker, sameHost}) {
      if (server != null) {
        server.close();
      }
    }
  }

  @BeforeEach
  void endpointsNameTheWorker() {
    coordinator.endpointLocations(worker.uri());
  }

  private static long read(Map<String, String> extra) {
    Map<String, String> options = new HashMap<>();
    options.put("uri", coordinator.uri());
    options.put("query", "ids");
    options.put("token", TOKEN);
    options.put("header.x-api-key", API_KEY);
    options.putAll(extra);
    return spark
        .session()
        .read()
        .format("flightsql")
        .options(options)
        .load()
        .collectAsList()
        .size();
  }

  private static List<ReceivedCall> doGets(HandBuiltFlightSqlServer server) {
    return server.calls().stream().filter(c -> c.method().equals("DoGet")).toList();
  }

  private static void assertCarriedTheCredentials(List<ReceivedCall> calls) {
    assertThat(calls).isNotEmpty();
    for (ReceivedCall call : calls) {
      assertThat(call.headers())
          .containsEntry("authorization", "Bearer " + TOKEN)
          .containsEntry("x-api-key", API_KEY);
    }
  }

  @Test
  void aLocationOnAnotherHostFailsTheReadNamingItAndTheOptionAndReceivesNothing() {
    int before = worker.calls().size();
    assertThatThrownBy(() -> read(Map.of()))
        .hasMessageContaining("[flightsql] DoGet refused for " + worker.uri())
        .hasMessageContaining(
            "the endpoint location is on host '127.0.0.2', which is neither the host of option"
                + " 'uri' ('127.0.0.1') nor one named by option 'credentialHosts', and the"
                + " connection's credentials (token, header.x-api-key) go to no other host;"
                + " nothing was sent to it")
        .hasMessageContaining(".option(\"credentialHosts\", \"127.0.0.2\")")
        .satisfies(e -> assertThat(String.valueOf(e)).doesNotContain(TOKEN, API_KEY));
    assertThat(worker.calls()).hasSize(before);
  }

  @Test
  void aLocationOnAHostTheOptionNamesGetsTheCredentials() {
    int before = doGets(worker).size();
    assertThat(read(Map.of("credentialHosts", "10.9.9.9, 127.0.0.2"))).isEqualTo(ROWS);
    List<ReceivedCall> calls = doGets(worker);
    assertCarriedTheCredentials(calls.subList(before, calls.size()));
  }

  @Test
  void aStarNamesAnyHost() {
    int before = doGets(worker).size();
    assertThat(read(Map.of("credentialHosts", "*"))).isEqualTo(ROWS);
    List<ReceivedCall> calls = doGets(worker);
    assertCarriedTheCredentials(calls.subList(before, calls.size()));
  }

  @Test
  void aDomainWildcardNamesNoAddress() {
    assertThatThrownBy(() -> read(Map.of("credentialHosts", "*.0.0.2")))
        .hasMessageContaining("[flightsql] DoGet refused for " + worker.uri());
  }

  @Test
  void aRefusedLocationIsSkippedForTheNextOneOnTheHostOfUri() {
    coordinator.endpointLocations(worker.uri(), coordinator.uri());
    int before = worker.calls().size();
    assertThat(read(Map.of())).isEqualTo(ROWS);
    assertThat(worker.calls()).hasSize(before);
  }

  @Test
  void aLocationOnTheHostOfUriGetsTheCredentialsOnAnyPortWithoutTheOption() {
    coordinator.endpointLocations(sameHost.uri());
    int before = doGets(sameHost).size();
    assertThat(read(Map.of())).isEqualTo(ROWS);
    List<ReceivedCall> calls = doGets(sameHost);
    assertCarriedTheCredentials(calls.subList(before, calls.size()));

    coordinator.endpointLocations("arrow-flight-reuse-connection://?");
    before = doGets(coordinator).size();
    assertThat(read(Map.of())).isEqualTo(ROWS);
    calls = doGets(coordinator);
    assertCarriedTheCredentials(calls.subList(before, calls.size()));
  }

  /**
   * Basic authentication with a coordinator and a worker that each issue their own token: the
   * worker refuses the coordinator's, so the connector logs in to the worker itself, and no token
   * goes to a server that did not issue it (beyond the coordinator's, which named workers get
   * first). Without the option, the worker receives no call, not even a login.
   */
  @Test
  void aBasicLoginGoesToANamedWorkerWhenItRefusesTheCoordinatorsToken() {
    String user = "alice-" + System.nanoTime();
    String password = "pw-Secr3t-login";
    try (HandBuiltFlightSqlServer front = HandBuiltFlightSqlServer.start("127.0.0.1");
        HandBuiltFlightSqlServer back = HandBuiltFlightSqlServer.start("127.0.0.2")) {
      registerIds(front);
      registerIds(back);
      front.requireBasicLogin(user, password, "front-token");
      back.requireBasicLogin(user, password, "back-token");
      front.endpointLocations(back.uri());
      Map<String, String> options = new HashMap<>();
      options.put("uri", front.uri());
      options.put("query", "ids");
      options.put("username", user);
      options.put("password", password);

      assertThatThrownBy(
              () ->
                  spark
                      .session()
                      .read()
                      .format("flightsql")
                      .options(options)
                      .load()
                      .collectAsList())
          .hasMessageContaining("[flightsql] DoGet refused for " + back.uri())
          .hasMessageContaining("the connection's credentials (username/password)");
      assertThat(back.calls()).isEmpty();

      options.put("credentialHosts", "127.0.0.2");
      assertThat(spark.session().read().format("flightsql").options(options).load().collectAsList())
          .hasSize(ROWS);
      assertThat(back.calls())
          .extracting(c -> c.method() + " " + c.headers().get("authorization"))
          .containsSubsequence(
              "DoGet Bearer front-token",
              "Handshake " + front.calls().get(0).headers().get("authorization"),
              "DoGet Bearer back-token");
      assertThat(front.calls())
          .extracting(c -> c.headers().get("authorization"))
          .doesNotContain("Bearer back-token");
    }
  }

  @Test
  void aReadWithoutCredentialsReadsAnotherHostAndSendsItNone() {
    int before = doGets(worker).size();
    long rows =
        spark
            .session()
            .read()
            .format("flightsql")
            .option("uri", coordinator.uri())
            .option("query", "ids")
            .load()
            .collectAsList()
            .size();
    assertThat(rows).isEqualTo(ROWS);
    List<ReceivedCall> calls = doGets(worker);
    assertThat(calls.subList(before, calls.size()))
        .isNotEmpty()
        .allSatisfy(
            call -> assertThat(call.headers()).doesNotContainKeys("authorization", "cookie"));
  }
}
