package io.flightsql.spark.config;

import io.flightsql.spark.client.transport.ConnectionSettings;
import io.flightsql.spark.client.transport.FlightUri;
import java.util.Arrays;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads the connection options shared by reads and writes (address, credentials, TLS, headers,
 * timeouts, session defaults; see {@link ConnectionOptions}) into {@link ConnectionSettings}. Runs
 * on the driver: the files named by options are read here, and their contents travel with the job.
 */
final class ConnectionSettingsReader {
  private static final Logger LOG = LoggerFactory.getLogger(ConnectionSettingsReader.class);

  /** gRPC header names: lower case (Spark lower-cases option names anyway), no pseudo-headers. */
  private static final Pattern HEADER_NAME = Pattern.compile("[a-z0-9][a-z0-9._-]*");

  private static final String HEADER_PREFIX = ConnectionOptions.HEADER.prefix().get();

  private static final long MIN_KEEP_ALIVE_MILLIS = 10_000;

  private ConnectionSettingsReader() {}

  static ConnectionSettings from(OptionReader reader) {
    FlightUri uri = reader.value(ConnectionOptions.URI);
    ConnectionSettings.Builder settings = ConnectionSettings.builder(uri);
    credentials(reader, settings);
    tls(reader, uri, settings);
    headers(reader, settings);
    reader
        .optional(ConnectionOptions.CONNECT_TIMEOUT)
        .ifPresent(timeout -> settings.connectTimeoutMillis(timeout.toMillis()));
    reader
        .optional(ConnectionOptions.CALL_TIMEOUT)
        .ifPresent(timeout -> settings.callTimeoutMillis(timeout.toMillis()));
    settings.streamIdleTimeoutMillis(reader.value(ReadWriteOptions.STREAM_IDLE_TIMEOUT).toMillis());
    settings.keepAliveTimeMillis(keepAliveTimeMillis(reader));
    settings.maxRetries(reader.value(ConnectionOptions.MAX_RETRIES));
    settings.maxInboundMessageSize(reader.value(ConnectionOptions.MAX_INBOUND_MESSAGE_SIZE));
    reader.optional(ConnectionOptions.TASK_MEMORY_LIMIT).ifPresent(settings::taskMemoryLimit);
    reader.optional(ConnectionOptions.CREDENTIAL_HOSTS).ifPresent(settings::credentialHosts);
    if (reader.value(ConnectionOptions.ALLOW_INSECURE_LOCATIONS)) {
      settings.allowInsecureLocations();
    }
    settings.sessionDefaults(
        reader.given(ReadWriteOptions.CATALOG).orElse(null),
        reader.given(ReadWriteOptions.SCHEMA).orElse(null));
    return settings.build();
  }

  /** gRPC pings no more often than every 10 s, and would raise a shorter time silently. */
  private static long keepAliveTimeMillis(OptionReader reader) {
    long millis = reader.value(ConnectionOptions.KEEP_ALIVE_TIME).toMillis();
    if (millis > 0 && millis < MIN_KEEP_ALIVE_MILLIS) {
      throw new IllegalArgumentException(
          "Invalid value '"
              + reader.given(ConnectionOptions.KEEP_ALIVE_TIME).orElse(millis + "ms")
              + "' for option '"
              + ConnectionOptions.KEEP_ALIVE_TIME.name()
              + "': expected 0 (no pings) or at least 10s, gRPC's shortest keepalive time");
    }
    return millis;
  }

  private static void credentials(OptionReader reader, ConnectionSettings.Builder settings) {
    Optional<String> username = reader.given(ConnectionOptions.USERNAME);
    Optional<String> password =
        reader.secret(
            ConnectionOptions.PASSWORD,
            ConnectionOptions.PASSWORD_ENV,
            ConnectionOptions.PASSWORD_FILE);
    Optional<String> token =
        reader.secret(
            ConnectionOptions.TOKEN, ConnectionOptions.TOKEN_ENV, ConnectionOptions.TOKEN_FILE);
    if (username.isPresent() && token.isPresent()) {
      throw new IllegalArgumentException(
          "Options 'username' and 'token' cannot be used together: give 'username' with"
              + " 'password' for basic authentication, or 'token' for a bearer token");
    }
    if (username.isPresent() && !password.isPresent()) {
      throw new IllegalArgumentException(
          "Option 'username' needs a password: give 'password', 'passwordEnv' or 'passwordFile'");
    }
    if (!username.isPresent() && password.isPresent()) {
      throw new IllegalArgumentException(
          "A password is given but option 'username' is missing; basic authentication needs"
              + " both");
    }
    if (username.isPresent()) {
      settings.basicAuth(username.get(), password.get());
    }
    token.ifPresent(settings::token);
  }

