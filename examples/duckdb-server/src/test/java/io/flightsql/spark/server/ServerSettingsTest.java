package io.flightsql.spark.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.FlightStatusCode;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.junit.jupiter.api.Test;

/** Extra DuckDB settings: from the builder and the command line, checked, and applied. */
@SuppressWarnings("try") // Arrow's FlightSqlClient close() declares Exception
class ServerSettingsTest {

  @Test
  void rendersEveryValueAsAStringLiteral() {
    assertThat(new DuckDbSetting("produce_arrow_string_view", "true").sql())
        .isEqualTo("SET GLOBAL produce_arrow_string_view = 'true'");
    assertThat(new DuckDbSetting("TimeZone", "it's; DROP TABLE lineitem; --").sql())
        .isEqualTo("SET GLOBAL TimeZone = 'it''s; DROP TABLE lineitem; --'");
    assertThat(DuckDbSetting.parse("arrow_output_version = 1.4"))
        .isEqualTo(new DuckDbSetting("arrow_output_version", "1.4"));
    assertThat(DuckDbSetting.parse("memory_limit=").value()).isEmpty();
  }

  @Test
  void keepsCredentialsOutOfLogsAndMessages() {
    assertThat(new DuckDbSetting("s3_secret_access_key", "hunter2"))
        .hasToString("s3_secret_access_key=***");
    assertThat(new DuckDbSetting("s3_session_token", "abc")).hasToString("s3_session_token=***");
    assertThat(new DuckDbSetting("arrow_large_buffer_size", "true"))
        .hasToString("arrow_large_buffer_size=true");
  }

