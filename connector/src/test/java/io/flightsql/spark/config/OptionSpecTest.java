package io.flightsql.spark.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.flightsql.spark.config.FlightSqlWriteConfig.WriteMethod;
import io.flightsql.spark.types.TypeMappingOptions.DecimalOverflow;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class OptionSpecTest {
  private static OptionReader reader(String... keyValues) {
    Map<String, String> map = new HashMap<>();
    for (int i = 0; i < keyValues.length; i += 2) {
      map.put(keyValues[i], keyValues[i + 1]);
    }
    return OptionReader.of(map);
  }

  @Test
  void choicesParseAnyCaseAndListTheirValuesInTheFormAndErrors() {
    assertThat(WriteOptions.WRITE_METHOD.parse("Ingest")).isEqualTo(WriteMethod.INGEST);
    assertThat(WriteOptions.WRITE_METHOD.allowedValues())
        .containsExactly("auto", "ingest", "prepared");
    assertThat(WriteOptions.WRITE_METHOD.form()).isEqualTo("`auto`, `ingest` or `prepared`");
    assertThat(ReadOptions.DECIMAL_OVERFLOW.parse("NULL")).isEqualTo(DecimalOverflow.NULL);
    assertThat(ReadWriteOptions.DIALECT.parse("DuckDB")).isEqualTo("duckdb");
    assertThat(ReadWriteOptions.DIALECT.allowedValues())
        .containsExactly("auto", "ansi", "duckdb", "sqlite", "derby", "mysql", "spark");
    assertThatThrownBy(() -> ReadOptions.NANOSECONDS.parse("round"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "Invalid value 'round' for option 'nanoseconds': expected `truncate` or `error`");
  }

  @Test
  void defaultsAreTypedAndPrintedAsUsersWriteThem() {
    assertThat(WriteOptions.WRITE_METHOD.defaultValue()).contains(WriteMethod.AUTO);
    assertThat(WriteOptions.WRITE_METHOD.defaultText()).contains("auto");
    assertThat(ConnectionOptions.CONNECT_TIMEOUT.defaultValue()).contains(Duration.ofSeconds(30));
    assertThat(ConnectionOptions.CONNECT_TIMEOUT.defaultText()).contains("30s");
    assertThat(WriteOptions.BATCH_BYTES.defaultText()).contains("3145728");
    assertThat(ConnectionOptions.MAX_INBOUND_MESSAGE_SIZE.defaultText()).contains("268435456");
    assertThat(ReadOptions.PUSH_DOWN_TOP_N.defaultValue()).contains(true);
    assertThat(ConnectionOptions.CALL_TIMEOUT.defaultValue()).isEmpty();
    assertThat(ConnectionOptions.URI.defaultText()).isEmpty();
    for (OptionSpec<?> spec : FlightSqlOptions.all()) {
      if (spec.isSecret()) {
        assertThat(spec.defaultValue()).as(spec.name()).isEmpty();
      }
      spec.defaultText()
          .ifPresent(text -> assertThat(reparsed(spec, text)).as(spec.name()).isTrue());
    }
  }

  /** Every default, printed, reads back as itself: the docs show a value the option accepts. */
  private static <T> boolean reparsed(OptionSpec<T> spec, String text) {
    return spec.parse(text).equals(spec.defaultValue().get());
  }

  @Test
  void theReaderFallsBackToTheDefaultAndNamesARequiredOption() {
    assertThat(reader().value(WriteOptions.BATCH_SIZE)).isEqualTo(65536);
    assertThat(reader("batchsize", " 10 ").value(WriteOptions.BATCH_SIZE)).isEqualTo(10);
    assertThat(reader("batchSize", "  ").value(WriteOptions.BATCH_SIZE)).isEqualTo(65536);
    assertThat(reader().optional(ReadOptions.NUM_PARTITIONS)).isEmpty();
    assertThatThrownBy(() -> reader().value(ReadOptions.NUM_PARTITIONS))
        .hasMessage("Option 'numPartitions' is required: expected a positive integer");
  }

  @Test
  void numbersAndDurationsNameTheOptionAndWhy() {
    assertThatThrownBy(() -> WriteOptions.BATCH_SIZE.parse("abc"))
        .hasMessage(
            "Invalid value 'abc' for option 'batchSize': expected a positive number of rows");
    assertThatThrownBy(() -> WriteOptions.BATCH_SIZE.parse("2147483648"))
        .hasMessage(
            "Invalid value '2147483648' for option 'batchSize': expected a positive number of rows"
                + " (at most 2147483647)");
    assertThat(WriteOptions.BATCH_BYTES.parse("2147483648")).isEqualTo(2_147_483_648L);
    assertThat(ConnectionOptions.CALL_TIMEOUT.parse("1H")).isEqualTo(Duration.ofHours(1));
    assertThat(ConnectionOptions.CALL_TIMEOUT.parse("250 ms")).isEqualTo(Duration.ofMillis(250));
    assertThat(ConnectionOptions.CALL_TIMEOUT.format(Duration.ofMillis(1500))).isEqualTo("1500ms");
    assertThat(ConnectionOptions.CALL_TIMEOUT.format(Duration.ofMinutes(2))).isEqualTo("2m");
  }

  @Test
  void secretValuesAreNeverShownInErrors() {
    assertThat(ConnectionOptions.PASSWORD.invalid("hunter2", "too short").getMessage())
        .isEqualTo("Invalid value '*****' for option 'password': expected a password (too short)");
  }

  @Test
  void predicatesAreAListOfConditions() {
    assertThat(ReadOptions.PREDICATES.parse("[\"a = 1\", \"b = 'x'\"]"))
        .containsExactly("a = 1", "b = 'x'");
    String text = ReadOptions.PREDICATES.format(Arrays.asList("s = 'a\"b'", "t\\u\n"));
    assertThat(ReadOptions.PREDICATES.parse(text)).containsExactly("s = 'a\"b'", "t\\u\n");
  }

  @Test
  void theRegistryFindsEveryOptionOnceAndHeadersByPrefix() {
    assertThat(FlightSqlOptions.find("PARTITIONCOLUMN")).contains(ReadOptions.PARTITION_COLUMN);
    assertThat(FlightSqlOptions.find("header.x-tenant")).contains(ConnectionOptions.HEADER);
    assertThat(FlightSqlOptions.find("header.")).isEmpty();
    assertThat(ConnectionOptions.HEADER.prefix()).contains("header.");
    assertThat(FlightSqlOptions.isKnown("path")).isTrue();
    assertThat(FlightSqlOptions.isKnown("__FLIGHTSQL_WRITE_PLAN")).isFalse();
    assertThat(FlightSqlOptions.isKnown("partitionColum")).isFalse();
    assertThat(FlightSqlOptions.all()).hasSize(61).doesNotHaveDuplicates();
  }
}
