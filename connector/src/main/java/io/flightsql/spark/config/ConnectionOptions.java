package io.flightsql.spark.config;

import io.flightsql.spark.client.transport.CredentialHosts;
import io.flightsql.spark.client.transport.FlightUri;
import java.time.Duration;

/**
 * The options of scope {@link OptionScope#CONNECTION}: how to reach the server and who to be there,
 * for every read and write. {@link ConnectionSettingsReader} turns them into the client's settings.
 */
public final class ConnectionOptions {
  private ConnectionOptions() {}

  private static final OptionScope SCOPE = OptionScope.CONNECTION;

  public static final OptionSpec<FlightUri> URI =
      OptionTypes.uri("uri", SCOPE)
          .description(
              "The Flight SQL server to connect to. Required. `grpc://` and `grpc+tcp://` are"
                  + " plaintext; `grpc+tls://` uses TLS, trusting the JVM's default trust store"
                  + " unless `tlsRootCerts` says otherwise. See docs/security.md.");

  public static final OptionSpec<String> USERNAME =
      OptionTypes.text("username", "a user name", SCOPE)
          .description(
              "Basic authentication: the user name, sent with `password` in a Flight handshake."
                  + " The bearer token the server answers with is sent on every later call, on the"
                  + " driver and on executors, and obtained again once when the server says it"
                  + " expired (UNAUTHENTICATED).");

  public static final OptionSpec<String> PASSWORD =
      OptionTypes.text("password", "a password", SCOPE)
          .secret()
          .description(
              "Basic authentication: the password of `username`. Prefer `passwordEnv` or"
                  + " `passwordFile`, which keep it out of notebooks; only one of the three may be"
                  + " given.");

  public static final OptionSpec<String> PASSWORD_ENV =
      OptionTypes.text("passwordEnv", "the name of an environment variable", SCOPE)
          .description("The environment variable (of the driver) holding the password.");

  public static final OptionSpec<String> PASSWORD_FILE =
      OptionTypes.text("passwordFile", "a file path", SCOPE)
          .description(
              "A file (read on the driver) whose content, without surrounding whitespace, is the"
                  + " password.");

  public static final OptionSpec<String> TOKEN =
      OptionTypes.text("token", "a bearer token", SCOPE)
          .secret()
          .description(
              "A bearer token (a personal access token, an InfluxDB token) sent on every call as"
                  + " `authorization: Bearer <token>`. Cannot be combined with `username`. Prefer"
                  + " `tokenEnv` or `tokenFile`.");

  public static final OptionSpec<String> TOKEN_ENV =
      OptionTypes.text("tokenEnv", "the name of an environment variable", SCOPE)
          .description("The environment variable (of the driver) holding the token.");

  public static final OptionSpec<String> TOKEN_FILE =
      OptionTypes.text("tokenFile", "a file path", SCOPE)
          .description(
              "A file (read on the driver) whose content, without surrounding whitespace, is the"
                  + " token.");

  public static final OptionSpec<String> TLS_ROOT_CERTS =
      OptionTypes.text("tlsRootCerts", "a path to PEM certificates", SCOPE)
          .description(
              "With `grpc+tls://`: the certificate authorities to trust instead of the JVM's"
                  + " default trust store, e.g. a private CA. Read on the driver; its content goes"
                  + " to executors with the job.");

  public static final OptionSpec<Boolean> DISABLE_CERTIFICATE_VERIFICATION =
      OptionTypes.bool("disableCertificateVerification", SCOPE)
          .defaultValue(false)
          .description(
              "With `grpc+tls://`: `true` accepts any server certificate, without checking who"
                  + " signed it or whom it names. The connection is encrypted but not"
                  + " authenticated: for tests only. Logs a warning.");

  public static final OptionSpec<String> CLIENT_CERTIFICATE =
      OptionTypes.text("clientCertificate", "a path to a PEM certificate chain", SCOPE)
          .description(
              "Mutual TLS: the client's certificate chain, with `clientKey`. Read on the driver.");

  public static final OptionSpec<String> CLIENT_KEY =
      OptionTypes.text("clientKey", "a path to a PEM PKCS#8 private key", SCOPE)
          .secret()
          .description(
              "Mutual TLS: the private key of `clientCertificate`. Read on the driver; the key"
                  + " (not the path) goes to executors with the job and is never printed.");

  /** A family of options, {@code header.<name>}: see {@link OptionSpec#prefix()}. */
  public static final OptionSpec<String> HEADER =
      OptionTypes.text("header.<name>", "any text", SCOPE)
          .secret()
          .description(
              "An extra gRPC header `<name>: <value>` sent on every call, e.g."
                  + " `header.x-tenant`. Values are treated as secrets. `header.authorization`"
                  + " gives an authorization header of any scheme (e.g. Deephaven's `Anonymous`),"
                  + " not together with `username` or `token`; see docs/security.md.");

  public static final OptionSpec<Duration> CONNECT_TIMEOUT =
      OptionTypes.duration("connectTimeout", SCOPE)
          .defaultValue(Duration.ofSeconds(30))
          .description(
              "How long to wait for a connection to the server: the TCP connection, its TLS"
                  + " handshake and the HTTP/2 handshake. Every call waits for its connection"
                  + " first, so a server (or a proxy in front of one) that accepts connections but"
                  + " never answers fails the call after this long, as UNAVAILABLE naming this"
                  + " option.");

