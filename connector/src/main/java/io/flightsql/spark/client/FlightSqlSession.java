package io.flightsql.spark.client;

import io.flightsql.spark.client.metadata.NameLookup;
import io.flightsql.spark.client.metadata.ServerCapabilities;
import io.flightsql.spark.client.metadata.ServerFacts;
import io.flightsql.spark.client.metadata.ServerSchema;
import io.flightsql.spark.client.metadata.ServerTable;
import io.flightsql.spark.client.metadata.SessionMetadata;
import io.flightsql.spark.client.metadata.TableRef;
import io.flightsql.spark.client.transport.Allocators;
import io.flightsql.spark.client.transport.ConnectionSettings;
import io.flightsql.spark.client.transport.EndpointStreams;
import io.flightsql.spark.client.transport.FlightErrors;
import io.flightsql.spark.client.transport.FlightSqlClientWithOptions;
import io.flightsql.spark.client.transport.FlightSqlConnectorException;
import io.flightsql.spark.client.transport.FlightUri;
import io.flightsql.spark.client.transport.SessionClients;
import io.flightsql.spark.client.transport.SessionState;
import io.flightsql.spark.client.upload.DoPutUpload;
import io.flightsql.spark.client.upload.IngestMode;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import org.apache.arrow.flight.CancelFlightInfoResult;
import org.apache.arrow.flight.FlightEndpoint;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.flight.Ticket;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The connector's conversation with one Flight SQL server: planning a query on the driver and
 * reading endpoints on executors. Runs statements and transactions itself; metadata calls go to
 * {@link SessionMetadata}, endpoint streams to {@link EndpointStreams}, and every call through the
 * {@link FlightSqlClientWithOptions} per server that {@link SessionClients} keeps, which adds the
 * connection's credentials, headers, cookies and deadlines. Owns an Arrow allocator (a child of
 * {@link Allocators}) from which every stream it opens allocates; {@link #close()} releases it and
 * fails if any buffer leaked. Not thread-safe: one per planning step or per partition.
 */
public final class FlightSqlSession implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(FlightSqlSession.class);

  private static final String RENEW = "RenewFlightEndpoint";

  private final BufferAllocator allocator;
  private final SessionClients clients;
  private final EndpointStreams streams;
  private final SessionMetadata metadata;

  private FlightSqlSession(
      ConnectionSettings settings, SessionState seed, BufferAllocator allocator) {
    this.allocator = allocator;
    this.clients =
        new SessionClients(
            settings, seed, allocator, client -> SessionDefaults.apply(client, settings));
    this.streams = new EndpointStreams(settings, clients);
    this.metadata = new SessionMetadata(clients, streams);
  }

  /** Opens a session; {@code purpose} names its allocator in leak reports. */
  public static FlightSqlSession open(ConnectionSettings settings, String purpose) {
    return open(settings, purpose, SessionState.empty());
  }

  /**
   * Opens a session that continues one of the driver: it sends the token and cookies the driver's
   * session had (see {@link #state()}), so the server sees the same session.
   */
  public static FlightSqlSession open(
      ConnectionSettings settings, String purpose, SessionState seed) {
    return new FlightSqlSession(
        settings, seed, Allocators.newChild("flightsql-" + purpose, settings.taskMemoryLimit()));
  }

  public FlightUri server() {
    return clients.server();
  }

  /** What is known of this session's server, as its user sees it. */
  public ServerFacts facts() {
    return ServerFacts.of(clients.settings());
  }

  /** The token and cookies this session has now, for sessions that continue it on executors. */
  public SessionState state() {
    return clients.state();
  }

  /**
   * Whether the server's session now has options {@code catalog} and {@code schema} as its
   * defaults: true when neither is set, or when SetSessionOptions accepted them (or a session
   * continued from the driver's did). False when the server does not implement SetSessionOptions or
   * does not know the options; the caller then qualifies names itself.
   */
  public boolean sessionHasDefaults() {
    return clients.sessionHasDefaults();
  }

  /** Runs the query (GetFlightInfo on CommandStatementQuery): its endpoints and, maybe, schema. */
  public FlightInfo execute(String query) {
    return call("GetFlightInfo", client -> client.execute(query));
  }

  /**
   * Asks the server to cancel a planned query that no one will read (CancelFlightInfo), which frees
   * what the server holds for it; a server seen not to implement the call is not asked again, and
   * each of the plan's tickets is {@link #release released} instead. How that went is logged, never
   * raised: the plan is dropped either way.
   */
  public void cancelPlanned(FlightInfo info) {
    String rpc = "CancelFlightInfo";
    boolean interrupted = Thread.interrupted();
    try {
      if (!facts().lacks(rpc)) {
        try {
          CancelFlightInfoResult result =
              clients.forServer().cancel(info, QueryPlanner.CANCEL_DEADLINE_MILLIS);
          LOG.info("CancelFlightInfo of an unread plan on {}: {}", server(), result.getStatus());
          return;
        } catch (RuntimeException e) {
          LOG.info("CancelFlightInfo of an unread plan on {} failed: {}", server(), e.getMessage());
          if (!FlightErrors.isUnimplemented(e)) {
            return;
          }
          facts().noteLacking(rpc);
        }
      }
      for (FlightEndpoint endpoint : info.getEndpoints()) {
        release(streams.targets(endpoint), endpoint.getTicket());
      }
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /**
   * Opens the stream of a ticket no one will read and closes it at once, which cancels it: on a
   * server without CancelFlightInfo that keeps what it planned until the ticket is read (Arrow's
   * Derby example holds a pooled connection for each, and its calls wait for one once the pool is
   * empty), this is the only way the protocol has to end the plan. A failure is logged, not raised:
   * the ticket may have been read, or have expired, since.
   */
  public void release(List<FlightUri> targets, Ticket ticket) {
    try {
      streams.open(targets, ticket).close();
      LOG.debug("Released an unread ticket on {}", targets.get(0));
    } catch (Exception e) {
      LOG.info("Releasing an unread ticket on {} failed: {}", targets.get(0), e.getMessage());
    }
  }

  /**
   * Plans a query that may run long ({@link QueryPlanner}): PollFlightInfo where the server has it,
   * else GetFlightInfo, bounded by {@code queryTimeout} (null for none) and cancelled on the server
   * when {@code cancellation} says so or the thread is interrupted.
   *
   * @throws FlightSqlConnectorException naming option {@code queryTimeout} when planning passed it,
   *     with status CANCELLED when planning was cancelled, else the failed call's
   */
  public FlightInfo plan(String query, Duration queryTimeout, PlanningCancellation cancellation) {
    FlightSqlClientWithOptions client;
    try {
      client = clients.forServer();
    } catch (RuntimeException e) {
      throw SessionClients.failed("GetFlightInfo", server(), e);
    }
    return new QueryPlanner(client, server(), query, queryTimeout, cancellation).plan();
  }

  /**
   * Renews an endpoint (RenewFlightEndpoint) at the server of option {@code uri}: the endpoint with
   * its new expiration time, or empty when the server does not implement the action (remembered for
   * the JVM, so that only the first partition asks).
   */
  public Optional<FlightEndpoint> renew(FlightEndpoint endpoint) {
    if (facts().lacks(RENEW)) {
      return Optional.empty();
    }
    try {
      return Optional.of(clients.forServer().renew(endpoint));
    } catch (RuntimeException e) {
      if (FlightErrors.isUnimplemented(e)) {
        facts().noteLacking(RENEW);
        return Optional.empty();
      }
      throw SessionClients.failed(RENEW, server(), e);
    }
  }

  /**
   * The query's result schema, found as cheaply as the server allows: GetSchema; else the dataset
   * schema of a prepared statement; else the schema in FlightInfo; else the head of the first
   * endpoint's stream.
   */
  public Schema resultSchema(String query) {
    return metadata.resultSchema(query);
  }

  /**
   * What the server says it can do (GetSqlInfo). A server that does not implement GetSqlInfo is
   * taken to have no transactions; any other failure is raised.
   */
  public ServerCapabilities capabilities() {
    return metadata.capabilities();
  }

  /** Runs {@code query} and counts the rows of its answer, reading every endpoint to its end. */
  public long countRows(String query) {
    return metadata.countRows(query);
  }

  /**
   * The table {@code table} names, as the server lists it (GetTables): the exact spelling first;
   * unless case matters ({@link NameLookup#caseSensitive()}), else the one table whose name (and
   * given qualifiers) equal it ignoring case. A name without its schema (or catalog) that matches
   * tables in several places means the one in the server's current schema, as the server's SQL
   * takes it ({@code CurrentSchema}: GetSessionOptions, else the established dialect's query).
   *
   * @param withColumns whether to ask for the table's columns too (GetTables include_schema)
   * @throws IllegalArgumentException when the name matches several tables and the server's current
   *     schema does not choose one of them, listing them and how to name one
   */
  public Optional<ServerTable> findTable(TableRef table, NameLookup lookup, boolean withColumns) {
    return metadata.findTable(table, lookup, withColumns);
  }

  /**
   * As {@link #findTable(TableRef, NameLookup, boolean)}, on a server that may lack GetTables:
   * where it answers UNIMPLEMENTED (remembered per server in this JVM, so each miss costs one
   * call), the table is looked for as Spark's JDBC source does, with {@code probeSql}, a query of
   * the table that returns no row ({@code SELECT * FROM t WHERE 1 = 0}): the table exists, with the
   * columns of its answer, when the server runs it, and does not when the server refuses it. The
   * server resolves the name in {@code probeSql} itself.
   */
  public Optional<ServerTable> findTable(
      TableRef table, NameLookup lookup, boolean withColumns, String probeSql) {
    if (!facts().lacks("GetTables")) {
      try {
        return metadata.findTable(table, lookup, withColumns);
      } catch (FlightSqlConnectorException e) {
        if (!"UNIMPLEMENTED".equals(e.statusCode())) {
          throw e;
        }
        facts().noteLacking("GetTables");
        LOG.info(
            "{} does not implement GetTables; tables are looked for with queries that return no"
                + " row",
            server());
      }
    }
    return metadata.probeTable(table, probeSql);
  }

  /** The server's catalogs (GetCatalogs); empty names are left out. */
  public List<String> catalogs() {
    return metadata.catalogs();
  }

  /** The server's schemas (GetDbSchemas), in {@code catalog} when given. */
  public List<ServerSchema> schemas(String catalog) {
    return metadata.schemas(catalog);
  }

  /**
   * The tables GetTables lists for a catalog, a schema pattern and a table name pattern (null for
   * any), with their columns when {@code withColumns} and the server sends them.
   */
  public List<ServerTable> tables(
      String catalog, String schemaPattern, String tablePattern, boolean withColumns) {
    return metadata.tables(catalog, schemaPattern, tablePattern, withColumns);
  }

  /**
   * The tables whose names start with {@code prefix}, in the catalog and schema of {@code place}.
   */
  public List<TableRef> tablesStartingWith(TableRef place, String prefix) {
    return metadata.tablesStartingWith(place, prefix);
  }

  /**
   * Runs a statement that returns no rows (CommandStatementUpdate), inside a transaction or not.
   */
  public long executeUpdate(String statement, byte[] transactionId) {
    return call(
        "DoPut(CommandStatementUpdate)", client -> client.executeUpdate(statement, transactionId));
  }

  /**
   * Runs a statement that should finish at once, outside any transaction (a clean-up, such as
   * dropping a staging table), within the deadline of metadata calls ({@code callTimeout}, else
   * {@code streamIdleTimeout}) rather than none: a server that holds it behind another
   * transaction's lock fails it, naming the option, instead of holding the job.
   */
  public long executeUpdateBounded(String statement) {
    return call("DoPut(CommandStatementUpdate)", client -> client.executeUpdateBounded(statement));
  }

  /** Begins a transaction; its id goes with later calls that belong to it. */
  public byte[] beginTransaction() {
    return call("BeginTransaction", FlightSqlClientWithOptions::beginTransaction);
  }

  public void commit(byte[] transactionId) {
    call(
        "EndTransaction(COMMIT)",
        client -> {
          client.commit(transactionId);
          return null;
        });
  }

  public void rollback(byte[] transactionId) {
    call(
        "EndTransaction(ROLLBACK)",
        client -> {
          client.rollback(transactionId);
          return null;
        });
  }

  /** Starts a bulk ingestion of the root's batches into {@code table}. */
  public DoPutUpload ingest(
      VectorSchemaRoot root, TableRef table, IngestMode mode, byte[] transactionId) {
    return DoPutUpload.ingest(clients.forServer(), server(), root, table, mode, transactionId);
  }

  /** Prepares {@code insert} and starts binding the root's batches to it as parameter rows. */
  public DoPutUpload preparedUpdate(VectorSchemaRoot root, String insert, byte[] transactionId) {
    return DoPutUpload.preparedUpdate(clients.forServer(), server(), root, insert, transactionId);
  }

  /** This session's allocator, for the Arrow batches of an upload. */
  public BufferAllocator allocator() {
    return allocator;
  }

  /** The servers to try for an endpoint, in order. */
  public List<FlightUri> targets(FlightEndpoint endpoint) {
    return streams.targets(endpoint);
  }

  /**
   * Opens the stream of a ticket from the first target that answers. The failures of the targets
   * tried before are kept as suppressed exceptions of the final failure, or logged when a later
   * target worked. The caller closes the stream before closing this session.
   */
  public FlightStream stream(List<FlightUri> targets, Ticket ticket) {
    return streams.open(targets, ticket);
  }

  /**
   * One unary call to the server of option {@code uri}; a failure, including one in creating its
   * client, is a {@link FlightSqlConnectorException} naming {@code rpc}.
   */
  private <T> T call(String rpc, Function<FlightSqlClientWithOptions, T> call) {
    try {
      return call.apply(clients.forServer());
    } catch (RuntimeException e) {
      throw SessionClients.failed(rpc, server(), e);
    }
  }

  /** Closes every client, then the allocator, which fails if any Arrow buffer is still held. */
  @Override
  public void close() {
    RuntimeException failure = null;
    try {
      clients.close();
    } catch (RuntimeException e) {
      failure = e;
    }
    try {
      Allocators.noteClosing(allocator);
      allocator.close();
    } catch (RuntimeException e) {
      if (failure != null) {
        e.addSuppressed(failure);
      }
      throw e;
    }
    if (failure != null) {
      throw failure;
    }
  }
}
