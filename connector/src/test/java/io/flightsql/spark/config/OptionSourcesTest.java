package io.flightsql.spark.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class OptionSourcesTest {
  private static Map<String, String> map(String... keyValues) {
    Map<String, String> map = new HashMap<>();
    for (int i = 0; i < keyValues.length; i += 2) {
      map.put(keyValues[i], keyValues[i + 1]);
    }
    return map;
  }

  private static final Map<String, String> SESSION =
      map(
          "spark.datasource.flightsql.uri", "grpc://session:1",
          "spark.datasource.flightsql.batchSize", "7",
          "spark.datasource.flightsql.pushDownLimit", "false",
          "spark.datasource.other.uri", "grpc://other:1",
          "spark.sql.shuffle.partitions", "2",
          "spark.datasource.flightsql.", "nameless");

  @Test
  void explicitBeatsSessionWhichBeatsTheDefault() {
    Map<String, String> merged =
        OptionSources.explicit(map("URI", "grpc://explicit:1", "dbtable", "t"))
            .withSessionConf(SESSION)
            .merged();
    assertThat(merged)
        .containsOnly(
            Map.entry("URI", "grpc://explicit:1"),
            Map.entry("dbtable", "t"),
            Map.entry("batchSize", "7"),
            Map.entry("pushDownLimit", "false"));
    FlightSqlWriteConfig write = FlightSqlWriteConfig.from(merged);
    assertThat(write.uri().toString()).isEqualTo("grpc://explicit:1");
    assertThat(write.batchRows()).isEqualTo(7);
    assertThat(write.batchBytes()).isEqualTo(3_145_728L);
    FlightSqlReadConfig read = FlightSqlReadConfig.from(merged);
    assertThat(read.pushDownLimit()).isFalse();
    assertThat(read.pushDownOffset()).isTrue();
  }

  @Test
  void aBlankExplicitOptionUnsetsTheSessionValue() {
    Map<String, String> merged =
        OptionSources.explicit(map("dbtable", "t", "batchsize", " "))
            .withSessionConf(SESSION)
            .merged();
    assertThat(merged).containsEntry("batchsize", " ").doesNotContainKey("batchSize");
    assertThat(FlightSqlWriteConfig.from(merged).batchRows()).isEqualTo(65536);
  }

  @Test
  void catalogPropertiesComeBelowTheSessionAndAboveTheDefault() {
    Map<String, String> merged =
        OptionSources.explicit(map("dbtable", "t", "BATCHSIZE", "3"))
            .withSessionConf(SESSION)
            .withCatalogProperties(
                map(
                    "uri", "grpc://catalog:1",
                    "batchSize", "5",
                    "pushDownLimit", "true",
                    "pushDownOffset", "false"))
            .merged();
    assertThat(merged)
        .containsOnly(
            Map.entry("dbtable", "t"),
            Map.entry("BATCHSIZE", "3"),
            Map.entry("uri", "grpc://session:1"),
            Map.entry("pushDownLimit", "false"),
            Map.entry("pushDownOffset", "false"));
    FlightSqlReadConfig read = FlightSqlReadConfig.from(merged);
    assertThat(read.uri().toString()).isEqualTo("grpc://session:1");
    assertThat(read.pushDownOffset()).isFalse();
    assertThat(read.pushDownTopN()).isTrue();
  }

  @Test
  void withoutSessionConfTheExplicitOptionsAreAll() {
    assertThat(OptionSources.explicit(map("a", "1")).merged()).containsOnly(Map.entry("a", "1"));
  }
}
