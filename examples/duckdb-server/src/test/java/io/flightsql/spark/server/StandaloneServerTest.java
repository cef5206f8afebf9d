package io.flightsql.spark.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.Location;
import org.apache.arrow.flight.sql.FlightSqlClient;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;

/** The standalone server: its command line, and {@code main} run in a process of its own. */
@SuppressWarnings("try") // Arrow's FlightStream and FlightSqlClient close() declare Exception
class StandaloneServerTest {

  @Test
  void parsesEveryFlagInBothSpellings() {
    DuckDbFlightSqlServer.Builder builder =
        ServerCommandLine.parse(
            new String[] {
              "--host",
              "0.0.0.0",
              "--port=0",
              "--endpoints",
              "3",
              "--lineitem-rows=5",
              "--batch-rows",
              "100",
              "--data",
              "data.sql",
              "--setting",
              "arrow_large_buffer_size=true",
              "--setting=TimeZone=Europe/Paris"
            });

    assertThat(builder).isNotNull();
  }

  @Test
  void rejectsBadFlagsNamingTheFlag() {
    assertThatThrownBy(() -> ServerCommandLine.parse(new String[] {"--nope", "1"}))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Unknown option '--nope'");
    assertThatThrownBy(() -> ServerCommandLine.parse(new String[] {"--port", "abc"}))
        .hasMessage("Invalid value 'abc' for option '--port': expected an integer");
    assertThatThrownBy(() -> ServerCommandLine.parse(new String[] {"--port", "70000"}))
        .hasMessage("Invalid value '70000' for option 'port': expected 0..65535");
    assertThatThrownBy(() -> ServerCommandLine.parse(new String[] {"--endpoints", "0"}))
        .hasMessage("Invalid value '0' for option 'endpoints': expected 1..1024");
    assertThatThrownBy(() -> ServerCommandLine.parse(new String[] {"--lineitem-rows", "-1"}))
        .hasMessageStartingWith("Invalid value '-1' for option 'lineitemRows'");
    assertThatThrownBy(() -> ServerCommandLine.parse(new String[] {"--host"}))
        .hasMessage("Option '--host' needs a value");
    assertThatThrownBy(() -> ServerCommandLine.parse(new String[] {"8080"}))
        .hasMessage("Unknown option '8080'");
  }

  @Test
  void mainExitsWithStatusTwoAndTheUsageOnABadFlag() throws Exception {
    Process process = java("--bogus").redirectErrorStream(true).start();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);

    assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(process.exitValue()).isEqualTo(2);
    assertThat(output).contains("Unknown option '--bogus'", "Usage: DuckDbFlightSqlServer");
  }

  @Test
  void mainServesUntilStopped() throws Exception {
    Process process =
        java(
                "--port",
                "0",
                "--lineitem-rows",
                "1000",
                "--endpoints",
                "1",
                "--setting",
                "arrow_large_buffer_size=true")
            .start();
    try (BufferedReader out =
        new BufferedReader(
            new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
      Pattern listening =
          Pattern.compile("Flight SQL server listening on (grpc://127\\.0\\.0\\.1:\\d+)");
      List<String> lines = new ArrayList<>();
      String uri = null;
      while (uri == null) {
        String line = out.readLine();
        if (line == null) {
          break;
        }
        lines.add(line);
        Matcher matcher = listening.matcher(line);
        if (matcher.find()) {
          uri = matcher.group(1);
        }
      }
      assertThat(uri).as("stdout: %s", lines).isNotNull();

      try (BufferAllocator allocator = new RootAllocator();
          FlightSqlClient client =
              new FlightSqlClient(FlightClient.builder(allocator, new Location(uri)).build())) {
        assertThat(client.execute("SELECT count(*) FROM lineitem").getRecords()).isEqualTo(1);
        assertThat(client.getExecuteSchema("SELECT l_comment FROM lineitem").getSchema())
            .isEqualTo(
                new Schema(List.of(Field.nullable("l_comment", ArrowType.LargeUtf8.INSTANCE))));
      }
    } finally {
      process.destroy();
    }
    assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
  }

  /** {@code java DuckDbFlightSqlServer args} with this test's classpath and JVM flags. */
  private static ProcessBuilder java(String... args) {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.add("--add-opens=java.base/java.nio=ALL-UNNAMED");
    command.add("-Xmx512m");
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(DuckDbFlightSqlServer.class.getName());
    command.addAll(List.of(args));
    return new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.DISCARD);
  }
}
