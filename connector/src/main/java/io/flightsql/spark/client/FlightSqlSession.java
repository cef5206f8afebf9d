package io.flightsql.spark.client;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.arrow.flight.FlightEndpoint;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.FlightStatusCode;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.flight.Location;
import org.apache.arrow.flight.SessionOptionValue;
import org.apache.arrow.flight.SessionOptionValueFactory;
import org.apache.arrow.flight.SetSessionOptionsRequest;
import org.apache.arrow.flight.SetSessionOptionsResult;
import org.apache.arrow.flight.Ticket;
import org.apache.arrow.flight.sql.FlightSqlClient;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The connector's conversation with one Flight SQL server: planning a query on the driver and
 * reading endpoints on executors. Owns an Arrow allocator (a child of {@link Allocators}) from
 * which every stream it opens allocates; {@link #close()} releases it and fails if any buffer
 * leaked. Every call goes through a {@link FlightSqlClientWithOptions} per server, which adds the
 * connection's credentials, headers, cookies and deadlines. Not thread-safe: one per planning step
 * or per partition.
 */
public final class FlightSqlSession implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(FlightSqlSession.class);

  private final FlightUri server;
  private final ConnectionSettings settings;
  private final CallState state;
  private final boolean continued;
  private final BufferAllocator allocator;
  private final Map<FlightUri, FlightSqlClientWithOptions> clients = new LinkedHashMap<>();
  private Boolean sessionHasDefaults;

  private FlightSqlSession(
      ConnectionSettings settings, SessionState seed, BufferAllocator allocator) {
    this.server = settings.uri();
    this.settings = settings;
    this.state = new CallState(settings, seed);
    this.continued = !seed.cookies().isEmpty();
    this.allocator = allocator;
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
    return new FlightSqlSession(settings, seed, Allocators.newChild("flightsql-" + purpose));
  }

  public FlightUri server() {
    return server;
  }

  /** The token and cookies this session has now, for sessions that continue it on executors. */
  public SessionState state() {
    return state.snapshot();
  }

  /**
   * Whether the server's session now has options {@code catalog} and {@code schema} as its
   * defaults: true when neither is set, or when SetSessionOptions accepted them (or a session
   * continued from the driver's did). False when the server does not implement SetSessionOptions or
   * does not know the options; the caller then qualifies names itself.
   */
  public boolean sessionHasDefaults() {
    sql(server);
    return sessionHasDefaults;
  }

  private void applySessionDefaults(FlightSqlClientWithOptions client) {
    if ((settings.catalog() == null && settings.schema() == null) || continued) {
      sessionHasDefaults = true;
      return;
    }
    Map<String, SessionOptionValue> values = new LinkedHashMap<>();
    if (settings.catalog() != null) {
      values.put("catalog", SessionOptionValueFactory.makeSessionOptionValue(settings.catalog()));
    }
    if (settings.schema() != null) {
      values.put("schema", SessionOptionValueFactory.makeSessionOptionValue(settings.schema()));
    }
    SetSessionOptionsResult result;
    try {
      result = client.setSessionOptions(new SetSessionOptionsRequest(values));
    } catch (RuntimeException e) {
      if (FlightErrors.isUnimplemented(e)) {
        LOG.info(
            "{} does not implement SetSessionOptions; options 'catalog' and 'schema' qualify"
                + " table names instead",
            server);
        sessionHasDefaults = false;
        return;
      }
      throw failed("DoAction(SetSessionOptions)", server, e);
    }
    for (Map.Entry<String, SetSessionOptionsResult.Error> error : result.getErrors().entrySet()) {
      String reason = String.valueOf(error.getValue().value);
      if ("INVALID_NAME".equals(reason)) {
        LOG.info(
            "{} does not know session option '{}'; options 'catalog' and 'schema' qualify"
                + " table names instead",
            server,
            error.getKey());
        sessionHasDefaults = false;
        return;
      }
      String value = "catalog".equals(error.getKey()) ? settings.catalog() : settings.schema();
      throw new IllegalArgumentException(
          "Invalid value '"
              + value
              + "' for option '"
              + error.getKey()
              + "': "
              + server
              + " refused it as the session's default ("
              + reason
              + " from SetSessionOptions)");
    }
    sessionHasDefaults = true;
  }

  /** Runs the query (GetFlightInfo on CommandStatementQuery): its endpoints and, maybe, schema. */
  public FlightInfo execute(String query) {
    try {
      return sql(server).execute(query);
    } catch (RuntimeException e) {
      throw failed("GetFlightInfo", server, e);
    }
  }

  /**
   * The query's result schema, found as cheaply as the server allows: GetSchema; else the dataset
   * schema of a prepared statement; else the schema in FlightInfo; else the head of the first
   * endpoint's stream.
   */
  public Schema resultSchema(String query) {
    FlightInfo[] executed = new FlightInfo[1];
    List<SchemaResolver.Source> sources =
        Arrays.asList(
            source("GetSchema", () -> Optional.of(sql(server).getExecuteSchema(query).getSchema())),
            source("CreatePreparedStatement", () -> preparedSchema(query)),
            source(
                "GetFlightInfo",
                () -> {
                  executed[0] = sql(server).execute(query);
                  return executed[0].getSchemaOptional();
                }),
            source("DoGet", () -> firstStreamSchema(executed[0], query)));
    return SchemaResolver.resolve(sources, server);
  }

  private Optional<Schema> preparedSchema(String query) {
    try (FlightSqlClient.PreparedStatement statement = sql(server).prepare(query)) {
      return Optional.ofNullable(statement.getResultSetSchema());
    }
  }

  private Optional<Schema> firstStreamSchema(FlightInfo knownInfo, String query) {
    FlightInfo info = knownInfo != null ? knownInfo : sql(server).execute(query);
    if (info.getEndpoints().isEmpty()) {
      return Optional.empty();
    }
    FlightEndpoint endpoint = info.getEndpoints().get(0);
    try (FlightStream stream = stream(targets(endpoint), endpoint.getTicket())) {
      return Optional.of(StreamSchemas.schema(stream));
    } catch (RuntimeException e) {
      throw e;
    } catch (Exception e) {
      throw new IllegalStateException("Closing the stream failed: " + e.getMessage(), e);
    }
  }

  /**
   * What the server says it can do (GetSqlInfo). A server that does not implement GetSqlInfo is
   * taken to have no transactions; any other failure is raised.
   */
  public ServerCapabilities capabilities() {
    Map<Integer, Object> values = new java.util.HashMap<>();
    try {
      // Everything the server has: asking for ids a server lacks fails on some servers.
      readRows(
          "GetSqlInfo",
          () -> sql(server).getSqlInfo(),
          (root, i) -> {
            Object value = root.getVector(1).getObject(i);
            values.put(
                ((Number) root.getVector(0).getObject(i)).intValue(),
                value instanceof org.apache.arrow.vector.util.Text ? value.toString() : value);
          });
    } catch (FlightSqlConnectorException e) {
      if ("UNIMPLEMENTED".equals(e.statusCode())) {
        LOG.info("{} does not implement GetSqlInfo; assuming no transactions", server);
        return ServerCapabilities.unknown();
      }
      throw e;
    }
    return ServerCapabilities.fromSqlInfo(values);
  }

  /** Whether the table exists (GetTables, then an exact match on each given part of the name). */
  public boolean tableExists(TableRef table) {
    return tables(table.catalog(), table.schema(), table.name(), false).stream()
        .anyMatch(
            t ->
                t.name().equals(table.name())
                    && (table.schema() == null || table.schema().equals(t.schema()))
                    && (table.catalog() == null || table.catalog().equals(t.catalog())));
  }

  /**
   * The tables whose names start with {@code prefix}, in the catalog and schema of {@code place}.
   */
  public List<TableRef> tablesStartingWith(TableRef place, String prefix) {
    List<TableRef> out = new ArrayList<>();
    for (TableRef t : tables(place.catalog(), place.schema(), prefix, true)) {
      if (t.name().startsWith(prefix)
          && (place.schema() == null || place.schema().equals(t.schema()))) {
        out.add(t);
      }
    }
    return out;
  }

  private List<TableRef> tables(String catalog, String schema, String name, boolean prefix) {
    // GetTables takes LIKE patterns: escape nothing, match more, and filter exactly afterwards.
    String pattern = prefix ? name + "%" : name;
    List<TableRef> out = new ArrayList<>();
    readRows(
        "GetTables",
        () -> sql(server).getTables(catalog, schema, pattern),
        (root, i) ->
            out.add(
                new TableRef(
                    text(root.getVector("catalog_name"), i),
                    text(root.getVector("db_schema_name"), i),
                    text(root.getVector("table_name"), i))));
    return out;
  }

  /** Receives one row of a metadata answer. */
  private interface RowVisitor {
    void row(VectorSchemaRoot root, int index);
  }

  /**
   * Runs a metadata command and hands every row of every endpoint to {@code visitor}; any failure
   * is a {@link FlightSqlConnectorException} naming {@code rpc}.
   */
  private void readRows(
      String rpc, java.util.function.Supplier<FlightInfo> command, RowVisitor visitor) {
    try {
      for (FlightEndpoint endpoint : command.get().getEndpoints()) {
        try (FlightStream stream = stream(targets(endpoint), endpoint.getTicket())) {
          while (stream.next()) {
            VectorSchemaRoot root = stream.getRoot();
            for (int i = 0; i < root.getRowCount(); i++) {
              visitor.row(root, i);
            }
          }
        }
      }
    } catch (FlightSqlConnectorException e) {
      throw e;
    } catch (RuntimeException e) {
      throw failed(rpc, server, e);
    } catch (Exception e) {
      throw new IllegalStateException("Closing the " + rpc + " stream failed: " + e, e);
    }
  }

  private static String text(FieldVector vector, int row) {
    Object value = vector.getObject(row);
    return value == null ? null : value.toString();
  }

  /**
   * Runs a statement that returns no rows (CommandStatementUpdate), inside a transaction or not.
   */
  public long executeUpdate(String statement, byte[] transactionId) {
    try {
      return sql(server).executeUpdate(statement, transactionId);
    } catch (RuntimeException e) {
      throw failed("DoPut(CommandStatementUpdate)", server, e);
    }
  }

  /** Begins a transaction; its id goes with later calls that belong to it. */
  public byte[] beginTransaction() {
    try {
      return sql(server).beginTransaction();
    } catch (RuntimeException e) {
      throw failed("BeginTransaction", server, e);
    }
  }

  public void commit(byte[] transactionId) {
    try {
      sql(server).commit(transactionId);
    } catch (RuntimeException e) {
      throw failed("EndTransaction(COMMIT)", server, e);
    }
  }

  public void rollback(byte[] transactionId) {
    try {
      sql(server).rollback(transactionId);
    } catch (RuntimeException e) {
      throw failed("EndTransaction(ROLLBACK)", server, e);
    }
  }

  /** Starts a bulk ingestion of the root's batches into {@code table}. */
  public DoPutUpload ingest(
      VectorSchemaRoot root, TableRef table, DoPutUpload.IngestMode mode, byte[] transactionId) {
    return DoPutUpload.ingest(sql(server), server, root, table, mode, transactionId);
  }

  /** Prepares {@code insert} and starts binding the root's batches to it as parameter rows. */
  public DoPutUpload preparedUpdate(VectorSchemaRoot root, String insert, byte[] transactionId) {
    return DoPutUpload.preparedUpdate(sql(server), server, root, insert, transactionId);
  }

  /** This session's allocator, for the Arrow batches of an upload. */
  public BufferAllocator allocator() {
    return allocator;
  }

  /** The servers to try for an endpoint, in order. */
  public List<FlightUri> targets(FlightEndpoint endpoint) {
    List<String> locations = new ArrayList<>();
    for (Location location : endpoint.getLocations()) {
      locations.add(location.getUri().toString());
    }
    return EndpointTargets.resolve(server, locations);
  }

  /**
   * Opens the stream of a ticket from the first target that answers. The failures of the targets
   * tried before are kept as suppressed exceptions of the final failure, or logged when a later
   * target worked. The caller closes the stream before closing this session.
   */
  public FlightStream stream(List<FlightUri> targets, Ticket ticket) {
    FlightSqlConnectorException failure = null;
    for (FlightUri target : targets) {
      try {
        refuseDowngrade(target);
        // Waiting for the stream's schema surfaces connection and server errors here, while
        // another location can still be tried.
        FlightStream stream = sql(target).getStream(ticket);
        if (failure != null) {
          LOG.warn(
              "Reading from {} after an earlier location failed: {}", target, failure.getMessage());
        }
        return stream;
      } catch (RuntimeException e) {
        FlightSqlConnectorException wrapped = failed("DoGet", target, e);
        if (failure != null) {
          wrapped.addSuppressed(failure);
        }
        failure = wrapped;
      }
    }
    throw failure;
  }

  /**
   * Refuses a plaintext location when option {@code uri} uses TLS: the session's credentials,
   * headers and cookies would cross the network in clear.
   */
  private void refuseDowngrade(FlightUri target) {
    if (server.isTls() && !target.isTls() && !settings.allowInsecureLocations()) {
      throw new InsecureLocationException(target);
    }
  }

  private FlightSqlClientWithOptions sql(FlightUri target) {
    FlightSqlClientWithOptions client = clients.get(target);
    if (client == null) {
      client = new FlightSqlClientWithOptions(target, state, allocator);
      clients.put(target, client);
      if (target.equals(server) && sessionHasDefaults == null) {
        applySessionDefaults(client);
      }
    }
    return client;
  }

  private static FlightSqlConnectorException failed(
      String rpc, FlightUri target, RuntimeException e) {
    if (e instanceof FlightRuntimeException
        && ((FlightRuntimeException) e).status().code() == FlightStatusCode.UNAVAILABLE) {
      FlightChannels.resetBackoff(target);
    }
    return FlightErrors.rpcFailed(rpc, target, e);
  }

  private static SchemaResolver.Source source(String rpc, SchemaFetch fetch) {
    return new SchemaResolver.Source() {
      @Override
      public String rpc() {
        return rpc;
      }

      @Override
      public Optional<Schema> fetch() {
        return fetch.fetch();
      }
    };
  }

  private interface SchemaFetch {
    Optional<Schema> fetch();
  }

  /** Closes every client, then the allocator, which fails if any Arrow buffer is still held. */
  @Override
  public void close() {
    RuntimeException failure = null;
    for (FlightSqlClientWithOptions client : clients.values()) {
      try {
        client.close();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      } catch (RuntimeException e) {
        failure = e;
      }
    }
    clients.clear();
    try {
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
