package io.flightsql.spark.server;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;

/**
 * The standalone server's command line: {@code --flag value} or {@code --flag=value} pairs, and
 * {@code --sessions} alone; {@code --setting} may be given more than once. Secrets never go on the
 * command line, where other users of the machine can read them: the password and the token come
 * from environment variables.
 */
final class ServerCommandLine {

  static final String USAGE =
      """
      Usage: DuckDbFlightSqlServer [options]
        --host HOST          address to listen on (default 127.0.0.1)
        --port PORT          port to listen on, 0 for a free one (default 31337)
        --endpoints N        endpoints per query (default 2)
        --data PATH          a .sql script to run, or a directory whose *.parquet and *.csv files
                             become tables and whose *.sql files then run in name order
        --lineitem-rows N    rows of the demo table lineitem, 0 for none (default 1000000)
        --batch-rows N       most rows per Arrow batch (default 65536)
        --compression CODEC  none, zstd or lz4: how query streams send their record batches
                             (default none); uploads are read whatever their codec
        --setting NAME=VALUE a DuckDB setting applied with SET GLOBAL at start-up, after the
                             server's defaults; repeatable. For example
                             --setting arrow_large_buffer_size=true (large_utf8, large_list)
                             --setting arrow_output_version=1.4
                             --setting produce_arrow_string_view=true (utf8_view, needs 1.4)
                             --setting arrow_lossless_conversion=true (arrow.uuid, arrow.json)
        --tls-cert PEM       serve over TLS (grpc+tls://) with this certificate chain...
        --tls-key PEM        ...and this private key (PKCS#8 PEM); both or neither
        --client-ca PEM      mutual TLS: require client certificates signed by this CA
        --username USER      Flight basic authentication as USER, with the password taken from
                             the environment variable FLIGHTSQL_SERVER_PASSWORD; clients get a
                             bearer token back for their later calls
        --token-env VAR      accept the bearer token held by the environment variable VAR
                             (with --username too, either credential is accepted)
        --sessions           cookie sessions: SetSessionOptions catalog/schema set the default
                             catalog and schema of a client's queries
        --help               print this help\
      """;

  /** The environment variable that holds the password of {@code --username}. */
  static final String PASSWORD_VARIABLE = "FLIGHTSQL_SERVER_PASSWORD";

  /** The standalone server's port, fixed so that examples can name it. */
  static final int DEFAULT_PORT = 31337;

  private ServerCommandLine() {}