  public static final OptionSpec<Duration> CALL_TIMEOUT =
      OptionTypes.duration("callTimeout", SCOPE)
          .description(
              "The deadline of each call to the server; none by default. Unset, calls the"
                  + " server answers without work proportional to the data (metadata, transactions,"
                  + " prepared statements, session options, the polls of a query being run) get"
                  + " `streamIdleTimeout` as their deadline, and a query's GetFlightInfo (or first"
                  + " PollFlightInfo) and statements have none: a dead connection under them is"
                  + " found by `keepAliveTime`, and `queryTimeout` bounds planning. A DoGet (the"
                  + " reading of a partition) is bounded until its first message (the schema)"
                  + " arrives, not for the whole stream (`streamIdleTimeout` bounds each wait for"
                  + " its next batch); an upload (DoPut) is not bounded, as its length depends on"
                  + " the data. A call past it fails with TIMED_OUT naming this option.");

  public static final OptionSpec<Duration> KEEP_ALIVE_TIME =
      OptionTypes.durationOrOff("keepAliveTime", SCOPE)
          .defaultValue(Duration.ofMinutes(5))
          .description(
              "gRPC keepalive, while calls are open: after this long without a byte from the"
                  + " server, the client pings it, and closes the connection when the ping is not"
                  + " answered within 20 s, failing its calls with UNAVAILABLE (`Keepalive"
                  + " failed`). This is what bounds a call on a connection that went dead (a"
                  + " server that vanished, a network partition, a proxy that stopped forwarding)"
                  + " while the server may legitimately be silent, such as a query planned for"
                  + " minutes: the server's HTTP/2 layer answers pings however busy the query is."
                  + " Between 5 minutes and 5 minutes 20 s by default. gRPC servers (grpc-java,"
                  + " arrow-go) close connections that ping more often than every 5 minutes"
                  + " (GOAWAY `too_many_pings`) while they send nothing, which fails a long"
                  + " query: use less than `5m` only with a server configured to permit it (in"
                  + " grpc-java, `permitKeepAliveTime`). At least 10 s; `0` turns pings off. See"
                  + " docs/operations.md.");

  public static final OptionSpec<Integer> MAX_RETRIES =
      OptionTypes.intUpTo("maxRetries", 10, SCOPE)
          .defaultValue(3)
          .description(
              "How many times a planning call (GetFlightInfo, PollFlightInfo, GetSchema,"
                  + " GetSqlInfo, GetTables, GetCatalogs, GetDbSchemas) is tried again when it"
                  + " fails with UNAVAILABLE (server restarting, connection refused, reset or"
                  + " closed by keepalive) or its stream is reset (INTERNAL with RST_STREAM, a"
                  + " server killed mid-call), after an exponential back-off with jitter (0.25 to"
                  + " 0.5 s, then 0.5 to 1 s, 1 to 2 s, ..., at most 10 s). A pause ends early,"
                  + " and the read fails, when `queryTimeout` passes or planning is cancelled. `0`"
                  + " turns retries off. Statements, uploads (DoPut) and transactions are never"
                  + " retried, as they are not idempotent; a partition's DoGet that fails with"
                  + " UNAVAILABLE before any of its rows reached Spark is tried once more after 1"
                  + " to 2 s, on the endpoint's other locations first.");

  public static final OptionSpec<Integer> MAX_INBOUND_MESSAGE_SIZE =
      OptionTypes.positiveInt("maxInboundMessageSize", "a positive number of bytes", SCOPE)
          .defaultValue(256 * 1024 * 1024)
          .description(
              "The largest gRPC message (one Arrow record batch) accepted from the server, in"
                  + " bytes; 256 MiB by default. A larger one fails the task with RESOURCE_EXHAUSTED"
                  + " naming this option and the message's size, before any of it is held in"
                  + " Arrow memory. See docs/security.md.");

  public static final OptionSpec<Long> TASK_MEMORY_LIMIT =
      OptionTypes.positiveLong("taskMemoryLimit", "a positive number of bytes", SCOPE)
          .description(
              "The most Arrow memory one read partition, write task or planning step may hold at"
                  + " once, in bytes. By default an eighth of the JVM's maximum heap"
                  + " (`Runtime.maxMemory()`, i.e. `spark.executor.memory` on executors), at least"
                  + " 64 MiB; all of a JVM's tasks together hold at most its maximum heap. A read"
                  + " holds up to three record batches at once. A batch that does not fit fails"
                  + " the task with RESOURCE_EXHAUSTED naming this option and the batch's size,"
                  + " instead of the executor being killed for its memory. See docs/security.md.");

  public static final OptionSpec<CredentialHosts> CREDENTIAL_HOSTS =
      OptionTypes.custom(
              "credentialHosts",
              "a comma-separated list of host names or addresses, `*.<domain>` or `*`",
              SCOPE,
              CredentialHosts::parse,
              CredentialHosts::toString)
          .description(
              "The hosts, besides that of `uri`, that the credentials (`username`/`password`,"
                  + " `token`, `header.*` values, the tokens and cookies servers hand back) may go"
                  + " to when an endpoint location names them: e.g. the workers of a cluster whose"
                  + " coordinator `uri` names. `*.doris.internal` names every host under that"
                  + " domain, `*` any host. Hosts are compared as written, without resolving them"
                  + " (`localhost` is not `127.0.0.1`); ports do not count. A location on any other"
                  + " host fails the read naming this option, and is sent nothing. See"
                  + " docs/security.md.");

  public static final OptionSpec<Boolean> ALLOW_INSECURE_LOCATIONS =
      OptionTypes.bool("allowInsecureLocations", SCOPE)
          .defaultValue(false)
          .description(
              "Whether an endpoint location in plaintext (`grpc+tcp://`) may be read when `uri`"
                  + " uses TLS. Credentials, headers and cookies go to every location read on the"
                  + " hosts they may go to (`credentialHosts`), so by default such a location is"
                  + " refused.");
}
