package io.flightsql.spark.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import java.io.BufferedReader;
import java.io.ByteArrayInputStream;
import java.io.InputStreamReader;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.FlightStatusCode;
import org.apache.arrow.flight.GetSessionOptionsRequest;
import org.apache.arrow.flight.Location;
import org.apache.arrow.flight.auth2.BearerCredentialWriter;
import org.apache.arrow.flight.grpc.CredentialCallOption;
import org.apache.arrow.flight.sql.FlightSqlClient;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.compression.CompressionUtil.CodecType;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The standalone server: its command line, and {@code main} run in a process of its own. */
@SuppressWarnings("try") // Arrow's FlightStream and FlightSqlClient close() declare Exception
class StandaloneServerTest {

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"--flag value", "--flag=value"})
  void parsesEveryFlagInBothSpellings(String spelling) {
    String[][] flags = {
      {"--host", "0.0.0.0"},
      {"--port", "4321"},
      {"--endpoints", "3"},
      {"--lineitem-rows", "5"},
      {"--batch-rows", "100"},
      {"--compression", "zstd"},
      {"--data", "data.sql"},
      {"--setting", "arrow_large_buffer_size=true"},
      {"--setting", "TimeZone=Europe/Paris"},
      {"--tls-cert", "server.pem"},
      {"--tls-key", "server-key.pem"},
      {"--client-ca", "ca.pem"},
      {"--username", "alice"},
      {"--token-env", "MY_TOKEN"}
    };
    List<String> args = new ArrayList<>();
    for (String[] flag : flags) {
      if (spelling.equals("--flag=value")) {
        args.add(flag[0] + "=" + flag[1]);
      } else {
        args.add(flag[0]);
        args.add(flag[1]);
      }
    }
    args.add("--sessions");

    ServerConfiguration config =
        ServerCommandLine.parse(
                args.toArray(new String[0]),
                Map.of("FLIGHTSQL_SERVER_PASSWORD", "s3cret", "MY_TOKEN", "t0ken"))
            .configuration();

    assertThat(config.host()).isEqualTo("0.0.0.0");
    assertThat(config.port()).isEqualTo(4321);
    assertThat(config.endpoints()).isEqualTo(3);
    assertThat(config.lineitemRows()).isEqualTo(5);
    assertThat(config.batchRows()).isEqualTo(100);
    assertThat(config.doGetCompression()).isEqualTo(CodecType.ZSTD);
    assertThat(config.data()).isEqualTo(Path.of("data.sql"));
    assertThat(config.settings())
        .extracting(DuckDbSetting::name, DuckDbSetting::value)
        .containsExactly(
            tuple("arrow_large_buffer_size", "true"), tuple("TimeZone", "Europe/Paris"));
    assertThat(config.tlsCertificateChain()).isEqualTo(Path.of("server.pem"));
    assertThat(config.tlsPrivateKey()).isEqualTo(Path.of("server-key.pem"));
    assertThat(config.trustedClientCa()).isEqualTo(Path.of("ca.pem"));
    assertThat(config.username()).isEqualTo("alice");
    assertThat(config.password()).as("from FLIGHTSQL_SERVER_PASSWORD").isEqualTo("s3cret");
    assertThat(config.bearerToken()).as("from MY_TOKEN").isEqualTo("t0ken");
    assertThat(config.sessions()).isTrue();
    assertThat(config.toString()).doesNotContain("s3cret", "t0ken");
  }

  @Test
  void leavesEveryUnsetFlagAtItsDefault() {
    ServerConfiguration config = ServerCommandLine.parse(new String[0], Map.of()).configuration();

    assertThat(config.host()).isEqualTo("127.0.0.1");
    assertThat(config.port()).isEqualTo(ServerCommandLine.DEFAULT_PORT);
    assertThat(config.endpoints()).isEqualTo(2);
    assertThat(config.lineitemRows()).isEqualTo(1_000_000);
    assertThat(config.batchRows()).isEqualTo(65_536);
    assertThat(config.doGetCompression()).isEqualTo(CodecType.NO_COMPRESSION);
    assertThat(config.data()).isNull();
    assertThat(config.settings()).isEmpty();
    assertThat(config.tlsCertificateChain()).isNull();
    assertThat(config.trustedClientCa()).isNull();
    assertThat(config.username()).isNull();
    assertThat(config.bearerToken()).isNull();
    assertThat(config.sessions()).isFalse();
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
    assertThatThrownBy(() -> ServerCommandLine.parse(new String[] {"--compression", "gzip"}))
        .hasMessage("Invalid value 'gzip' for option 'compression': expected none, zstd or lz4");
    assertThatThrownBy(() -> ServerCommandLine.parse(new String[] {"--host"}))
        .hasMessage("Option '--host' needs a value");
    assertThatThrownBy(() -> ServerCommandLine.parse(new String[] {"8080"}))
        .hasMessage("Unknown option '8080'");
  }

  @Test
  void securityFlagsTakeSecretsFromTheEnvironmentAndConfigureTheServer(@TempDir Path directory)
      throws Exception {
    TestCertificates certificates = TestCertificates.create(directory);
    DuckDbFlightSqlServerBuilder builder =
        ServerCommandLine.parse(
            new String[] {
              "--port=0",
              "--lineitem-rows=0",
              "--tls-cert",
              certificates.serverCertificate().toString(),
              "--tls-key=" + certificates.serverKey(),
              "--client-ca",
              certificates.caCertificate().toString(),
              "--username",
              "alice",
              "--token-env",
              "MY_TOKEN",
              "--sessions"
            },
            Map.of("FLIGHTSQL_SERVER_PASSWORD", "s3cret", "MY_TOKEN", "t0ken"));

    try (DuckDbFlightSqlServer server = builder.start();
        BufferAllocator allocator = new RootAllocator();
        FlightClient client =
            FlightClient.builder(allocator, new Location(URI.create(server.uri())))
                .trustedCertificates(pem(certificates.caCertificate()))
                .clientCertificate(
                    pem(certificates.clientCertificate()), pem(certificates.clientKey()))
                .build()) {
      assertThat(server.uri()).startsWith("grpc+tls://");
      assertThat(client.authenticateBasicToken("alice", "s3cret")).isPresent();
      CredentialCallOption token = new CredentialCallOption(new BearerCredentialWriter("t0ken"));
      GetSessionOptionsRequest options = new GetSessionOptionsRequest();
      assertThat(client.getSessionOptions(options, token).getSessionOptions())
          .as("sessions are on")
          .isEmpty();
      assertThatThrownBy(() -> client.getSessionOptions(new GetSessionOptionsRequest()))
          .isInstanceOfSatisfying(
              FlightRuntimeException.class,
              e -> assertThat(e.status().code()).isEqualTo(FlightStatusCode.UNAUTHENTICATED));
    }
  }

  @Test
  void rejectsSecurityFlagsThatCannotWorkWithoutRepeatingSecrets() {
    Map<String, String> none = Map.of();
    assertThatThrownBy(() -> ServerCommandLine.parse(new String[] {"--username", "alice"}, none))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "Option '--username' needs the password in the environment variable"
                + " FLIGHTSQL_SERVER_PASSWORD, which is not set");
    assertThatThrownBy(() -> ServerCommandLine.parse(new String[] {"--token-env", "NOPE"}, none))
        .hasMessage(
            "Invalid value 'NOPE' for option '--token-env': the environment variable NOPE is not"
                + " set");
    assertThatThrownBy(() -> ServerCommandLine.parse(new String[] {"--password", "s3cret"}, none))
        .hasMessageStartingWith("Option '--password' does not exist")
        .hasMessageContaining("FLIGHTSQL_SERVER_PASSWORD")
        .hasMessageNotContaining("s3cret");
    assertThatThrownBy(() -> ServerCommandLine.parse(new String[] {"--tls-cert", "c.pem"}, none))
        .hasMessageStartingWith("Options '--tls-cert' and '--tls-key' go together");
    assertThatThrownBy(() -> ServerCommandLine.parse(new String[] {"--sessions=yes"}, none))
        .hasMessage("Option '--sessions' takes no value");
    assertThat(ServerCommandLine.USAGE)
        .contains("--tls-cert", "--tls-key", "--client-ca", "--username", "--token-env");
  }

  @Test
  void mainServesTlsWithBasicAuthFromTheEnvironment(@TempDir Path directory) throws Exception {
    TestCertificates certificates = TestCertificates.create(directory);
    ProcessBuilder command =
        java(
            "--port",
            "0",
            "--lineitem-rows",
            "100",
            "--tls-cert",
            certificates.serverCertificate().toString(),
            "--tls-key",
            certificates.serverKey().toString(),
            "--username",
            "alice");
    command.environment().put("FLIGHTSQL_SERVER_PASSWORD", "s3cret");
    Process process = command.start();
    try (BufferedReader out =
        new BufferedReader(
            new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
      String uri = listeningUri(out, "grpc\\+tls");

      try (BufferAllocator allocator = new RootAllocator();
          FlightClient flight =
              FlightClient.builder(allocator, new Location(URI.create(uri)))
                  .trustedCertificates(pem(certificates.caCertificate()))
                  .build();
          FlightSqlClient client = new FlightSqlClient(flight)) {
        CredentialCallOption bearer =
            flight.authenticateBasicToken("alice", "s3cret").orElseThrow();
        assertThat(client.execute("SELECT count(*) FROM lineitem", bearer).getRecords())
            .isEqualTo(1);
      }
    } finally {
      process.destroy();
    }
    assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
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
      String uri = listeningUri(out, "grpc");

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

  /** The URI that the server's stdout says it listens on; {@code scheme} is a regex. */
  private static String listeningUri(BufferedReader out, String scheme) throws Exception {
    Pattern listening =
        Pattern.compile("Flight SQL server listening on (" + scheme + "://127\\.0\\.0\\.1:\\d+)");
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
    return uri;
  }

  /** A PEM file's content, as Arrow's client builder reads it when it builds. */
  private static ByteArrayInputStream pem(Path file) throws Exception {
    return new ByteArrayInputStream(Files.readAllBytes(file));
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