  /**
   * Runs the server as {@link DuckDbFlightSqlServer#main} was asked to, until the process is
   * stopped: the usage for {@code --help}; the usage and exit status 2 for bad flags; exit status 1
   * if the server cannot start.
   */
  static void run(String[] args) {
    if (wantsHelp(args)) {
      System.out.println(USAGE);
      return;
    }
    DuckDbFlightSqlServerBuilder builder;
    try {
      builder = parse(args);
    } catch (IllegalArgumentException e) {
      System.err.println(e.getMessage());
      System.err.println(USAGE);
      System.exit(2);
      return;
    }
    DuckDbFlightSqlServer server;
    try {
      server = builder.start();
    } catch (IOException | RuntimeException e) {
      System.err.println("Could not start the Flight SQL server: " + e.getMessage());
      System.exit(1);
      return;
    }
    Runtime.getRuntime().addShutdownHook(new Thread(server::close, "flightsql-server-shutdown"));
    System.out.println("Flight SQL server listening on " + server.uri());
    try {
      server.awaitTermination();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  static boolean wantsHelp(String[] args) {
    return Arrays.asList(args).contains("--help") || Arrays.asList(args).contains("-h");
  }

  /**
   * A builder configured by {@code args}, with secrets from this process's environment.
   *
   * @throws IllegalArgumentException naming the flag, for an unknown flag, a missing or bad value
   */
  static DuckDbFlightSqlServerBuilder parse(String[] args) {
    return parse(args, System.getenv());
  }

  /**
   * A builder configured by {@code args}, with secrets from {@code environment}.
   *
   * @throws IllegalArgumentException naming the flag, for an unknown flag, a missing or bad value,
   *     or a secret missing from the environment (never repeating a secret)
   */
  static DuckDbFlightSqlServerBuilder parse(String[] args, Map<String, String> environment) {
    DuckDbFlightSqlServerBuilder builder = DuckDbFlightSqlServer.builder().port(DEFAULT_PORT);
    Path tlsCertificate = null;
    Path tlsKey = null;
    for (int i = 0; i < args.length; i++) {
      String flag = args[i];
      if (flag.equals("--sessions")) {
        builder.sessions(true);
        continue;
      }
      if (flag.equals("--password") || flag.startsWith("--password=")) {
        throw new IllegalArgumentException(
            "Option '--password' does not exist: a password on the command line is visible to"
                + " every user of the machine; set the environment variable "
                + PASSWORD_VARIABLE
                + " instead");
      }
      String value;
      int equals = flag.indexOf('=');
      if (flag.startsWith("--") && equals > 0) {
        value = flag.substring(equals + 1);
        flag = flag.substring(0, equals);
      } else if (i + 1 < args.length) {
        value = args[++i];
      } else {
        value = null;
      }
      switch (flag) {
        case "--host" -> builder.host(required(flag, value));
        case "--port" -> builder.port(integer(flag, value));
        case "--endpoints" -> builder.endpoints(integer(flag, value));
        case "--data" -> builder.data(Path.of(required(flag, value)));
        case "--lineitem-rows" -> builder.lineitemRows(number(flag, value));
        case "--batch-rows" -> builder.batchRows(integer(flag, value));
        case "--compression" -> builder.compression(required(flag, value));
        case "--setting" -> {
          DuckDbSetting setting = DuckDbSetting.parse(required(flag, value));
          builder.setting(setting.name(), setting.value());
        }
        case "--tls-cert" -> tlsCertificate = Path.of(required(flag, value));
        case "--tls-key" -> tlsKey = Path.of(required(flag, value));
        case "--client-ca" -> builder.clientCertificates(Path.of(required(flag, value)));
        case "--username" -> builder.basicAuth(required(flag, value), password(environment));
        case "--token-env" -> builder.bearerToken(token(required(flag, value), environment));
        case "--sessions" ->
            throw new IllegalArgumentException("Option '--sessions' takes no value");
        default -> throw new IllegalArgumentException("Unknown option '" + flag + "'");
      }
    }
    if ((tlsCertificate == null) != (tlsKey == null)) {
      throw new IllegalArgumentException(
          "Options '--tls-cert' and '--tls-key' go together: give the certificate chain and its"
              + " private key");
    }
    if (tlsCertificate != null) {
      builder.tls(tlsCertificate, tlsKey);
    }
    return builder;
  }

  private static String password(Map<String, String> environment) {
    String password = environment.get(PASSWORD_VARIABLE);
    if (password == null || password.isEmpty()) {
      throw new IllegalArgumentException(
          "Option '--username' needs the password in the environment variable "
              + PASSWORD_VARIABLE
              + ", which is not set");
    }
    return password;
  }

  private static String token(String variable, Map<String, String> environment) {
    String token = environment.get(variable);
    if (token == null || token.isEmpty()) {
      throw new IllegalArgumentException(
          "Invalid value '"
              + variable
              + "' for option '--token-env': the environment variable "
              + variable
              + " is not set");
    }
    return token;
  }

  private static String required(String flag, String value) {
    if (value == null || value.isEmpty()) {
      throw new IllegalArgumentException("Option '" + flag + "' needs a value");
    }
    return value;
  }

  private static int integer(String flag, String value) {
    long number = number(flag, value);
    if (number < Integer.MIN_VALUE || number > Integer.MAX_VALUE) {
      throw new IllegalArgumentException(
          "Invalid value '" + value + "' for option '" + flag + "': expected an integer");
    }
    return (int) number;
  }

  private static long number(String flag, String value) {
    try {
      return Long.parseLong(required(flag, value));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          "Invalid value '" + value + "' for option '" + flag + "': expected an integer", e);
    }
  }
}
