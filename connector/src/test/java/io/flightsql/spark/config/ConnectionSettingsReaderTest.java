package io.flightsql.spark.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.flightsql.spark.client.transport.ConnectionSettings;
import io.flightsql.spark.client.transport.CredentialHosts;
import io.flightsql.spark.client.transport.FlightUri;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ConnectionSettingsReaderTest {
  private static final String TLS = "grpc+tls://db.example.com:443";
  private static final Map<String, String> ENV = new HashMap<>();

  static {
    ENV.put("FLIGHTSQL_TEST_PASSWORD", " env-s3cret\n");
  }

  @TempDir Path dir;

  private static ConnectionSettings parse(String... keyValues) {
    Map<String, String> map = new HashMap<>();
    for (int i = 0; i < keyValues.length; i += 2) {
      map.put(keyValues[i], keyValues[i + 1]);
    }
    return ConnectionSettingsReader.from(OptionReader.of(map, ENV::get));
  }

  private static ConnectionSettings.Builder expected(String uri) {
    return ConnectionSettings.builder(FlightUri.parse(uri));
  }

  private Path file(String name, String content) throws IOException {
    return Files.write(dir.resolve(name), content.getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void everyWaitHasABoundByDefault() {
    ConnectionSettings defaults = parse("uri", TLS);
    assertThat(defaults.connectTimeoutMillis()).as("connectTimeout").isEqualTo(30_000);
    assertThat(defaults.keepAliveTimeMillis()).as("keepAliveTime").isEqualTo(300_000);
    assertThat(defaults.streamIdleTimeoutMillis()).as("streamIdleTimeout").isEqualTo(300_000);
    assertThat(defaults.callTimeoutMillis()).as("callTimeout").isZero();
    assertThat(defaults.maxRetries()).as("maxRetries").isEqualTo(3);
    assertThat(ConnectionOptions.KEEP_ALIVE_TIME.defaultValue()).contains(Duration.ofMinutes(5));
    assertThat(ConnectionOptions.CONNECT_TIMEOUT.defaultValue()).contains(Duration.ofSeconds(30));
    assertThat(ReadWriteOptions.STREAM_IDLE_TIMEOUT.defaultValue()).contains(Duration.ofMinutes(5));
  }

  @Test
  void credentialHostsAndTaskMemoryLimitAreReadAndCheckedAndMessagesAreBoundedByDefault() {
    ConnectionSettings defaults = parse("uri", TLS);
    assertThat(defaults.credentialHosts()).isEqualTo(CredentialHosts.NONE);
    assertThat(defaults.taskMemoryLimit()).as("0: the default, decided where it is used").isZero();
    assertThat(ConnectionOptions.MAX_INBOUND_MESSAGE_SIZE.defaultValue()).contains(256 << 20);

    ConnectionSettings set =
        parse("uri", TLS, "credentialHosts", "*.example.com", "taskMemoryLimit", "1048576");
    assertThat(set.credentialHosts().toString()).isEqualTo("*.example.com");
    assertThat(set.taskMemoryLimit()).isEqualTo(1_048_576);
    assertThat(set.toString()).contains("credentialHosts=*.example.com");
    assertThatThrownBy(() -> parse("uri", TLS, "credentialHosts", "be1.example.com:8050"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("Invalid value 'be1.example.com:8050' for option 'credentialHosts'")
        .hasMessageContaining("without scheme or port");
    assertThatThrownBy(() -> parse("uri", TLS, "taskMemoryLimit", "1g"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("Invalid value '1g' for option 'taskMemoryLimit'");
  }

  @Test
  void keepAliveTimeIsOffOrAtLeastGrpcsShortest() {
    assertThat(parse("uri", TLS, "keepAliveTime", "0").keepAliveTimeMillis()).isZero();
    assertThat(parse("uri", TLS, "keepAliveTime", "10s").keepAliveTimeMillis()).isEqualTo(10_000);
    assertThatThrownBy(() -> parse("uri", TLS, "keepAliveTime", "5s"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "Invalid value '5s' for option 'keepAliveTime': expected 0 (no pings) or at least 10s,"
                + " gRPC's shortest keepalive time");
  }

  @Test
  void streamIdleTimeoutKeepAliveAndRetriesHaveDefaultsAndTakeZeroForOff() {
    ConnectionSettings defaults = parse("uri", TLS);
    assertThat(defaults.streamIdleTimeoutMillis()).isEqualTo(300_000);
    assertThat(defaults.maxRetries()).isEqualTo(3);

    ConnectionSettings set =
        parse("uri", TLS, "streamIdleTimeout", "30s", "keepAliveTime", "6m", "maxRetries", "0");
    assertThat(set.streamIdleTimeoutMillis()).isEqualTo(30_000);
    assertThat(set.maxRetries()).isZero();
    assertThat(parse("uri", TLS, "streamIdleTimeout", "0").streamIdleTimeoutMillis()).isZero();
    assertThat(parse("uri", TLS, "streamIdleTimeout", "0s").streamIdleTimeoutMillis()).isZero();

    assertThatThrownBy(() -> parse("uri", TLS, "streamIdleTimeout", "soon"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'streamIdleTimeout'")
        .hasMessageContaining("or `0` to turn it off");
    assertThatThrownBy(() -> parse("uri", TLS, "maxRetries", "-1"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'maxRetries'")
        .hasMessageContaining("a whole number from 0 to 10");
  }

  @Test
  void basicAuthFromEachSourceOfThePassword() throws IOException {
    ConnectionSettings direct = parse("uri", TLS, "username", "alice", "password", "s3cret");
    assertThat(direct.basicAuth()).isTrue();
    assertThat(direct.username()).isEqualTo("alice");
    assertThat(direct.sameIdentity(expected(TLS).basicAuth("alice", "s3cret").build())).isTrue();
    assertThat(direct.sameIdentity(expected(TLS).basicAuth("alice", "other").build())).isFalse();

    ConnectionSettings fromFile =
        parse("uri", TLS, "username", "alice", "passwordFile", file("pw", "  s3cret\n").toString());
    assertThat(fromFile.sameIdentity(direct)).isTrue();

    ConnectionSettings fromEnv =
        parse("uri", TLS, "username", "alice", "passwordEnv", "FLIGHTSQL_TEST_PASSWORD");
    assertThat(fromEnv.sameIdentity(expected(TLS).basicAuth("alice", "env-s3cret").build()))
        .isTrue();
  }

  @Test
  void tokenFromAFile() throws IOException {
    ConnectionSettings settings =
        parse("uri", TLS, "tokenFile", file("token", "tok-123\n").toString());
    assertThat(settings.basicAuth()).isFalse();
    assertThat(settings.sameIdentity(expected(TLS).token("tok-123").build())).isTrue();
    assertThat(settings.toString()).doesNotContain("tok-123").contains("auth=token");
  }

  @Test
  void conflictingSourcesOfASecretAreRefused() throws IOException {
    String path = file("pw", "x").toString();
    assertThatThrownBy(
            () -> parse("uri", TLS, "username", "a", "password", "s3cret", "passwordFile", path))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(
            "Options 'password', 'passwordEnv' and 'passwordFile' are different ways to give the"
                + " same secret; use only one of them (got 'password' 'passwordFile')")
        .hasMessageNotContaining("s3cret");
    assertThatThrownBy(() -> parse("uri", TLS, "username", "a", "token", "t"))
        .hasMessageContaining("Options 'username' and 'token' cannot be used together");
  }

  @Test
  void missingPiecesOfBasicAuthAreNamed() {
    assertThatThrownBy(() -> parse("uri", TLS, "username", "alice"))
        .hasMessage(
            "Option 'username' needs a password: give 'password', 'passwordEnv' or"
                + " 'passwordFile'");
    assertThatThrownBy(() -> parse("uri", TLS, "password", "s3cret"))
        .hasMessageContaining("option 'username' is missing")
        .hasMessageNotContaining("s3cret");
    assertThatThrownBy(() -> parse("uri", TLS, "username", "a", "passwordEnv", "NOT_SET_ANYWHERE"))
        .hasMessage(
            "Option 'passwordEnv' names environment variable 'NOT_SET_ANYWHERE', which is not set"
                + " (or empty) on the driver");
    assertThatThrownBy(
            () ->
                parse("uri", TLS, "username", "a", "passwordFile", dir.resolve("none").toString()))
        .hasMessageStartingWith(
            "Option 'passwordFile' names file '"
                + dir.resolve("none")
                + "', which cannot be read"
                + " on the driver: NoSuchFileException");
  }

  @Test
  void tlsOptionsNeedATlsUriAndAreReadOnTheDriver() throws IOException {
    assertThatThrownBy(() -> parse("uri", "grpc://h:1", "tlsRootCerts", "/x.pem"))
        .hasMessage("Option 'tlsRootCerts' needs TLS: use a grpc+tls://host:port 'uri'");
    assertThatThrownBy(() -> parse("uri", "grpc://h:1", "disableCertificateVerification", "true"))
        .hasMessage(
            "Option 'disableCertificateVerification' needs TLS: use a grpc+tls://host:port 'uri'");
    assertThatThrownBy(
            () ->
                parse(
                    "uri", TLS, "tlsRootCerts", "/x.pem", "disableCertificateVerification", "true"))
        .hasMessageStartingWith(
            "Options 'tlsRootCerts' and 'disableCertificateVerification' cannot be used together");
    assertThatThrownBy(() -> parse("uri", TLS, "clientCertificate", "/c.pem"))
        .hasMessage(
            "Options 'clientCertificate' and 'clientKey' go together (mutual TLS); 'clientKey' is"
                + " missing");
    assertThatThrownBy(() -> parse("uri", TLS, "disableCertificateVerification", "yes"))
        .hasMessageStartingWith(
            "Invalid value 'yes' for option 'disableCertificateVerification': expected `true` or"
                + " `false`");

    Path ca = file("ca.pem", "CA");
    Path cert = file("client.pem", "CERT");
    Path key = file("client.key", "PRIVATE KEY");
    ConnectionSettings settings =
        parse(
            "uri", TLS,
            "tlsRootCerts", ca.toString(),
            "clientCertificate", cert.toString(),
            "clientKey", key.toString());
    assertThat(
            settings.sameIdentity(
                expected(TLS)
                    .rootCertificates("CA".getBytes(StandardCharsets.UTF_8))
                    .clientCertificate(
                        "CERT".getBytes(StandardCharsets.UTF_8),
                        "PRIVATE KEY".getBytes(StandardCharsets.UTF_8))
                    .build()))
        .isTrue();
    assertThat(settings.toString())
        .isEqualTo(
            "ConnectionSettings{uri=grpc+tls://db.example.com:443, tls=tlsRootCerts+client"
                + " certificate}");
  }

  @Test
  void headersComeFromThePrefixAndOnlyTheirNamesArePrinted() {
    ConnectionSettings settings =
        parse("uri", TLS, "header.X-Tenant", "acme-secret", "header.x-route", "r1");
    assertThat(
            settings.sameIdentity(
                expected(TLS).header("x-tenant", "acme-secret").header("x-route", "r1").build()))
        .isTrue();
    assertThat(settings.toString())
        .contains("headers=[x-route, x-tenant]")
        .doesNotContain("acme-secret");
    assertThatThrownBy(() -> parse("uri", TLS, "header.bad name", "v"))
        .hasMessageStartingWith("Option 'header.bad name' does not name a valid gRPC header")
        .hasMessageNotContaining("'v'");
    assertThat(parse("uri", TLS, "header.authorization", "Anonymous").toString())
        .contains("headers=[authorization]")
        .doesNotContain("Anonymous");
    assertThatThrownBy(
            () -> parse("uri", TLS, "header.authorization", "Anonymous", "token", "t0k-x"))
        .hasMessageStartingWith("Options 'header.authorization' and 'token' both give credentials")
        .hasMessageNotContaining("t0k-x")
        .hasMessageNotContaining("Anonymous");
    assertThatThrownBy(
            () ->
                parse(
                    "uri",
                    TLS,
                    "header.Authorization",
                    "Basic eA==",
                    "username",
                    "u",
                    "password",
                    "p"))
        .hasMessageStartingWith(
            "Options 'header.authorization' and 'username' both give credentials");
    assertThatThrownBy(() -> parse("uri", TLS, "header.trace-bin", "x"))
        .hasMessageContaining("binary gRPC header");
  }

  @Test
  void durationsAndSizesAreTyped() {
    ConnectionSettings settings = parse("uri", TLS, "callTimeout", "500ms");
    assertThat(settings.callTimeoutMillis()).isEqualTo(500);
    assertThat(parse("uri", TLS, "callTimeout", "2m").callTimeoutMillis()).isEqualTo(120_000);
    assertThat(parse("uri", TLS, "callTimeout", "30s").callTimeoutMillis()).isEqualTo(30_000);
    assertThat(parse("uri", TLS).callTimeoutMillis()).isZero();
    assertThatThrownBy(() -> parse("uri", TLS, "callTimeout", "10"))
        .hasMessage(
            "Invalid value '10' for option 'callTimeout': expected a duration such as `500ms`,"
                + " `30s` or `2m`");
    assertThatThrownBy(() -> parse("uri", TLS, "connectTimeout", "0s"))
        .hasMessageContaining("for option 'connectTimeout'")
        .hasMessageContaining("a duration above zero");
    assertThatThrownBy(() -> parse("uri", TLS, "maxInboundMessageSize", "-1"))
        .hasMessageStartingWith(
            "Invalid value '-1' for option 'maxInboundMessageSize': expected a positive number of"
                + " bytes");
  }

  @Test
  void settingsSurviveSerializationAndPrintNoSecret() throws Exception {
    ConnectionSettings settings =
        parse(
            "uri",
            TLS,
            "username",
            "alice",
            "password",
            "pw-s3cret",
            "header.x-api-key",
            "hdr-s3cret",
            "catalog",
            "cat",
            "schema",
            "sch",
            "callTimeout",
            "1s");
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
      out.writeObject(settings);
    }
    ConnectionSettings copy;
    try (ObjectInputStream in =
        new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
      copy = (ConnectionSettings) in.readObject();
    }
    assertThat(copy.sameIdentity(settings)).isTrue();
    assertThat(copy.catalog()).isEqualTo("cat");
    assertThat(copy.schema()).isEqualTo("sch");
    assertThat(copy.toString())
        .isEqualTo(
            "ConnectionSettings{uri=grpc+tls://db.example.com:443, auth=basic(user=alice),"
                + " tls=default trust store, headers=[x-api-key], callTimeout=1000ms,"
                + " catalog=cat, schema=sch}");
  }
}
