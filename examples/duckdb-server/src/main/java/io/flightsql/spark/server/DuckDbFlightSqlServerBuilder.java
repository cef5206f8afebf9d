package io.flightsql.spark.server;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.BiConsumer;
import org.apache.arrow.flight.FlightProducer;
import org.apache.arrow.flight.FlightServerMiddleware;
import org.apache.arrow.flight.Location;
import org.apache.arrow.vector.compression.CompressionUtil.CodecType;

/**
 * Configures and starts a {@link DuckDbFlightSqlServer}; {@link DuckDbFlightSqlServer#builder()}
 * makes one. Every setting has a default, so {@code builder().start()} gives a server on 127.0.0.1,
 * a free port, with 2 endpoints per query and a million-row {@code lineitem}.
 *
 * <p>Not thread-safe; each {@link #start()} starts a new server with what the builder was told so
 * far.
 */
public final class DuckDbFlightSqlServerBuilder {

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
  private LongQuerySettings longQueries = LongQuerySettings.DEFAULTS;
  private final List<ServerConfiguration.ExtraMiddleware<?>> middleware = new ArrayList<>();
  private final List<BiConsumer<FlightProducer.CallContext, String>> actionObservers =
      new ArrayList<>();
  private Duration batchDelay = Duration.ZERO;
  private CodecType compression = CodecType.NO_COMPRESSION;
  private final List<Runnable> cancellationObservers = new ArrayList<>();
  private final Set<String> withoutCommands = new LinkedHashSet<>();

  DuckDbFlightSqlServerBuilder() {}

  /** The address to listen on; default {@code 127.0.0.1}. */
  public DuckDbFlightSqlServerBuilder host(String host) {
    if (host == null || host.isBlank()) {
      throw new IllegalArgumentException(
          "Invalid value '" + host + "' for option 'host': expected a host name or address");
    }
    this.host = host;
    return this;
  }

  /** The port to listen on, 0 (the default) for one the system picks. */
  public DuckDbFlightSqlServerBuilder port(int port) {
    this.port = check("port", port, 0, 65_535);
    return this;
  }

  /** How many endpoints each query's FlightInfo has; default 2. */
  public DuckDbFlightSqlServerBuilder endpoints(int endpoints) {
    this.endpoints = check("endpoints", endpoints, 1, 1024);
    return this;
  }

