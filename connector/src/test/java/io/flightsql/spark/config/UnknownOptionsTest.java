package io.flightsql.spark.config;

import static org.assertj.core.api.Assertions.assertThat;

import io.flightsql.spark.testing.LogCapture;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class UnknownOptionsTest {
  private static Map<String, String> options(String... keyValues) {
    Map<String, String> map = new HashMap<>();
    map.put("uri", "grpc://127.0.0.1:31337");
    map.put("dbtable", "t");
    for (int i = 0; i < keyValues.length; i += 2) {
      map.put(keyValues[i], keyValues[i + 1]);
    }
    return map;
  }

  private static String warnings(Runnable build) {
    try (LogCapture log = LogCapture.start()) {
      build.run();
      StringBuilder out = new StringBuilder();
      for (String line : log.text().split("\n")) {
        if (line.startsWith(UnknownOptions.class.getName() + ": ")) {
          out.append(line.substring(UnknownOptions.class.getName().length() + 2)).append('\n');
        }
      }
      return out.toString();
    }
  }

  @Test
  void aMisspeltOptionIsNamedWithTheClosestKnownOneButNotItsValue() {
    String logged =
        warnings(
            () ->
                FlightSqlReadConfig.from(
                    options("partitionColum", "s3cret-column", "pasword", "pw")));
    assertThat(logged)
        .isEqualTo(
            "Option 'partitionColum' is not an option of the flightsql data source and is"
                + " ignored; did you mean 'partitionColumn'?\n"
                + "Option 'pasword' is not an option of the flightsql data source and is ignored;"
                + " did you mean 'password'?\n")
        .doesNotContain("s3cret")
        .doesNotContain("'pw'");
  }

  @Test
  void aNameFarFromEveryOptionGetsNoSuggestion() {
    assertThat(warnings(() -> FlightSqlWriteConfig.from(options("sslmode", "require"))))
        .isEqualTo(
            "Option 'sslmode' is not an option of the flightsql data source and is ignored;"
                + " see docs/configuration.md for the options it knows\n");
  }

  @Test
  void sparksOwnOptionsHeadersAndKnownNamesInAnyCaseAreNotWarnedOf() {
    assertThat(
            warnings(
                () ->
                    FlightSqlWriteConfig.from(
                        options(
                            "path", "/x",
                            "paths", "[]",
                            "header.x-tenant", "acme",
                            "BATCHSIZE", "10",
                            "partitionColumn", "id"))))
        .isEmpty();
  }

  @Test
  void closestUsesTheEditDistance() {
    assertThat(UnknownOptions.distance("kitten", "sitting")).isEqualTo(3);
    assertThat(UnknownOptions.distance("", "abc")).isEqualTo(3);
    assertThat(UnknownOptions.closest("dbtabel")).contains("dbtable");
    assertThat(UnknownOptions.closest("PushDownLimits")).contains("pushDownLimit");
    assertThat(UnknownOptions.closest("headers.x-tenant")).isEmpty();
    assertThat(UnknownOptions.closest("headr.")).contains("header.<name>");
    assertThat(UnknownOptions.closest("xyz")).isEmpty();
  }
}
