package io.flightsql.spark.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.flightsql.spark.server.CallCountingRelay;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;

/**
 * What a small interactive read costs in calls to a server this project did not write, counted by a
 * {@link CallCountingRelay} in front of it: the first read of the server in the JVM learns what the
 * server gives (and asks no call twice), and every later read of the same kind costs the calls
 * {@link #repeatedReadCalls()} names, the least the server's protocol allows, with no schema probe
 * repeated. The relay's address is new to the connector, so its first read there is a first read of
 * the server. Mixed into a {@link FlightSqlContractSuite}.
 */
interface ReadCallsContract {
  /** A small query of the contract table: 3 of its 5 rows. */
  String SMALL_QUERY = "SELECT id, name FROM " + FlightSqlContractSuite.TABLE + " WHERE id <= 3";

  ServerQuirks quirks();

  SparkSession spark();

  /** The calls of a query read once the server is known, in order (Handshake left out). */
  List<String> repeatedReadCalls();

  /**
   * Reads {@link #SMALL_QUERY} three times through a relay: the first read may learn what the
   * server lacks, asking each schema call once; the second and third cost exactly {@link
   * #repeatedReadCalls()}.
   */
  @Test
  default void aRepeatedSmallReadCostsTheLeastTheServerAllows() throws Exception {
    try (CallCountingRelay relay = CallCountingRelay.start(quirks().uri())) {
      List<List<String>> reads = new ArrayList<>();
      for (int read = 0; read < 3; read++) {
        relay.clear();
        assertThat(
                spark()
                    .read()
                    .format("flightsql")
                    .option("uri", relay.uri())
                    .options(quirks().options())
                    .option("query", SMALL_QUERY)
                    .load()
                    .collectAsList())
            .hasSize(3);
        reads.add(
            relay.calls().stream()
                .filter(call -> !call.startsWith("Handshake"))
                .collect(Collectors.toList()));
      }
      System.out.println(quirks().name() + ": calls of three small reads: " + reads);
      // The first read's query may run twice where the server dropped its ticket before Spark's
      // first task of the session read it (Deephaven drops an unread ticket after a few seconds):
      // the connector then runs the query again. Its schema is asked once.
      assertThat(
              reads.get(0).stream()
                  .filter(call -> call.startsWith("GetSchema") || call.contains("Prepared"))
                  .collect(Collectors.toList()))
          .as("the first read's schema calls")
          .doesNotHaveDuplicates();
      assertThat(reads.get(0)).as("the first read").endsWith("DoGet");
      assertThat(reads.get(1)).as("the second read").isEqualTo(repeatedReadCalls());
      assertThat(reads.get(2)).as("the third read").isEqualTo(repeatedReadCalls());
    }
  }
}