  private static void tls(OptionReader reader, FlightUri uri, ConnectionSettings.Builder settings) {
    boolean skipVerification = reader.value(ConnectionOptions.DISABLE_CERTIFICATE_VERIFICATION);
    boolean rootCerts = reader.given(ConnectionOptions.TLS_ROOT_CERTS).isPresent();
    boolean clientCert = reader.given(ConnectionOptions.CLIENT_CERTIFICATE).isPresent();
    boolean clientKey = reader.given(ConnectionOptions.CLIENT_KEY).isPresent();
    if (!uri.isTls()) {
      for (OptionSpec<String> spec :
          Arrays.asList(
              ConnectionOptions.TLS_ROOT_CERTS,
              ConnectionOptions.CLIENT_CERTIFICATE,
              ConnectionOptions.CLIENT_KEY)) {
        if (reader.given(spec).isPresent()) {
          throw new IllegalArgumentException(
              "Option '" + spec.name() + "' needs TLS: use a grpc+tls://host:port 'uri'");
        }
      }
      if (skipVerification) {
        throw new IllegalArgumentException(
            "Option 'disableCertificateVerification' needs TLS: use a grpc+tls://host:port 'uri'");
      }
      return;
    }
    if (skipVerification && rootCerts) {
      throw new IllegalArgumentException(
          "Options 'tlsRootCerts' and 'disableCertificateVerification' cannot be used together:"
              + " trust a private CA with 'tlsRootCerts', or accept any certificate (tests only)"
              + " with 'disableCertificateVerification'");
    }
    if (clientCert != clientKey) {
      throw new IllegalArgumentException(
          "Options 'clientCertificate' and 'clientKey' go together (mutual TLS); "
              + (clientCert ? "'clientKey'" : "'clientCertificate'")
              + " is missing");
    }
    if (rootCerts) {
      settings.rootCertificates(reader.readFile(ConnectionOptions.TLS_ROOT_CERTS));
    }
    if (skipVerification) {
      LOG.warn(
          "Option 'disableCertificateVerification' is true: the certificate of {} is not"
              + " checked, so the connection is encrypted but the server is not authenticated",
          uri);
      settings.skipCertificateVerification();
    }
    if (clientCert) {
      settings.clientCertificate(
          reader.readFile(ConnectionOptions.CLIENT_CERTIFICATE),
          reader.readFile(ConnectionOptions.CLIENT_KEY));
    }
  }

  private static void headers(OptionReader reader, ConnectionSettings.Builder settings) {
    for (Map.Entry<String, String> header : reader.withPrefix(HEADER_PREFIX).entrySet()) {
      String name = header.getKey().toLowerCase(Locale.ROOT);
      String option = HEADER_PREFIX + header.getKey();
      if (!HEADER_NAME.matcher(name).matches()) {
        throw new IllegalArgumentException(
            "Option '"
                + option
                + "' does not name a valid gRPC header: expected letters, digits, '-', '_' or '.'"
                + " after 'header.'");
      }
      if (name.endsWith("-bin")) {
        throw new IllegalArgumentException(
            "Option '" + option + "' names a binary gRPC header (-bin), which is not supported");
      }
      if (name.equals("authorization")) {
        for (OptionSpec<String> credential :
            Arrays.asList(
                ConnectionOptions.USERNAME,
                ConnectionOptions.TOKEN,
                ConnectionOptions.TOKEN_ENV,
                ConnectionOptions.TOKEN_FILE)) {
          if (reader.given(credential).isPresent()) {
            throw new IllegalArgumentException(
                "Options '"
                    + option
                    + "' and '"
                    + credential.name()
                    + "' both give credentials: give the authorization header of any scheme with"
                    + " '"
                    + option
                    + "' alone, or 'username' and 'password' (basic), or 'token' (bearer)");
          }
        }
      }
      settings.header(name, header.getValue());
    }
  }
}