  @Test
  void rejectsNamesThatAreNotPlainSettingNames() {
    DuckDbFlightSqlServerBuilder builder = DuckDbFlightSqlServer.builder();

    assertThatThrownBy(() -> builder.setting("threads = 8; SELECT 1; SET x", "1"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "Invalid DuckDB setting name 'threads = 8; SELECT 1; SET x': expected letters,"
                + " digits and underscores, not starting with a digit, such as"
                + " produce_arrow_string_view");
    assertThatThrownBy(() -> builder.setting("3threads", "1"))
        .hasMessageStartingWith("Invalid DuckDB setting name '3threads'");
    assertThatThrownBy(() -> builder.setting("", "1"))
        .hasMessageStartingWith("Invalid DuckDB setting name ''");
    assertThatThrownBy(() -> builder.setting(null, "1"))
        .hasMessageStartingWith("Invalid DuckDB setting name 'null'");
    assertThatThrownBy(() -> builder.setting("Threads", "8"))
        .hasMessageStartingWith("DuckDB setting 'Threads' cannot be changed: the server runs");
    assertThatThrownBy(() -> builder.setting("worker_threads", "8"))
        .hasMessageStartingWith("DuckDB setting 'worker_threads' cannot be changed");
  }

  @Test
  void rejectsMissingValuesAndControlCharacters() {
    DuckDbFlightSqlServerBuilder builder = DuckDbFlightSqlServer.builder();

    assertThatThrownBy(() -> builder.setting("TimeZone", null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("DuckDB setting 'TimeZone' needs a value");
    assertThatThrownBy(() -> builder.setting("TimeZone", "UTC\n; SELECT 1"))
        .hasMessage(
            "Invalid value for DuckDB setting 'TimeZone': control characters (line breaks, tabs,"
                + " NUL) are not allowed");
    assertThatThrownBy(() -> DuckDbSetting.parse("produce_arrow_string_view"))
        .hasMessage(
            "Invalid value 'produce_arrow_string_view' for option '--setting': expected"
                + " name=value, such as produce_arrow_string_view=true");
    assertThatThrownBy(() -> DuckDbSetting.parse("=true"))
        .hasMessageStartingWith("Invalid value '=true' for option '--setting'");
  }

  @Test
  void startFailsWithDuckDbsMessageOnAnUnknownSettingOrABadValue() {
    assertThatThrownBy(
            () ->
                DuckDbFlightSqlServer.builder()
                    .lineitemRows(0)
                    .setting("no_such_setting", "1")
                    .start())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("DuckDB rejected the setting 'no_such_setting=1': ")
        .hasMessageContaining("unrecognized configuration parameter \"no_such_setting\"");
    assertThatThrownBy(
            () ->
                DuckDbFlightSqlServer.builder()
                    .lineitemRows(0)
                    .setting("produce_arrow_string_view", "maybe")
                    .start())
        .hasMessageStartingWith("DuckDB rejected the setting 'produce_arrow_string_view=maybe'");
  }

  @Test
  void aValueCannotEscapeItsLiteral() throws Exception {
    // Were the value pasted into the SQL, this would create a table and set the time zone.
    assertThatThrownBy(
            () ->
                DuckDbFlightSqlServer.builder()
                    .lineitemRows(0)
                    .setting(
                        "TimeZone", "UTC'; CREATE TABLE injected AS SELECT 1; SET TimeZone='UTC")
                    .start())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("Unknown TimeZone 'UTC'; CREATE TABLE injected");
  }

  @Test
  void settingsApplyInOrderAfterTheDefaults() throws Exception {
    try (DuckDbFlightSqlServer server =
            DuckDbFlightSqlServer.builder()
                .lineitemRows(0)
                .setting("arrow_large_buffer_size", "true")
                .setting("TimeZone", "Asia/Tokyo")
                .setting("TimeZone", "Europe/Paris")
                .start();
        TestClient client = new TestClient(server)) {
      assertThat(
              TestClient.jdbcRows(
                  server,
                  "SELECT current_setting('arrow_large_buffer_size'), current_setting('TimeZone'),"
                      + " current_setting('preserve_insertion_order')"))
          .containsExactly(List.of("true", "Europe/Paris", "true"));
      assertThat(TestClient.schema(client.sql.execute("SELECT 'x' AS s")).getFields())
          .singleElement()
          .satisfies(field -> assertThat(field.getType()).isEqualTo(ArrowType.LargeUtf8.INSTANCE));
    }
  }

  @Test
  void commandLineSettingsReachTheServer() throws Exception {
    DuckDbFlightSqlServerBuilder builder =
        ServerCommandLine.parse(
            new String[] {
              "--port=0",
              "--lineitem-rows=0",
              "--setting",
              "arrow_output_version=1.4",
              "--setting=produce_arrow_string_view=true"
            });
    try (DuckDbFlightSqlServer server = builder.start();
        TestClient client = new TestClient(server)) {
      assertThat(TestClient.schema(client.sql.execute("SELECT 'x' AS s")).getFields())
          .singleElement()
          .satisfies(field -> assertThat(field.getType()).isEqualTo(ArrowType.Utf8View.INSTANCE));
    }
    assertThatThrownBy(() -> ServerCommandLine.parse(new String[] {"--setting", "threads=2"}))
        .hasMessageStartingWith("DuckDB setting 'threads' cannot be changed");
    assertThatThrownBy(() -> ServerCommandLine.parse(new String[] {"--setting"}))
        .hasMessage("Option '--setting' needs a value");
  }

  @Test
  void decimalsOfArrowFormatOnePointFiveAreRefusedNotMisread() throws Exception {
    // Format 1.5 exports DECIMAL(4, 1) as a 32-bit decimal, which Arrow Java reads as 128-bit.
    try (DuckDbFlightSqlServer server =
            DuckDbFlightSqlServer.builder()
                .lineitemRows(0)
                .setting("arrow_output_version", "1.5")
                .start();
        TestClient client = new TestClient(server)) {
      assertThatThrownBy(
              () -> client.sql.execute("SELECT 1 AS i, {'d': CAST(1.5 AS DECIMAL(4, 1))} AS s"))
          .isInstanceOfSatisfying(
              FlightRuntimeException.class,
              e -> assertThat(e.status().code()).isEqualTo(FlightStatusCode.INVALID_ARGUMENT))
          .hasMessageContaining(
              "Column 's.d' is exported by DuckDB as a 32-bit decimal, which this server's Arrow"
                  + " Java cannot read: set DuckDB's arrow_output_version to 1.4 or lower");
      // Wide decimals are still 128-bit, and everything else reads as usual.
      assertThat(client.rows(client.sql.execute("SELECT CAST(1.5 AS DECIMAL(38, 1)) AS d")))
          .containsExactly(List.of("1.5"));
    }
  }
}
