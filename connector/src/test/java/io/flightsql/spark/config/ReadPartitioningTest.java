package io.flightsql.spark.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ReadPartitioningTest {
  private static ReadPartitioning read(String... keyValues) {
    Map<String, String> map = new HashMap<>();
    map.put("uri", "grpc://127.0.0.1:31337");
    map.put("dbtable", "t");
    for (int i = 0; i < keyValues.length; i += 2) {
      map.put(keyValues[i], keyValues[i + 1]);
    }
    return FlightSqlReadConfig.from(map).partitioning();
  }

  @Test
  void withoutOptionsTheServerEndpointsArePartitions() {
    assertThat(read().isClientSide()).isFalse();
    assertThat(read().toString()).isEqualTo("server endpoints");
  }

  @Test
  void theFourColumnOptionsTogether() {
    ReadPartitioning p =
        read("PartitionColumn", "id", "lowerBound", "1", "upperbound", "100", "numPartitions", "4");
    assertThat(p.isClientSide()).isTrue();
    assertThat(p.column()).contains("id");
    assertThat(p.lowerBound()).isEqualTo("1");
    assertThat(p.upperBound()).isEqualTo("100");
    assertThat(p.numPartitions()).isEqualTo(4);
    assertThat(p.predicates()).isEmpty();
  }

  @Test
  void aMissingColumnOptionIsNamed() {
    assertThatThrownBy(() -> read("partitionColumn", "id", "lowerBound", "1", "numPartitions", "4"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "Options 'partitionColumn', 'lowerBound', 'upperBound' and 'numPartitions' must be"
                + " given together: 'partitionColumn', 'lowerBound' and 'numPartitions' are given,"
                + " 'upperBound' is missing");
    assertThatThrownBy(() -> read("numPartitions", "4"))
        .hasMessageEndingWith(
            "'numPartitions' is given, 'partitionColumn', 'lowerBound' and 'upperBound' are"
                + " missing");
  }

  @Test
  void numPartitionsMustBeAPositiveInteger() {
    assertThatThrownBy(
            () ->
                read(
                    "partitionColumn",
                    "id",
                    "lowerBound",
                    "1",
                    "upperBound",
                    "9",
                    "numPartitions",
                    "0"))
        .hasMessage(
            "Invalid value '0' for option 'numPartitions': expected a positive integer (at most"
                + " 2147483647)");
    assertThatThrownBy(
            () ->
                read(
                    "partitionColumn",
                    "id",
                    "lowerBound",
                    "1",
                    "upperBound",
                    "9",
                    "numPartitions",
                    "four"))
        .hasMessage("Invalid value 'four' for option 'numPartitions': expected a positive integer");
  }

  @Test
  void predicatesAreAJsonArrayOfStrings() {
    ReadPartitioning p =
        read("predicates", " [\"a < 'x,\\\"y'\", \"b IS NULL\\nOR c = 1\" , \"\\u00e9 = 2\"] ");
    assertThat(p.isClientSide()).isTrue();
    assertThat(p.column()).isEmpty();
    assertThat(p.predicates().get()).containsExactly("a < 'x,\"y'", "b IS NULL\nOR c = 1", "é = 2");
    assertThat(p.toString()).isEqualTo("predicates=3");
  }

  @Test
  void malformedPredicatesNameTheOptionAndWhatIsWrong() {
    assertThatThrownBy(() -> read("predicates", "a < 1"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith(
            "Invalid value 'a < 1' for option 'predicates': expected a JSON array")
        .hasMessageEndingWith("(expected a JSON array starting with '[' at character 1)");
    assertThatThrownBy(() -> read("predicates", "[\"a < 1\" \"b\"]"))
        .hasMessageEndingWith("(expected ',' or ']' at character 10)");
    assertThatThrownBy(() -> read("predicates", "[\"a < 1\""))
        .hasMessageContaining("the text ends where");
    assertThatThrownBy(() -> read("predicates", "[\"a\"] x"))
        .hasMessageEndingWith("(unexpected text after the array at character 7)");
    assertThatThrownBy(() -> read("predicates", "[]")).hasMessageEndingWith("(the array is empty)");
    assertThatThrownBy(() -> read("predicates", "[\"a\", \" \"]"))
        .hasMessageEndingWith("(condition 2 is blank)");
    assertThatThrownBy(() -> read("predicates", "[1]"))
        .hasMessageEndingWith("(expected a string in double quotes at character 2)");
  }

  @Test
  void predicatesAndPartitionColumnCannotBeCombined() {
    assertThatThrownBy(
            () -> read("predicates", "[\"a = 1\"]", "partitionColumn", "id", "numPartitions", "2"))
        .hasMessage(
            "Option 'predicates' cannot be used together with 'partitionColumn' and"
                + " 'numPartitions'; use 'predicates' for WHERE clauses of your own, or"
                + " 'partitionColumn' with 'lowerBound', 'upperBound' and 'numPartitions' for"
                + " ranges of one column");
  }
}
