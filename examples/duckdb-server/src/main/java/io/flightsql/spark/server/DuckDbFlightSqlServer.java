package io.flightsql.spark.server;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.arrow.flight.FlightServer;
import org.apache.arrow.memory.BufferAllocator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An Arrow Flight SQL server backed by an in-memory DuckDB database: the server of the quick start
 * and of the connector's tests.
 *
 * <p>{@link #builder()} configures and starts it ({@link DuckDbFlightSqlServerBuilder}). At
 * start-up the database gets two deterministic demo tables, {@code lineitem} (TPC-H-like, size set
 * by {@link DuckDbFlightSqlServerBuilder#lineitemRows}) and {@code types_demo} (one column per
 * common scalar type), plus the user's data if {@link DuckDbFlightSqlServerBuilder#data} names any.
 * A query's FlightInfo has {@link DuckDbFlightSqlServerBuilder#endpoints} endpoints, disjoint
 * slices of the result that add up to it in endpoint order.
 *
 * <p>Columns reach clients with the Arrow types that DuckDB exports them as (the module's
 * ARROW_TYPES.md has the table), which DuckDB's Arrow settings change ({@link
 * DuckDbFlightSqlServerBuilder#setting}). ENUM columns arrive dictionary-encoded, with their
 * dictionaries in the stream.
 *
 * <p>Security is off by default and each part can be turned on: TLS ({@link
 * DuckDbFlightSqlServerBuilder#tls}, then {@link #uri()} is {@code grpc+tls://}), client
 * certificates ({@link DuckDbFlightSqlServerBuilder#clientCertificates}), Flight basic
 * authentication that hands out bearer tokens ({@link DuckDbFlightSqlServerBuilder#basicAuth}) and
 * a fixed bearer token ({@link DuckDbFlightSqlServerBuilder#bearerToken}). Cookie-based sessions
 * ({@link DuckDbFlightSqlServerBuilder#sessions}) give each client a default catalog and schema of
 * its own (SetSessionOptions). Middleware of the caller's ({@link
 * DuckDbFlightSqlServerBuilder#middleware}) runs ahead of authentication; the test-support module
 * has {@code TestCertificates}, which makes certificates for tests, and {@code CallRecorder},
 * middleware that records what clients sent.
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
  private final ServerAuthenticator authenticator;
  private final DuckDbFlightSqlProducer producer;
  private final DuckDbDatabase database;
  private final BufferAllocator serverAllocator;
  private final BufferAllocator rootAllocator;
  private final WireBytes wireBytes;
  private final AtomicBoolean closed = new AtomicBoolean();

  DuckDbFlightSqlServer(
      String host,
      boolean tls,
      FlightServer server,
      ServerAuthenticator authenticator,
      DuckDbFlightSqlProducer producer,
      DuckDbDatabase database,
      BufferAllocator serverAllocator,
      BufferAllocator rootAllocator,
      WireBytes wireBytes) {
    this.host = host;
    this.tls = tls;
    this.server = server;
    this.authenticator = authenticator;
    this.producer = producer;
    this.database = database;
    this.serverAllocator = serverAllocator;
    this.rootAllocator = rootAllocator;
    this.wireBytes = wireBytes;
  }

  /** A builder of a server, every setting at its default. */
  public static DuckDbFlightSqlServerBuilder builder() {
    return new DuckDbFlightSqlServerBuilder();
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
   * Invalidates every bearer token that basic authentication has handed out so far: the next call
   * that sends one is refused with {@code UNAUTHENTICATED} and must authenticate again. The fixed
   * {@link DuckDbFlightSqlServerBuilder#bearerToken} stays valid. For tests of re-authentication.
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

  /**
   * How many queries CancelFlightInfo (or Flight SQL's CancelQuery action) stopped while
   * PollFlightInfo was still planning them. For tests of clients.
   */
  public int cancelledQueries() {
    return producer.cancelledQueries();
  }

  /**
   * How many rows of ingests and prepared inserts this server counted and dropped since it started,
   * when started {@code without("RowStorage")}; 0 otherwise. For benchmarks of clients.
   */
  public long discardedRows() {
    return producer.discardedRows();
  }

  /**
   * The bytes of the gRPC messages this server has received since it started, as they travelled: an
   * upload of compressed record batches counts their compressed size. For tests and benchmarks of
   * clients.
   */
  public long bytesReceived() {
    return wireBytes.received();
  }

  /** The bytes of the gRPC messages this server has sent since it started, as they travelled. */
  public long bytesSent() {
    return wireBytes.sent();
  }

  /** How many transactions clients have begun and not ended. For tests. */
  public int openTransactions() {
    return producer.openTransactions();
  }

  /** How many prepared statements clients have created and not closed. For tests. */
  public int openPreparedStatements() {
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
   * --lineitem-rows}, {@code --batch-rows}, {@code --compression}, {@code --setting name=value}
   * (repeatable), {@code --tls-cert} with {@code --tls-key}, {@code --client-ca}, {@code
   * --username} (the password in the environment variable {@code FLIGHTSQL_SERVER_PASSWORD}),
   * {@code --token-env VAR}, {@code --sessions}; see {@code --help}. Bad flags print the usage and
   * exit with status 2.
   */
  public static void main(String[] args) {
    ServerCommandLine.run(args);
  }

  private void checkOpen() {
    if (closed.get()) {
      throw new IllegalStateException("The Flight SQL server at " + uri() + " is closed");
    }
  }

  /** Closes each resource in order, even when one fails; returns the first failure, or null. */
  static Throwable closeAll(Deque<AutoCloseable> resources, Throwable first) {
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
}