  /** How many rows {@code lineitem} gets, 0 for no {@code lineitem}; default 1,000,000. */
  public DuckDbFlightSqlServerBuilder lineitemRows(long rows) {
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
  public DuckDbFlightSqlServerBuilder batchRows(int rows) {
    this.batchRows = check("batchRows", rows, 1, Integer.MAX_VALUE);
    return this;
  }

  /**
   * How query streams (DoGet) send their record batches: {@code none} (the default) as they are,
   * {@code zstd} or {@code lz4} (LZ4 frames) with compressed buffers, as Arrow C++ and pyarrow
   * servers can. Uploads are read whichever codec they use.
   */
  public DuckDbFlightSqlServerBuilder compression(String codec) {
    this.compression = StreamCompression.parse(codec);
    return this;
  }

  /**
   * Data to load at start-up: a {@code .sql} script, or a directory whose {@code *.parquet} and
   * {@code *.csv} files become tables named after the files, after which its {@code *.sql} files
   * run in name order.
   */
  public DuckDbFlightSqlServerBuilder data(Path data) {
    if (data == null) {
      throw new IllegalArgumentException("Invalid value 'null' for option 'data': expected a path");
    }
    this.data = data;
    return this;
  }

  /**
   * A DuckDB setting applied database-wide ({@code SET GLOBAL}) at start-up, after the server's own
   * defaults, which it may override; settings apply in the order given. The Arrow types that
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
   * <p>The value is sent as a SQL string literal, which DuckDB casts to the setting's type. DuckDB
   * checks names and values when the server starts.
   *
   * @param name letters, digits and underscores, such as {@code arrow_large_buffer_size}; not
   *     {@code threads}, which the server manages
   * @param value the value as text, such as {@code true}, {@code 4} or {@code Europe/Paris}
   * @throws IllegalArgumentException if the name or the value is not acceptable
   */
  public DuckDbFlightSqlServerBuilder setting(String name, String value) {
    settings.add(new DuckDbSetting(name, value));
    return this;
  }

  /**
   * Turns on Flight basic authentication: a call whose {@code authorization} header is {@code Basic
   * base64(username:password)} is answered with a bearer token in the response header {@code
   * authorization: Bearer <token>}, which later calls send instead. Every call without valid
   * credentials fails with {@code UNAUTHENTICATED}. Combines with {@link #bearerToken}: a call is
   * accepted with either.
   *
   * @param username not empty, without ':'
   * @param password not empty
   */
  public DuckDbFlightSqlServerBuilder basicAuth(String username, String password) {
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
  public DuckDbFlightSqlServerBuilder bearerToken(String token) {
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
   * PKCS#8); {@link DuckDbFlightSqlServer#uri()} then starts with {@code grpc+tls://}. Tests get
   * such files from {@code TestCertificates}, in the test-support module.
   */
  public DuckDbFlightSqlServerBuilder tls(Path certificateChainPem, Path privateKeyPem) {
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
  public DuckDbFlightSqlServerBuilder clientCertificates(Path trustedClientCaPem) {
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
  public DuckDbFlightSqlServerBuilder endpointLocations(List<String> uris) {
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
   * Makes planning each statement query take at least {@code delay}, as a long-running query on a
   * real server would, for tests of clients: GetFlightInfo answers only after it (or fails with
   * CANCELLED as soon as the client cancels the call), and PollFlightInfo runs the query in the
   * background, answering at once with its progress (the share of the delay elapsed) and a
   * descriptor to poll again. CancelFlightInfo stops a query still being polled. Default: none.
   */
  public DuckDbFlightSqlServerBuilder planningDelay(Duration delay) {
    longQueries =
        new LongQuerySettings(
            delay, longQueries.poll(), longQueries.endpointExpiration(), longQueries.renew());
    return this;
  }

  /**
   * Whether the server implements PollFlightInfo (the default); without it, PollFlightInfo answers
   * UNIMPLEMENTED, as many servers do, and clients must use GetFlightInfo.
   */
  public DuckDbFlightSqlServerBuilder pollFlightInfo(boolean enabled) {
    longQueries =
        new LongQuerySettings(
            longQueries.planningDelay(),
            enabled,
            longQueries.endpointExpiration(),
            longQueries.renew());
    return this;
  }

  /**
   * Gives every statement endpoint an expiration time, {@code lifetime} after planning (or after
   * its last renewal): DoGet refuses its ticket afterwards with NOT_FOUND, saying it expired. By
   * default endpoints do not expire.
   */
  public DuckDbFlightSqlServerBuilder endpointExpiration(Duration lifetime) {
    longQueries =
        new LongQuerySettings(
            longQueries.planningDelay(), longQueries.poll(), lifetime, longQueries.renew());
    return this;
  }

  /**
   * Whether RenewFlightEndpoint extends an endpoint's expiration by another {@link
   * #endpointExpiration} (the default); without it, it answers UNIMPLEMENTED.
   */
  public DuckDbFlightSqlServerBuilder renewEndpoints(boolean enabled) {
    longQueries =
        new LongQuerySettings(
            longQueries.planningDelay(),
            longQueries.poll(),
            longQueries.endpointExpiration(),
            enabled);
    return this;
  }

  /**
   * Turns cookie-based sessions on or off (the default). With sessions, a call without a valid
   * {@code flightsql_session} cookie starts a new session, whose id the response sets as that
   * cookie; the session options {@code catalog} and {@code schema} (SetSessionOptions) change the
   * default catalog and schema of the session's later queries and statements; a query's tickets can
   * only be read with its session's cookie; CloseSession ends the session. Without sessions,
   * cookies are neither set nor read, and the session actions answer {@code UNIMPLEMENTED}.
   */
  public DuckDbFlightSqlServerBuilder sessions(boolean enabled) {
    this.sessions = enabled;
    return this;
  }

  /**
   * Installs a Flight server middleware of the caller's on every call, ahead of the server's own
   * (authentication, then sessions), so that it also sees the calls that authentication refuses.
   * Middleware is installed in the order given; a call's instance is in its {@code CallContext}
   * under {@code key}. For tests, such as the test-support module's {@code CallRecorder}, or for
   * logging and metrics of one's own.
   *
   * @param key a key whose name no other middleware of the server uses: Flight refuses a name used
   *     twice when the server starts ({@code Key already exists: <name>})
   */
  public <T extends FlightServerMiddleware> DuckDbFlightSqlServerBuilder middleware(
      FlightServerMiddleware.Key<T> key, FlightServerMiddleware.Factory<T> factory) {
    if (key == null || factory == null) {
      throw new IllegalArgumentException(
          "Invalid value 'null' for option 'middleware': expected a key and a factory");
    }
    middleware.add(new ServerConfiguration.ExtraMiddleware<>(key, factory));
    return this;
  }

  /**
   * Adds an observer that is told the type of each action (DoAction) before it runs, with the
   * call's context, in which the call's {@link #middleware} can be found. Flight tells middleware a
   * call's method, but an action's type is in the request, which only the server reads. Actions
   * refused for want of credentials never reach the observers. Observers run on the call's thread,
   * in the order given.
   */
  public DuckDbFlightSqlServerBuilder actionObserver(
      BiConsumer<FlightProducer.CallContext, String> observer) {
    if (observer == null) {
      throw new IllegalArgumentException(
          "Invalid value 'null' for option 'actionObserver': expected an observer");
    }
    actionObservers.add(observer);
    return this;
  }

  /**
   * Makes every query stream (DoGet) wait this long before sending each record batch, as a slow but
   * steady server would; default none. With {@link #batchRows} it sets the pace: 1,000 rows every 2
   * s, say.
   */
  public DuckDbFlightSqlServerBuilder batchDelay(Duration delay) {
    if (delay == null || delay.isNegative()) {
      throw new IllegalArgumentException(
          "Invalid value '"
              + delay
              + "' for option 'batchDelay': expected a duration of 0 or more");
    }
    this.batchDelay = delay;
    return this;
  }

  /**
   * Adds an observer run as soon as a client cancels a query stream (DoGet), on gRPC's thread, so
   * that a test can see when the cancellation reached the server. Observers must be quick.
   */
  public DuckDbFlightSqlServerBuilder doGetCancellationObserver(Runnable observer) {
    if (observer == null) {
      throw new IllegalArgumentException(
          "Invalid value 'null' for option 'doGetCancellationObserver': expected an observer");
    }
    cancellationObservers.add(observer);
    return this;
  }

  /**
   * Creates the database, loads the data and starts listening.
   *
   * @throws IOException if the port cannot be bound or the data cannot be loaded
   * @throws IllegalArgumentException with DuckDB's message if DuckDB rejects a {@link #setting}
   */
  public DuckDbFlightSqlServer start() throws IOException {
    return ServerStartup.start(configuration());
  }

  /** The features {@link #without} can take away. */
  static final Set<String> OPTIONAL_COMMANDS =
      Set.of(
          "GetSqlInfo",
          "GetTables",
          "GetCatalogs",
          "GetDbSchemas",
          "GetSchema",
          "TicketReuse",
          "RowStorage",
          "QueryPerEndpoint",
          "Transactions",
          "SchemaBeforeData");

  /**
   * Takes these features away, as servers without them do: the metadata commands {@code
   * GetSqlInfo}, {@code GetTables}, {@code GetCatalogs}, {@code GetDbSchemas} and {@code GetSchema}
   * (of a statement) then answer UNIMPLEMENTED (Sail has none of them, Deephaven no GetSqlInfo);
   * without {@code TicketReuse}, each statement ticket can be read once, and a second DoGet of it
   * answers NOT_FOUND (as on Sail and Deephaven); without {@code Transactions}, GetSqlInfo reports
   * none and BeginTransaction answers UNIMPLEMENTED (as on Arrow's Derby example); without {@code
   * SchemaBeforeData}, a statement's FlightInfo and a prepared query carry no schema, which only
   * the head of the data stream then gives (as on arrow-go's SQLite example, with GetSchema taken
   * away too). Two more make the server a cheaper partner for benchmarks of clients:
   *
   * <ul>
   *   <li>without {@code RowStorage}, the rows of bulk ingests and of prepared {@code INSERT}s are
   *       read, counted ({@link DuckDbFlightSqlServer#discardedRows()}) and dropped; tables are
   *       still created, so writes see the same answers, but stay empty;
   *   <li>without {@code QueryPerEndpoint}, a query outside a transaction runs once, in
   *       GetFlightInfo, and its endpoints are cheap slices of the result, which the server holds
   *       in memory until each endpoint has been read once (its ticket is then gone) and at most 10
   *       minutes, as servers that compute a result when planning it do. By default each endpoint
   *       runs the query again and keeps its own rows.
   * </ul>
   *
   * Default: none taken away.
   */
  public DuckDbFlightSqlServerBuilder without(String... commands) {
    for (String command : commands) {
      if (!OPTIONAL_COMMANDS.contains(command)) {
        throw new IllegalArgumentException(
            "Invalid value '"
                + command
                + "' for option 'without': expected any of "
                + new java.util.TreeSet<>(OPTIONAL_COMMANDS));
      }
      withoutCommands.add(command);
    }
    return this;
  }

  /** What this builder was told so far; for the start-up, and for tests of the command line. */
  ServerConfiguration configuration() {
    return new ServerConfiguration(
        host,
        port,
        endpoints,
        lineitemRows,
        batchRows,
        data,
        settings,
        username,
        password,
        bearerToken,
        tlsCertificateChain,
        tlsPrivateKey,
        trustedClientCa,
        sessions,
        endpointLocations,
        longQueries,
        middleware,
        actionObservers,
        new DoGetPacing(batchDelay, cancellationObservers),
        compression,
        withoutCommands);
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
