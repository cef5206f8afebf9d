package io.flightsql.spark.server;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.arrow.flight.FlightServer;
import org.apache.arrow.flight.FlightServerMiddleware;
import org.apache.arrow.flight.Location;
import org.apache.arrow.flight.auth2.Auth2Constants;
import org.apache.arrow.flight.auth2.ServerCallHeaderAuthMiddleware;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An Arrow Flight SQL server backed by an in-memory DuckDB database: the server of the quick start
 * and of the connector's tests.
 *
 * <p>At start-up the database gets two deterministic demo tables, {@code lineitem} (TPC-H-like,
 * size set by {@link Builder#lineitemRows}) and {@code types_demo} (one column per common scalar
 * type), plus the user's data if {@link Builder#data} names any. A query's FlightInfo has {@link
 * Builder#endpoints} endpoints, disjoint slices of the result that add up to it in endpoint order.
 *
 * <p>Columns reach clients with the Arrow types that DuckDB exports them as (the module's
 * ARROW_TYPES.md has the table), which DuckDB's Arrow settings change ({@link Builder#setting}).
 * ENUM columns arrive dictionary-encoded, with their dictionaries in the stream.
 *
 * <p>Security is off by default and each part can be turned on: TLS ({@link Builder#tls}, then
 * {@link #uri()} is {@code grpc+tls://}), client certificates ({@link Builder#clientCertificates}),
 * Flight basic authentication that hands out bearer tokens ({@link Builder#basicAuth}) and a fixed
 * bearer token ({@link Builder#bearerToken}). {@link TestCertificates} makes certificates for
 * tests. Every call's method and request headers are recorded ({@link #recordedCalls()}), so that
 * tests can check what a client sent. Cookie-based sessions ({@link Builder#sessions}) give each
 * client a default catalog and schema of its own (SetSessionOptions).
 *
 * <p>Clients can write too: statement updates, bulk ingestion of Arrow uploads into new or existing
 * tables (CommandStatementIngest), prepared statements with parameters bound in Arrow batches, and
 * transactions. Uploads stream into DuckDB through the Arrow C data interface, a batch at a time.
 * Transactions that clients leave open are rolled back when the server closes. The module's
 * README.md describes the commands and their limits.
 *
 * <pre>{@code
 * try (DuckDbFlightSqlServer server = DuckDbFlightSqlServer.builder().lineitemRows(10_000).start()) {
 *   String uri = server.uri(); // grpc://127.0.0.1:<free port>
 *   server.execute("CREATE TABLE t AS SELECT 42 AS answer");
 * }
 * }</pre>
 *
 * <p>Thread-safe. {@link #close()} stops the server, closes DuckDB, and checks that no Arrow memory
 * leaked.
 */
public final class DuckDbFlightSqlServer implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(DuckDbFlightSqlServer.class);

  private final String host;
  private final boolean tls;
  private final FlightServer server;
  private final CallRecorder recorder;
  private final ServerAuthenticator authenticator;
  private final DuckDbFlightSqlProducer producer;
  private final DuckDbDatabase database;
  private final BufferAllocator serverAllocator;
  private final BufferAllocator rootAllocator;
  private final AtomicBoolean closed = new AtomicBoolean();

  private DuckDbFlightSqlServer(
      String host,
      boolean tls,
      FlightServer server,
      CallRecorder recorder,
      ServerAuthenticator authenticator,
      DuckDbFlightSqlProducer producer,
      DuckDbDatabase database,
      BufferAllocator serverAllocator,
      BufferAllocator rootAllocator) {
    this.host = host;
    this.tls = tls;
    this.server = server;
    this.recorder = recorder;
    this.authenticator = authenticator;
    this.producer = producer;
    this.database = database;
    this.serverAllocator = serverAllocator;
    this.rootAllocator = rootAllocator;
  }

  public static Builder builder() {
    return new Builder();
  }

  /**
   * Where clients connect: {@code grpc://<host>:<port>}, for example {@code grpc://127.0.0.1:4321},
   * or {@code grpc+tls://<host>:<port>} with TLS.
   */
  public String uri() {
    String uriHost = host.contains(":") && !host.startsWith("[") ? "[" + host + "]" : host;
    return (tls ? "grpc+tls://" : "grpc://") + uriHost + ":" + port();
  }

  /** The port the server listens on; the one picked by the system when the builder asked for 0. */
  public int port() {
    return server.getPort();
  }

  /**
   * A new JDBC connection to this server's DuckDB database, for computing DuckDB's own answer to a
   * query or running DDL in tests. The caller closes it.
   */
  public Connection newConnection() throws SQLException {
    checkOpen();
    return database.connect();
  }

  /**
   * Runs one or more SQL statements directly on DuckDB, for example to set up test tables.
   *
   * @throws IllegalArgumentException with DuckDB's message if DuckDB rejects the SQL
   */
  public void execute(String sql) {
    checkOpen();
    try {
      database.execute(sql);
    } catch (SQLException e) {
      throw new IllegalArgumentException(
          "DuckDB could not execute '" + QuerySql.abbreviate(sql, 200) + "': " + e.getMessage(), e);
    }
  }

  /**
   * Every call that reached the server since it started or since {@link #clearRecordedCalls()},
   * oldest first, with its method and request headers; calls refused for want of credentials
   * included. Always recorded.
   */
  public List<RecordedCall> recordedCalls() {
    return recorder.recorded();
  }

  /** Forgets the calls recorded so far. */
  public void clearRecordedCalls() {
    recorder.clear();
  }

  /**
   * Invalidates every bearer token that basic authentication has handed out so far: the next call
   * that sends one is refused with {@code UNAUTHENTICATED} and must authenticate again. The fixed
   * {@link Builder#bearerToken} stays valid. For tests of re-authentication.
   *
   * @throws IllegalStateException if the server has no basic authentication
   */
  public void expireTokens() {
    if (authenticator == null) {
      throw new IllegalStateException(
          "The Flight SQL server at " + uri() + " has no authentication: no tokens to expire");
    }
    authenticator.expireTokens();
  }

  /** Arrow memory the server holds right now, in bytes: zero between calls. For tests. */
  long allocatedBytes() {
    return rootAllocator.getAllocatedMemory();
  }

  /** The most Arrow memory the server has held at once since it started, in bytes. For tests. */
  long peakAllocatedBytes() {
    return rootAllocator.getPeakMemoryAllocation();
  }

  /** How many transactions clients have begun and not ended. For tests. */
  int openTransactions() {
    return producer.openTransactions();
  }

  /** How many prepared statements clients have created and not closed. For tests. */
  int openPreparedStatements() {
    return producer.openPreparedStatements();
  }

  /**
   * Stops the server, waiting for running calls to end, then rolls back the transactions that
   * clients left open and closes DuckDB and the Arrow allocators. Calling it again does nothing.
   *
   * @throws IllegalStateException if Arrow memory leaked (the allocator's report is the message) or
   *     something else could not be closed
   */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    LOG.info("Stopping the Flight SQL server at {}", uri());
    Deque<AutoCloseable> resources = new ArrayDeque<>();
    // Closed in this order: no new calls, running calls drained, then what the calls used.
    resources.add(server);
    resources.add(producer);
    resources.add(serverAllocator);
    resources.add(database);
    resources.add(rootAllocator);
    Throwable failure = closeAll(resources, null);
    if (failure instanceof RuntimeException runtime) {
      throw runtime;
    }
    if (failure != null) {
      throw new IllegalStateException("Could not close the Flight SQL server: " + failure, failure);
    }
  }

  /** Blocks until the server has shut down, for the standalone {@link #main}. */
  void awaitTermination() throws InterruptedException {
    server.awaitTermination();
  }

  /**
   * Runs the server standalone until the process is stopped. Flags (all optional): {@code --host},
   * {@code --port} (0 for a free port), {@code --endpoints}, {@code --data}, {@code
   * --lineitem-rows}, {@code --batch-rows}, {@code --setting name=value} (repeatable), {@code
   * --tls-cert} with {@code --tls-key}, {@code --client-ca}, {@code --username} (the password in
   * the environment variable {@code FLIGHTSQL_SERVER_PASSWORD}), {@code --token-env VAR}, {@code
   * --sessions}; see {@code --help}. Bad flags print the usage and exit with status 2.
   */
  public static void main(String[] args) {
    if (ServerCommandLine.wantsHelp(args)) {
      System.out.println(ServerCommandLine.USAGE);
      return;
    }
    Builder builder;
    try {
      builder = ServerCommandLine.parse(args);
    } catch (IllegalArgumentException e) {
      System.err.println(e.getMessage());
      System.err.println(ServerCommandLine.USAGE);
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

  private void checkOpen() {
    if (closed.get()) {
      throw new IllegalStateException("The Flight SQL server at " + uri() + " is closed");
    }
  }

  /** Closes each resource in order, even when one fails; returns the first failure, or null. */
  private static Throwable closeAll(Deque<AutoCloseable> resources, Throwable first) {
    for (AutoCloseable resource : resources) {
      try {
        resource.close();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        first = chain(first, e);
      } catch (Exception e) {
        first = chain(first, e);
      }
    }
    return first;
  }

  private static Throwable chain(Throwable first, Throwable next) {
    if (first == null) {
      return next;
    }
    first.addSuppressed(next);
    return first;
  }

  /**
   * Configures and starts a {@link DuckDbFlightSqlServer}. Every setting has a default, so {@code
   * builder().start()} gives a server on 127.0.0.1, a free port, with 2 endpoints per query and a
   * million-row {@code lineitem}.
   */
  public static final class Builder {

    private String host = "127.0.0.1";
    private int port = 0;
    private int endpoints = 2;
    private long lineitemRows = 1_000_000;
    private int batchRows = 65_536;
    private Path data;
    private final List<DuckDbSetting> settings = new ArrayList<>();
    private String username;
    private String password;
    private String bearerToken;
    private Path tlsCertificateChain;
    private Path tlsPrivateKey;
    private Path trustedClientCa;
    private boolean sessions;
    private List<Location> endpointLocations = List.of();

    private Builder() {}

    /** The address to listen on; default {@code 127.0.0.1}. */
    public Builder host(String host) {
      if (host == null || host.isBlank()) {
        throw new IllegalArgumentException(
            "Invalid value '" + host + "' for option 'host': expected a host name or address");
      }
      this.host = host;
      return this;
    }

    /** The port to listen on, 0 (the default) for one the system picks. */
    public Builder port(int port) {
      this.port = check("port", port, 0, 65_535);
      return this;
    }

    /** How many endpoints each query's FlightInfo has; default 2. */
    public Builder endpoints(int endpoints) {
      this.endpoints = check("endpoints", endpoints, 1, 1024);
      return this;
    }

    /** How many rows {@code lineitem} gets, 0 for no {@code lineitem}; default 1,000,000. */
    public Builder lineitemRows(long rows) {
      if (rows < 0 || rows > DemoData.MAX_LINEITEM_ROWS) {
        throw new IllegalArgumentException(
            "Invalid value '"
                + rows
                + "' for option 'lineitemRows': expected 0.."
                + DemoData.MAX_LINEITEM_ROWS);
      }
      this.lineitemRows = rows;
      return this;
    }

    /** The most rows per Arrow batch that DoGet sends; default 65,536. */
    public Builder batchRows(int rows) {
      this.batchRows = check("batchRows", rows, 1, Integer.MAX_VALUE);
      return this;
    }

    /**
     * Data to load at start-up: a {@code .sql} script, or a directory whose {@code *.parquet} and
     * {@code *.csv} files become tables named after the files, after which its {@code *.sql} files
     * run in name order.
     */
    public Builder data(Path data) {
      if (data == null) {
        throw new IllegalArgumentException(
            "Invalid value 'null' for option 'data': expected a path");
      }
      this.data = data;
      return this;
    }

    /**
     * A DuckDB setting applied database-wide ({@code SET GLOBAL}) at start-up, after the server's
     * own defaults, which it may override; settings apply in the order given. The Arrow types that
     * clients receive depend on DuckDB's Arrow settings, for example:
     *
     * <ul>
     *   <li>{@code arrow_large_buffer_size=true}: large_utf8, large_binary and large_list;
     *   <li>{@code arrow_output_version=1.4} with {@code produce_arrow_string_view=true}: utf8_view
     *       (and binary_view for BLOB, which 1.4 exports even without the string view setting);
     *   <li>{@code arrow_output_version=1.4} with {@code arrow_output_list_view=true}: list_view;
     *   <li>{@code arrow_lossless_conversion=true}: the extension types arrow.uuid, arrow.json,
     *       arrow.bool8 and DuckDB's arrow.opaque ones (HUGEINT, UHUGEINT, TIMETZ, BIT).
     * </ul>
     *
     * <p>The value is sent as a SQL string literal, which DuckDB casts to the setting's type.
     * DuckDB checks names and values when the server starts.
     *
     * @param name letters, digits and underscores, such as {@code arrow_large_buffer_size}; not
     *     {@code threads}, which the server manages
     * @param value the value as text, such as {@code true}, {@code 4} or {@code Europe/Paris}
     * @throws IllegalArgumentException if the name or the value is not acceptable
     */
    public Builder setting(String name, String value) {
      settings.add(new DuckDbSetting(name, value));
      return this;
    }

    /**
     * Turns on Flight basic authentication: a call whose {@code authorization} header is {@code
     * Basic base64(username:password)} is answered with a bearer token in the response header
     * {@code authorization: Bearer <token>}, which later calls send instead. Every call without
     * valid credentials fails with {@code UNAUTHENTICATED}. Combines with {@link #bearerToken}: a
     * call is accepted with either.
     *
     * @param username not empty, without ':'
     * @param password not empty
     */
    public Builder basicAuth(String username, String password) {
      if (username == null || username.isEmpty() || username.indexOf(':') >= 0) {
        throw new IllegalArgumentException(
            "Invalid value '"
                + username
                + "' for option 'username': expected a non-empty name without ':'");
      }
      if (password == null || password.isEmpty()) {
        // The value is a secret: it is never repeated in a message.
        throw new IllegalArgumentException(
            "Invalid value for option 'password': expected a non-empty password");
      }
      this.username = username;
      this.password = password;
      return this;
    }

    /**
     * Turns on authentication by a fixed bearer token: calls must send {@code authorization: Bearer
     * <token>} (or basic credentials, if {@link #basicAuth} is set too), or fail with {@code
     * UNAUTHENTICATED}.
     */
    public Builder bearerToken(String token) {
      if (token == null || token.isBlank() || !token.strip().equals(token)) {
        throw new IllegalArgumentException(
            "Invalid value for option 'bearerToken': expected a non-empty token without"
                + " surrounding spaces");
      }
      this.bearerToken = token;
      return this;
    }

    /**
     * Serves over TLS with this certificate chain and private key (PEM files; the key unencrypted
     * PKCS#8); {@link DuckDbFlightSqlServer#uri()} then starts with {@code grpc+tls://}. See {@link
     * TestCertificates}.
     */
    public Builder tls(Path certificateChainPem, Path privateKeyPem) {
      if (certificateChainPem == null || privateKeyPem == null) {
        throw new IllegalArgumentException(
            "Invalid value 'null' for option 'tls': expected a certificate chain and a private key"
                + " (PEM files)");
      }
      this.tlsCertificateChain = certificateChainPem;
      this.tlsPrivateKey = privateKeyPem;
      return this;
    }

    /**
     * Mutual TLS: clients must present a certificate signed by this CA (a PEM file), or the TLS
     * handshake fails. Needs {@link #tls}.
     */
    public Builder clientCertificates(Path trustedClientCaPem) {
      if (trustedClientCaPem == null) {
        throw new IllegalArgumentException(
            "Invalid value 'null' for option 'clientCertificates': expected a CA certificate (PEM"
                + " file)");
      }
      this.trustedClientCa = trustedClientCaPem;
      return this;
    }

    /**
     * The locations (URIs such as {@code grpc+tcp://host:port}) that every endpoint of a query
     * advertises, in order, for clients to try one after another; by default none, which tells
     * clients to read from this server. Lets tests point endpoints at other servers, or at dead
     * addresses first.
     */
    public Builder endpointLocations(List<String> uris) {
      List<Location> parsed = new ArrayList<>();
      for (String uri : uris) {
        try {
          parsed.add(new Location(uri));
        } catch (java.net.URISyntaxException e) {
          throw new IllegalArgumentException(
              "Invalid value '" + uri + "' for option 'endpointLocations': " + e.getMessage(), e);
        }
      }
      this.endpointLocations = List.copyOf(parsed);
      return this;
    }

    /**
     * Turns cookie-based sessions on or off (the default). With sessions, a call without a valid
     * {@code flightsql_session} cookie starts a new session, whose id the response sets as that
     * cookie; the session options {@code catalog} and {@code schema} (SetSessionOptions) change the
     * default catalog and schema of the session's later queries and statements; a query's tickets
     * can only be read with its session's cookie; CloseSession ends the session. Without sessions,
     * cookies are neither set nor read, and the session actions answer {@code UNIMPLEMENTED}.
     */
    public Builder sessions(boolean enabled) {
      this.sessions = enabled;
      return this;
    }

    /**
     * Creates the database, loads the data and starts listening.
     *
     * @throws IOException if the port cannot be bound or the data cannot be loaded
     * @throws IllegalArgumentException with DuckDB's message if DuckDB rejects a {@link #setting}
     */
    public DuckDbFlightSqlServer start() throws IOException {
      if (data != null && !Files.exists(data)) {
        throw new IOException("Invalid value '" + data + "' for option 'data': no such file");
      }
      if (trustedClientCa != null && tlsCertificateChain == null) {
        throw new IllegalArgumentException(
            "Option 'clientCertificates' needs TLS: set tls(certificateChain, privateKey) too");
      }
      for (Path file : new Path[] {tlsCertificateChain, tlsPrivateKey, trustedClientCa}) {
        if (file != null && !Files.isReadable(file)) {
          throw new IOException(
              "Invalid value '" + file + "' for option 'tls': no such readable file");
        }
      }
      long startNanos = System.nanoTime();
      Deque<AutoCloseable> opened = new ArrayDeque<>();
      try {
        BufferAllocator rootAllocator = new RootAllocator();
        opened.push(rootAllocator);
        DuckDbDatabase database = DuckDbDatabase.openInMemory(List.copyOf(settings));
        opened.push(database);
        DemoData.createTypesDemo(database);
        DemoData.createLineitem(database, lineitemRows);
        if (data != null) {
          DataLoader.load(database, data);
        }
        database.serveDeterministically();
        BufferAllocator serverAllocator =
            rootAllocator.newChildAllocator("flight-server", 0, Long.MAX_VALUE);
        opened.push(serverAllocator);
        BufferAllocator producerAllocator =
            rootAllocator.newChildAllocator("flight-sql-producer", 0, Long.MAX_VALUE);
        // Until the server runs, no call can hold producer memory: closing the allocator suffices.
        opened.push(producerAllocator);
        DuckDbFlightSqlProducer producer =
            new DuckDbFlightSqlProducer(
                database, producerAllocator, endpoints, batchRows, endpointLocations);
        CallRecorder recorder = new CallRecorder();
        ServerAuthenticator authenticator =
            password == null && bearerToken == null
                ? null
                : new ServerAuthenticator(username, password, bearerToken);
        FlightServer server = flightServer(serverAllocator, producer, recorder, authenticator);
        opened.push(server);
        server.start();
        DuckDbFlightSqlServer started =
            new DuckDbFlightSqlServer(
                host,
                tlsCertificateChain != null,
                server,
                recorder,
                authenticator,
                producer,
                database,
                serverAllocator,
                rootAllocator);
        LOG.info(
            "Flight SQL server on {} started in {} ms (DuckDB {}, lineitem {} rows, {} endpoints"
                + " per query, {} rows per batch, settings {}, {})",
            started.uri(),
            (System.nanoTime() - startNanos) / 1_000_000,
            database.version(),
            lineitemRows,
            endpoints,
            batchRows,
            settings,
            security());
        return started;
      } catch (SQLException e) {
        IOException failure =
            new IOException("Could not set up the DuckDB database: " + e.getMessage(), e);
        closeAll(opened, failure);
        throw failure;
      } catch (IOException | RuntimeException e) {
        closeAll(opened, e);
        throw e;
      }
    }

    /**
     * The Flight server around {@code producer}, with its middleware in this order: the call
     * recorder (so that refused calls are recorded too), authentication, sessions.
     */
    private FlightServer flightServer(
        BufferAllocator allocator,
        DuckDbFlightSqlProducer producer,
        CallRecorder recorder,
        ServerAuthenticator authenticator)
        throws IOException {
      Location location =
          tlsCertificateChain == null
              ? Location.forGrpcInsecure(host, port)
              : Location.forGrpcTls(host, port);
      FlightServer.Builder builder = FlightServer.builder(allocator, location, producer);
      builder.middleware(CallRecorder.KEY, recorder);
      if (authenticator != null) {
        // Registered here rather than through headerAuthenticator(), which would put it after
        // every other middleware; under Arrow's own key, so that peerIdentity() reports the user.
        builder.middleware(
            FlightServerMiddleware.Key.of(Auth2Constants.AUTHORIZATION_HEADER),
            new ServerCallHeaderAuthMiddleware.Factory(authenticator));
      }
      if (sessions) {
        // After authentication: a refused call starts no session.
        builder.middleware(DuckDbSessions.KEY, new DuckDbSessions());
      }
      if (tlsCertificateChain != null) {
        builder.useTls(tlsCertificateChain.toFile(), tlsPrivateKey.toFile());
      }
      if (trustedClientCa != null) {
        builder.useMTlsClientVerification(trustedClientCa.toFile());
      }
      return builder.build();
    }

    /** The security settings for the start-up log line, without secrets. */
    private String security() {
      List<String> parts = new ArrayList<>();
      parts.add(tlsCertificateChain == null ? "no TLS" : "TLS");
      if (trustedClientCa != null) {
        parts.add("client certificates required");
      }
      if (password != null) {
        parts.add("basic auth for user '" + username + "'");
      }
      if (bearerToken != null) {
        parts.add("fixed bearer token");
      }
      if (sessions) {
        parts.add("sessions");
      }
      return String.join(", ", parts);
    }

    private static int check(String option, int value, int min, int max) {
      if (value < min || value > max) {
        throw new IllegalArgumentException(
            "Invalid value '"
                + value
                + "' for option '"
                + option
                + "': expected "
                + min
                + ".."
                + max);
      }
      return value;
    }
  }
}
