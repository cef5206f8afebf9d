package io.flightsql.spark.server;

import com.google.protobuf.Any;
import com.google.protobuf.ByteString;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Message;
import java.sql.ParameterMetaData;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.arrow.flight.Action;
import org.apache.arrow.flight.CallStatus;
import org.apache.arrow.flight.CloseSessionRequest;
import org.apache.arrow.flight.CloseSessionResult;
import org.apache.arrow.flight.Criteria;
import org.apache.arrow.flight.FlightDescriptor;
import org.apache.arrow.flight.FlightEndpoint;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.flight.GetSessionOptionsRequest;
import org.apache.arrow.flight.GetSessionOptionsResult;
import org.apache.arrow.flight.Location;
import org.apache.arrow.flight.NoOpSessionOptionValueVisitor;
import org.apache.arrow.flight.PutResult;
import org.apache.arrow.flight.Result;
import org.apache.arrow.flight.SchemaResult;
import org.apache.arrow.flight.SessionOptionValue;
import org.apache.arrow.flight.SessionOptionValueFactory;
import org.apache.arrow.flight.SetSessionOptionsRequest;
import org.apache.arrow.flight.SetSessionOptionsResult;
import org.apache.arrow.flight.SetSessionOptionsResult.ErrorValue;
import org.apache.arrow.flight.Ticket;
import org.apache.arrow.flight.sql.FlightSqlProducer;
import org.apache.arrow.flight.sql.SqlInfoBuilder;
import org.apache.arrow.flight.sql.impl.FlightSql.ActionBeginSavepointRequest;
import org.apache.arrow.flight.sql.impl.FlightSql.ActionBeginSavepointResult;
import org.apache.arrow.flight.sql.impl.FlightSql.ActionBeginTransactionRequest;
import org.apache.arrow.flight.sql.impl.FlightSql.ActionBeginTransactionResult;
import org.apache.arrow.flight.sql.impl.FlightSql.ActionClosePreparedStatementRequest;
import org.apache.arrow.flight.sql.impl.FlightSql.ActionCreatePreparedStatementRequest;
import org.apache.arrow.flight.sql.impl.FlightSql.ActionCreatePreparedStatementResult;
import org.apache.arrow.flight.sql.impl.FlightSql.ActionEndSavepointRequest;
import org.apache.arrow.flight.sql.impl.FlightSql.ActionEndTransactionRequest;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandGetCatalogs;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandGetCrossReference;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandGetDbSchemas;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandGetExportedKeys;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandGetImportedKeys;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandGetPrimaryKeys;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandGetSqlInfo;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandGetTableTypes;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandGetTables;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandGetXdbcTypeInfo;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandPreparedStatementQuery;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandPreparedStatementUpdate;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandStatementIngest;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandStatementQuery;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandStatementUpdate;
import org.apache.arrow.flight.sql.impl.FlightSql.DoPutPreparedStatementResult;
import org.apache.arrow.flight.sql.impl.FlightSql.DoPutUpdateResult;
import org.apache.arrow.flight.sql.impl.FlightSql.TicketStatementQuery;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.ipc.message.IpcOption;
import org.apache.arrow.vector.types.pojo.Schema;
import org.duckdb.DuckDBConnection;
import org.duckdb.DuckDBResultSetMetaData;
import org.duckdb.StatementReturnType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Flight SQL side of the server: turns Flight SQL commands into DuckDB statements.
 *
 * <p>Supported: statement queries (GetFlightInfo, GetSchema, DoGet) and updates (DoPut), bulk
 * ingestion (DoPut of CommandStatementIngest, {@link BulkIngest}), prepared statements with and
 * without parameters, transactions (BeginTransaction, EndTransaction, and every command that
 * carries a transaction id), GetSqlInfo, GetCatalogs, GetDbSchemas, GetTables and GetTableTypes;
 * with sessions on ({@link DuckDbSessions}), SetSessionOptions, GetSessionOptions and CloseSession.
 * Every other command answers {@code UNIMPLEMENTED} with a message naming it.
 *
 * <p>A query's FlightInfo has a fixed number of endpoints; each one is a {@link StatementSlice}, a
 * contiguous range of the result rows, and the endpoints in order add up to the result in order.
 * Endpoints have no location: they are redeemed at this same server. A query inside a transaction
 * has a single endpoint, since the transaction's one connection runs one statement at a time.
 *
 * <p>Prepared statements live in {@link DuckDbPreparedStatements}, under random handles. Without
 * parameters, a prepared query runs like a statement query. With parameters, DoPut binds batches of
 * parameter rows: an update runs once per row ({@link PreparedUpdate}); a query keeps its rows
 * until GetFlightInfo, whose single endpoint streams the results of every row in turn.
 *
 * <p>Thread-safe: a call without a transaction opens its own DuckDB connection and closes it before
 * it returns; calls in a transaction take turns on its connection ({@link DuckDbTransactions}). All
 * Arrow memory comes from this producer's allocator, closed by {@link #close()}.
 */
final class DuckDbFlightSqlProducer implements FlightSqlProducer {

  private static final Logger LOG = LoggerFactory.getLogger(DuckDbFlightSqlProducer.class);

  /** How long {@link #close()} lets running calls finish before it frees what they use. */
  private static final Duration SHUTDOWN_GRACE = Duration.ofSeconds(30);

  private static final AtomicLong PUT_IDS = new AtomicLong();

  private final DuckDbDatabase database;
  private final BufferAllocator allocator;
  private final int endpoints;
  private final List<Location> locations;
  private final SqlInfoBuilder sqlInfo;
  private final DuckDbCatalog catalog;
  private final SliceStreamer streamer;
  private final DuckDbTransactions transactions;
  private final DuckDbPreparedStatements preparedStatements = new DuckDbPreparedStatements();
  private final CallTracker calls = new CallTracker();

  /**
   * @param allocator owned by the producer from now on, and closed by {@link #close()}
   */
  DuckDbFlightSqlProducer(
      DuckDbDatabase database, BufferAllocator allocator, int endpoints, int batchRows)
      throws SQLException {
    this(database, allocator, endpoints, batchRows, List.of());
  }

  /**
   * @param allocator owned by the producer from now on, and closed by {@link #close()}
   * @param locations the locations every statement endpoint advertises, in order; none means the
   *     endpoint is read from this server
   */
  DuckDbFlightSqlProducer(
      DuckDbDatabase database,
      BufferAllocator allocator,
      int endpoints,
      int batchRows,
      List<Location> locations)
      throws SQLException {
    this.locations = List.copyOf(locations);
    this.database = database;
    this.allocator = allocator;
    this.endpoints = endpoints;
    this.sqlInfo = DuckDbSqlInfo.create(database);
    this.catalog = new DuckDbCatalog(database, allocator);
    this.streamer = new SliceStreamer(allocator, batchRows);
    this.transactions = new DuckDbTransactions(database);
  }

  // ---- Statement queries

  @Override
  public FlightInfo getFlightInfoStatement(
      CommandStatementQuery command, CallContext context, FlightDescriptor descriptor) {
    ByteString transaction = transactionId(command.hasTransactionId(), command.getTransactionId());
    try {
      return flightInfo(command.getQuery(), transaction, context, descriptor);
    } catch (SQLException | IllegalArgumentException e) {
      throw queryFailed(e);
    }
  }

  private FlightInfo flightInfo(
      String sql, ByteString transaction, CallContext context, FlightDescriptor descriptor)
      throws SQLException {
    DuckDbSessions.Call session = context.getMiddleware(DuckDbSessions.KEY);
    ByteString sessionDigest = session == null ? ByteString.EMPTY : session.session().digest();
    SessionDefaults defaults = defaults(context);
    return withConnection(
        defaults,
        transaction,
        lease -> {
          DuckDBConnection connection = lease.connection();
          Schema schema = schema(connection, sql);
          long rows = DuckDbDatabase.queryLong(connection, QuerySql.rowCount(sql));
          int count = lease.transactional() ? 1 : endpoints;
          List<FlightEndpoint> slices = new ArrayList<>(count);
          long offset = 0;
          for (int i = 0; i < count; i++) {
            long size = rows / count + (i < rows % count ? 1 : 0);
            boolean last = i == count - 1;
            StatementSlice slice =
                new StatementSlice(
                    sql, transaction, offset, last ? -1 : size, sessionDigest, defaults);
            slices.add(new FlightEndpoint(ticket(slice), locations.toArray(new Location[0])));
            offset += size;
          }
          LOG.info(
              "GetFlightInfo from {}: {} rows in {} endpoints for SQL: {}",
              context.peerIdentity(),
              rows,
              count,
              QuerySql.abbreviate(sql, 500));
          return new FlightInfo(schema, descriptor, slices, -1, rows, true, IpcOption.DEFAULT);
        });
  }

  @Override
  public SchemaResult getSchemaStatement(
      CommandStatementQuery command, CallContext context, FlightDescriptor descriptor) {
    ByteString transaction = transactionId(command.hasTransactionId(), command.getTransactionId());
    try {
      return withConnection(
          defaults(context),
          transaction,
          lease -> new SchemaResult(schema(lease.connection(), command.getQuery())));
    } catch (SQLException | IllegalArgumentException e) {
      throw queryFailed(e);
    }
  }

  /**
   * Checks that the ticket is a Flight SQL ticket before the usual dispatch, which would report
   * bytes that are not one as an INTERNAL error of the server.
   */
  @Override
  public void getStream(CallContext context, Ticket ticket, ServerStreamListener listener) {
    try {
      Any.parseFrom(ticket.getBytes());
    } catch (InvalidProtocolBufferException e) {
      listener.error(
          CallStatus.INVALID_ARGUMENT
              .withDescription("Invalid ticket: not a Flight SQL ticket (" + e.getMessage() + ")")
              .toRuntimeException());
      return;
    }
    FlightSqlProducer.super.getStream(context, ticket, listener);
  }

  @Override
  public void getStreamStatement(
      TicketStatementQuery ticket, CallContext context, ServerStreamListener listener) {
    StatementSlice slice;
    try {
      slice = StatementSlice.decode(ticket.getStatementHandle());
    } catch (IllegalArgumentException e) {
      listener.error(
          CallStatus.INVALID_ARGUMENT.withDescription(e.getMessage()).toRuntimeException());
      return;
    }
    if (!slice.session().isEmpty()) {
      DuckDbSessions.Call session = context.getMiddleware(DuckDbSessions.KEY);
      if (session == null || !session.session().digest().equals(slice.session())) {
        listener.error(
            CallStatus.UNAUTHENTICATED
                .withDescription(
                    "The ticket belongs to a session; send its cookie ("
                        + DuckDbSessions.COOKIE
                        + ") with the DoGet, as with the GetFlightInfo that returned the ticket")
                .toRuntimeException());
        return;
      }
    }
    try {
      calls.track(
          () -> {
            try (DuckDbTransactions.Lease lease =
                transactions.lease(slice.transactionId(), slice.defaults())) {
              streamer.stream(slice, lease, listener);
            }
            return null;
          });
    } catch (FlightRuntimeException | SQLException e) {
      listener.error(e);
    }
  }

  /** Names the action in the call's record before the usual dispatch. */
  @Override
  public void doAction(CallContext context, Action action, StreamListener<Result> listener) {
    CallRecorder.Call call = context.getMiddleware(CallRecorder.KEY);
    if (call != null) {
      call.action(action.getType());
    }
    FlightSqlProducer.super.doAction(context, action, listener);
  }

  // ---- Statement updates and bulk ingestion

  @Override
  public Runnable acceptPutStatement(
      CommandStatementUpdate command,
      CallContext context,
      FlightStream flightStream,
      StreamListener<PutResult> ackStream) {
    return () -> {
      ByteString transaction =
          transactionId(command.hasTransactionId(), command.getTransactionId());
      String sql = command.getQuery();
      try {
        long count =
            withConnection(
                defaults(context),
                transaction,
                lease -> DuckDbDatabase.execute(lease.connection(), QuerySql.body(sql)));
        LOG.info(
            "Update from {}: {} rows for SQL: {}",
            context.peerIdentity(),
            count,
            QuerySql.abbreviate(sql, 500));
        sendUpdateCount(ackStream, count);
      } catch (SQLException | IllegalArgumentException e) {
        ackStream.onError(queryFailed(e));
      } catch (FlightRuntimeException e) {
        ackStream.onError(e);
      }
    };
  }

  @Override
  public Runnable acceptPutStatementBulkIngest(
      CommandStatementIngest command,
      CallContext context,
      FlightStream flightStream,
      StreamListener<PutResult> ackStream) {
    return () -> {
      ByteString transaction =
          transactionId(command.hasTransactionId(), command.getTransactionId());
      try {
        long rows =
            withConnection(
                defaults(context),
                transaction,
                lease ->
                    withCallAllocator(
                        "ingest",
                        callAllocator ->
                            BulkIngest.run(
                                command,
                                lease,
                                flightStream,
                                callAllocator,
                                context.peerIdentity())));
        sendUpdateCount(ackStream, rows);
      } catch (SQLException | IllegalArgumentException e) {
        ackStream.onError(queryFailed(e));
      } catch (FlightRuntimeException e) {
        ackStream.onError(e);
      }
    };
  }

  // ---- Transactions

  @Override
  public void beginTransaction(
      ActionBeginTransactionRequest request,
      CallContext context,
      StreamListener<ActionBeginTransactionResult> listener) {
    try {
      SessionDefaults defaults = defaults(context);
      ByteString id = calls.track(() -> transactions.begin(defaults));
      listener.onNext(ActionBeginTransactionResult.newBuilder().setTransactionId(id).build());
      listener.onCompleted();
    } catch (SQLException e) {
      listener.onError(queryFailed(e));
    } catch (FlightRuntimeException e) {
      listener.onError(e);
    }
  }

  @Override
  public void endTransaction(
      ActionEndTransactionRequest request, CallContext context, StreamListener<Result> listener) {
    boolean commit;
    switch (request.getAction()) {
      case END_TRANSACTION_COMMIT -> commit = true;
      case END_TRANSACTION_ROLLBACK -> commit = false;
      default -> {
        listener.onError(
            CallStatus.INVALID_ARGUMENT
                .withDescription(
                    "Invalid EndTransaction action "
                        + request.getAction()
                        + ": expected END_TRANSACTION_COMMIT or END_TRANSACTION_ROLLBACK")
                .toRuntimeException());
        return;
      }
    }
    try {
      calls.track(
          () -> {
            transactions.end(request.getTransactionId(), commit);
            return null;
          });
      listener.onCompleted();
    } catch (SQLException e) {
      listener.onError(queryFailed(e));
    } catch (FlightRuntimeException e) {
      listener.onError(e);
    }
  }

  @Override
  public void beginSavepoint(
      ActionBeginSavepointRequest request,
      CallContext context,
      StreamListener<ActionBeginSavepointResult> listener) {
    listener.onError(unsupported("savepoints (DuckDB has none)"));
  }

  @Override
  public void endSavepoint(
      ActionEndSavepointRequest request, CallContext context, StreamListener<Result> listener) {
    listener.onError(unsupported("savepoints (DuckDB has none)"));
  }

  // ---- Sessions

  /**
   * Sets the session options {@code catalog} and {@code schema} (strings; an empty value unsets
   * one), the default catalog and schema of the session's later queries and statements. DuckDB
   * checks the two together, as the request leaves them: if it refuses them (no such catalog, or no
   * such schema in it), both are answered with INVALID_VALUE and the session keeps what it had. A
   * value that is not a string is INVALID_VALUE too, and an unknown option INVALID_NAME, as the
   * protocol says; the other options of the request still apply.
   */
  @Override
  public void setSessionOptions(
      SetSessionOptionsRequest request,
      CallContext context,
      StreamListener<SetSessionOptionsResult> listener) {
    DuckDbSessions.Call call = context.getMiddleware(DuckDbSessions.KEY);
    if (call == null) {
      listener.onError(sessionsOff("SetSessionOptions"));
      return;
    }
    DuckDbSessions.Session session = call.session();
    Map<String, SetSessionOptionsResult.Error> errors = new LinkedHashMap<>();
    try {
      calls.track(
          () -> {
            synchronized (session) {
              setOptions(session, request.getSessionOptions(), errors);
            }
            return null;
          });
      listener.onNext(new SetSessionOptionsResult(errors));
      listener.onCompleted();
    } catch (SQLException e) {
      listener.onError(queryFailed(e));
    } catch (FlightRuntimeException e) {
      listener.onError(e);
    }
  }

  private void setOptions(
      DuckDbSessions.Session session,
      Map<String, SessionOptionValue> options,
      Map<String, SetSessionOptionsResult.Error> errors) {
    SessionDefaults proposed = session.defaults();
    List<String> changed = new ArrayList<>();
    for (Map.Entry<String, SessionOptionValue> option : options.entrySet()) {
      String name = option.getKey();
      if (!name.equals(SessionDefaults.CATALOG) && !name.equals(SessionDefaults.SCHEMA)) {
        LOG.info("SetSessionOptions: unknown option '{}'", name);
        errors.put(name, new SetSessionOptionsResult.Error(ErrorValue.INVALID_NAME));
        continue;
      }
      SessionOptionValue value = option.getValue();
      String text = value.isEmpty() ? null : value.acceptVisitor(new StringOptionValue());
      if (!value.isEmpty() && (text == null || text.isEmpty())) {
        LOG.info("SetSessionOptions: option '{}' must be a non-empty string", name);
        errors.put(name, new SetSessionOptionsResult.Error(ErrorValue.INVALID_VALUE));
        continue;
      }
      proposed =
          name.equals(SessionDefaults.CATALOG)
              ? proposed.withCatalog(text)
              : proposed.withSchema(text);
      changed.add(name);
    }
    if (changed.isEmpty()) {
      return;
    }
    try {
      database.connect(proposed).close();
    } catch (SQLException e) {
      LOG.info("SetSessionOptions: DuckDB refused {}: {}", proposed.options(), e.getMessage());
      for (String name : changed) {
        errors.put(name, new SetSessionOptionsResult.Error(ErrorValue.INVALID_VALUE));
      }
      return;
    }
    session.defaults(proposed);
    LOG.info("Session {} options now {}", session.label(), proposed.options());
  }

  /** A session option's value if it is a string, else null. */
  private static final class StringOptionValue extends NoOpSessionOptionValueVisitor<String> {
    @Override
    public String visit(String value) {
      return value;
    }
  }

  @Override
  public void getSessionOptions(
      GetSessionOptionsRequest request,
      CallContext context,
      StreamListener<GetSessionOptionsResult> listener) {
    DuckDbSessions.Call call = context.getMiddleware(DuckDbSessions.KEY);
    if (call == null) {
      listener.onError(sessionsOff("GetSessionOptions"));
      return;
    }
    Map<String, SessionOptionValue> options = new LinkedHashMap<>();
    call.session()
        .defaults()
        .options()
        .forEach(
            (name, value) ->
                options.put(name, SessionOptionValueFactory.makeSessionOptionValue(value)));
    listener.onNext(new GetSessionOptionsResult(options));
    listener.onCompleted();
  }

  /** Ends the session: later calls with its cookie start a new one, with no options set. */
  @Override
  public void closeSession(
      CloseSessionRequest request,
      CallContext context,
      StreamListener<CloseSessionResult> listener) {
    DuckDbSessions.Call call = context.getMiddleware(DuckDbSessions.KEY);
    if (call == null) {
      listener.onError(sessionsOff("CloseSession"));
      return;
    }
    call.closeSession();
    listener.onNext(new CloseSessionResult(CloseSessionResult.Status.CLOSED));
    listener.onCompleted();
  }

  /** The default catalog and schema of the call's session; none without sessions. */
  private static SessionDefaults defaults(CallContext context) {
    DuckDbSessions.Call call = context.getMiddleware(DuckDbSessions.KEY);
    return call == null ? SessionDefaults.NONE : call.session().defaults();
  }

  private static FlightRuntimeException sessionsOff(String action) {
    return CallStatus.UNIMPLEMENTED
        .withDescription(
            "Not supported by the "
                + DuckDbSqlInfo.SERVER_NAME
                + ": "
                + action
                + " (sessions are off; start the server with sessions enabled, --sessions)")
        .toRuntimeException();
  }

  // ---- Server and catalog metadata

  @Override
  public FlightInfo getFlightInfoSqlInfo(
      CommandGetSqlInfo command, CallContext context, FlightDescriptor descriptor) {
    return metadataInfo(command, Schemas.GET_SQL_INFO_SCHEMA, descriptor);
  }

  @Override
  public void getStreamSqlInfo(
      CommandGetSqlInfo command, CallContext context, ServerStreamListener listener) {
    sqlInfo.send(command.getInfoList(), listener);
  }

  @Override
  public FlightInfo getFlightInfoCatalogs(
      CommandGetCatalogs command, CallContext context, FlightDescriptor descriptor) {
    return metadataInfo(command, Schemas.GET_CATALOGS_SCHEMA, descriptor);
  }

  @Override
  public void getStreamCatalogs(CallContext context, ServerStreamListener listener) {
    streamMetadata(listener, () -> catalog.streamCatalogs(listener));
  }

  @Override
  public FlightInfo getFlightInfoSchemas(
      CommandGetDbSchemas command, CallContext context, FlightDescriptor descriptor) {
    return metadataInfo(command, Schemas.GET_SCHEMAS_SCHEMA, descriptor);
  }

  @Override
  public void getStreamSchemas(
      CommandGetDbSchemas command, CallContext context, ServerStreamListener listener) {
    streamMetadata(listener, () -> catalog.streamSchemas(command, listener));
  }

  @Override
  public FlightInfo getFlightInfoTables(
      CommandGetTables command, CallContext context, FlightDescriptor descriptor) {
    Schema schema =
        command.getIncludeSchema()
            ? Schemas.GET_TABLES_SCHEMA
            : Schemas.GET_TABLES_SCHEMA_NO_SCHEMA;
    return metadataInfo(command, schema, descriptor);
  }

  @Override
  public void getStreamTables(
      CommandGetTables command, CallContext context, ServerStreamListener listener) {
    streamMetadata(listener, () -> catalog.streamTables(command, listener));
  }

  @Override
  public FlightInfo getFlightInfoTableTypes(
      CommandGetTableTypes command, CallContext context, FlightDescriptor descriptor) {
    return metadataInfo(command, Schemas.GET_TABLE_TYPES_SCHEMA, descriptor);
  }

  @Override
  public void getStreamTableTypes(CallContext context, ServerStreamListener listener) {
    streamMetadata(listener, () -> catalog.streamTableTypes(listener));
  }

  // ---- Prepared statements

  @Override
  public void createPreparedStatement(
      ActionCreatePreparedStatementRequest request,
      CallContext context,
      StreamListener<Result> listener) {
    ByteString transaction = transactionId(request.hasTransactionId(), request.getTransactionId());
    String sql = request.getQuery();
    try {
      ActionCreatePreparedStatementResult result =
          withConnection(
              defaults(context),
              transaction,
              lease -> prepare(lease.connection(), sql, transaction));
      listener.onNext(new Result(Any.pack(result).toByteArray()));
      listener.onCompleted();
    } catch (SQLException | IllegalArgumentException e) {
      listener.onError(queryFailed(e));
    } catch (FlightRuntimeException e) {
      listener.onError(e);
    }
  }

  /**
   * Prepares {@code sql} with DuckDB, which checks it and describes its parameters and result, and
   * registers it. Nothing here changes data: the statement is only prepared (but for text holding
   * several statements, of which DuckDB's JDBC driver runs all but the last while preparing), and a
   * query's result schema comes from a {@code LIMIT 0} run of it. The probes run only once DuckDB
   * has prepared them, so that preparing inside a transaction does not abort the transaction.
   */
  private ActionCreatePreparedStatementResult prepare(
      DuckDBConnection connection, String sql, ByteString transaction) throws SQLException {
    String body = QuerySql.body(sql);
    List<String> parameterTypes = new ArrayList<>();
    List<String> parameterNames = new ArrayList<>();
    List<String> columnTypes = new ArrayList<>();
    List<String> columnNames = new ArrayList<>();
    boolean query;
    try (PreparedStatement statement = connection.prepareStatement(body)) {
      ParameterMetaData parameters = statement.getParameterMetaData();
      for (int i = 1; i <= parameters.getParameterCount(); i++) {
        parameterNames.add("$" + i);
        parameterTypes.add(parameters.getParameterTypeName(i));
      }
      DuckDBResultSetMetaData result =
          statement.getMetaData().unwrap(DuckDBResultSetMetaData.class);
      query = result.getReturnType() == StatementReturnType.QUERY_RESULT;
      for (int i = 1; query && i <= result.getColumnCount(); i++) {
        columnNames.add(result.getColumnName(i));
        columnTypes.add(result.getColumnTypeName(i));
      }
    }
    Schema parameterSchema =
        DuckDbDatabase.arrowSchemaOfTypes(connection, parameterNames, parameterTypes, allocator);
    ByteString datasetSchema = ByteString.EMPTY;
    if (query && parameterTypes.isEmpty()) {
      datasetSchema = serialized(queryDatasetSchema(connection, sql));
    } else if (query) {
      // Parameters are not bound yet: the result's columns as DuckDB types them for now.
      datasetSchema =
          serialized(
              DuckDbDatabase.arrowSchemaOfTypes(connection, columnNames, columnTypes, allocator));
    }
    DuckDbPreparedStatements.Prepared prepared =
        preparedStatements.add(
            sql,
            transaction,
            parameterTypes.size(),
            parameterSchema,
            QuerySql.plainInsertPrefix(sql, parameterTypes.size()));
    LOG.info(
        "Prepared statement {} ({} parameters{}{}) for SQL: {}",
        DuckDbTransactions.label(prepared.handle()),
        parameterTypes.size(),
        prepared.insertPrefix() == null ? "" : ", inserts in bulk",
        transaction.isEmpty() ? "" : ", in transaction " + DuckDbTransactions.label(transaction),
        QuerySql.abbreviate(sql, 500));
    return ActionCreatePreparedStatementResult.newBuilder()
        .setPreparedStatementHandle(prepared.handle())
        .setDatasetSchema(datasetSchema)
        .setParameterSchema(
            parameterTypes.isEmpty() ? ByteString.EMPTY : serialized(parameterSchema))
        .build();
  }

  /**
   * The result schema of a query without parameters, or null for one that DuckDB cannot run as a
   * subquery (PRAGMA, ...); the probe fails while being prepared, which leaves a transaction alone.
   */
  private Schema queryDatasetSchema(DuckDBConnection connection, String sql) {
    try {
      return DuckDbDatabase.arrowSchema(connection, sql, allocator);
    } catch (SQLException e) {
      return null;
    }
  }

  @Override
  public void closePreparedStatement(
      ActionClosePreparedStatementRequest request,
      CallContext context,
      StreamListener<Result> listener) {
    try {
      preparedStatements.remove(request.getPreparedStatementHandle());
      listener.onCompleted();
    } catch (FlightRuntimeException e) {
      listener.onError(e);
    }
  }

  @Override
  public FlightInfo getFlightInfoPreparedStatement(
      CommandPreparedStatementQuery command, CallContext context, FlightDescriptor descriptor) {
    DuckDbPreparedStatements.Prepared prepared =
        preparedStatements.get(command.getPreparedStatementHandle());
    try {
      if (prepared.parameterCount() == 0) {
        return flightInfo(prepared.sql(), prepared.transactionId(), context, descriptor);
      }
      Schema schema = boundQuerySchema(prepared, defaults(context));
      // The endpoint hands the statement back to this server, which runs it with the parameters
      // bound by then.
      Ticket ticket = new Ticket(Any.pack(command).toByteArray());
      LOG.info(
          "GetFlightInfo from {} for prepared statement {} with parameters",
          context.peerIdentity(),
          DuckDbTransactions.label(prepared.handle()));
      return new FlightInfo(
          schema, descriptor, List.of(new FlightEndpoint(ticket)), -1, -1, true, IpcOption.DEFAULT);
    } catch (SQLException | IllegalArgumentException e) {
      throw queryFailed(e);
    }
  }

  @Override
  public SchemaResult getSchemaPreparedStatement(
      CommandPreparedStatementQuery command, CallContext context, FlightDescriptor descriptor) {
    DuckDbPreparedStatements.Prepared prepared =
        preparedStatements.get(command.getPreparedStatementHandle());
    try {
      if (prepared.parameterCount() == 0) {
        return withConnection(
            defaults(context),
            prepared.transactionId(),
            lease -> new SchemaResult(schema(lease.connection(), prepared.sql())));
      }
      return new SchemaResult(boundQuerySchema(prepared, defaults(context)));
    } catch (SQLException | IllegalArgumentException e) {
      throw queryFailed(e);
    }
  }

  /** The result schema of a query with parameters, for its first bound parameter row. */
  private Schema boundQuerySchema(
      DuckDbPreparedStatements.Prepared prepared, SessionDefaults defaults) throws SQLException {
    synchronized (prepared) {
      ParameterBatches parameters = boundParameters(prepared);
      return withConnection(
          defaults,
          prepared.transactionId(),
          lease ->
              withCallAllocator(
                  "schema",
                  callAllocator ->
                      ParameterRows.querySchema(
                          lease.connection(),
                          prepared.sql(),
                          prepared.parameterCount(),
                          parameters,
                          callAllocator)));
    }
  }

  private static ParameterBatches boundParameters(DuckDbPreparedStatements.Prepared prepared) {
    ParameterBatches parameters = prepared.bound();
    if (parameters == null || parameters.rows() == 0) {
      throw CallStatus.INVALID_ARGUMENT
          .withDescription(
              "The prepared statement takes "
                  + prepared.parameterCount()
                  + " parameters: bind a batch of parameter rows (DoPut) before running it")
          .toRuntimeException();
    }
    return parameters;
  }

  @Override
  public void getStreamPreparedStatement(
      CommandPreparedStatementQuery command, CallContext context, ServerStreamListener listener) {
    try {
      DuckDbPreparedStatements.Prepared prepared =
          preparedStatements.get(command.getPreparedStatementHandle());
      if (prepared.parameterCount() == 0) {
        // The endpoints of a query without parameters carry statement tickets instead.
        throw CallStatus.INVALID_ARGUMENT
            .withDescription("Read a prepared statement through the tickets of its FlightInfo")
            .toRuntimeException();
      }
      calls.track(
          () -> {
            synchronized (prepared) {
              ParameterBatches parameters = boundParameters(prepared);
              try (DuckDbTransactions.Lease lease =
                  transactions.lease(prepared.transactionId(), defaults(context))) {
                streamer.streamPrepared(prepared, parameters, lease, listener);
              }
            }
            return null;
          });
    } catch (FlightRuntimeException | SQLException e) {
      listener.error(e);
    }
  }

  @Override
  public Runnable acceptPutPreparedStatementUpdate(
      CommandPreparedStatementUpdate command,
      CallContext context,
      FlightStream flightStream,
      StreamListener<PutResult> ackStream) {
    return () -> {
      try {
        DuckDbPreparedStatements.Prepared prepared =
            preparedStatements.get(command.getPreparedStatementHandle());
        long count =
            withConnection(
                defaults(context),
                prepared.transactionId(),
                lease ->
                    withCallAllocator(
                        "update",
                        callAllocator ->
                            PreparedUpdate.run(prepared, lease, flightStream, callAllocator)));
        LOG.info(
            "Prepared update {} from {}: {} rows",
            DuckDbTransactions.label(prepared.handle()),
            context.peerIdentity(),
            count);
        sendUpdateCount(ackStream, count);
      } catch (SQLException | IllegalArgumentException e) {
        ackStream.onError(queryFailed(e));
      } catch (FlightRuntimeException e) {
        ackStream.onError(e);
      }
    };
  }

  /**
   * Binds parameter rows to a prepared query: they are kept, replacing any bound before, until the
   * query runs or the statement closes. The answer keeps the handle.
   */
  @Override
  public Runnable acceptPutPreparedStatementQuery(
      CommandPreparedStatementQuery command,
      CallContext context,
      FlightStream flightStream,
      StreamListener<PutResult> ackStream) {
    return () -> {
      try {
        DuckDbPreparedStatements.Prepared prepared =
            preparedStatements.get(command.getPreparedStatementHandle());
        calls.track(
            () -> {
              if (prepared.parameterCount() == 0) {
                while (flightStream.next()) {
                  // A query without parameters has nothing to bind.
                }
                return null;
              }
              PreparedUpdate.checkParameters(flightStream.getSchema(), prepared.parameterCount());
              prepared.bind(ParameterBatches.read(flightStream, allocator));
              return null;
            });
        DoPutPreparedStatementResult result =
            DoPutPreparedStatementResult.newBuilder()
                .setPreparedStatementHandle(prepared.handle())
                .build();
        sendResult(ackStream, result.toByteArray());
      } catch (SQLException e) {
        ackStream.onError(queryFailed(e));
      } catch (FlightRuntimeException e) {
        ackStream.onError(e);
      }
    };
  }

  @Override
  public FlightInfo getFlightInfoTypeInfo(
      CommandGetXdbcTypeInfo command, CallContext context, FlightDescriptor descriptor) {
    throw unsupported("GetXdbcTypeInfo");
  }

  @Override
  public void getStreamTypeInfo(
      CommandGetXdbcTypeInfo command, CallContext context, ServerStreamListener listener) {
    listener.error(unsupported("GetXdbcTypeInfo"));
  }

  @Override
  public FlightInfo getFlightInfoPrimaryKeys(
      CommandGetPrimaryKeys command, CallContext context, FlightDescriptor descriptor) {
    throw unsupported("GetPrimaryKeys");
  }

  @Override
  public void getStreamPrimaryKeys(
      CommandGetPrimaryKeys command, CallContext context, ServerStreamListener listener) {
    listener.error(unsupported("GetPrimaryKeys"));
  }

  @Override
  public FlightInfo getFlightInfoExportedKeys(
      CommandGetExportedKeys command, CallContext context, FlightDescriptor descriptor) {
    throw unsupported("GetExportedKeys");
  }

  @Override
  public void getStreamExportedKeys(
      CommandGetExportedKeys command, CallContext context, ServerStreamListener listener) {
    listener.error(unsupported("GetExportedKeys"));
  }

  @Override
  public FlightInfo getFlightInfoImportedKeys(
      CommandGetImportedKeys command, CallContext context, FlightDescriptor descriptor) {
    throw unsupported("GetImportedKeys");
  }

  @Override
  public void getStreamImportedKeys(
      CommandGetImportedKeys command, CallContext context, ServerStreamListener listener) {
    listener.error(unsupported("GetImportedKeys"));
  }

  @Override
  public FlightInfo getFlightInfoCrossReference(
      CommandGetCrossReference command, CallContext context, FlightDescriptor descriptor) {
    throw unsupported("GetCrossReference");
  }

  @Override
  public void getStreamCrossReference(
      CommandGetCrossReference command, CallContext context, ServerStreamListener listener) {
    listener.error(unsupported("GetCrossReference"));
  }

  @Override
  public void listFlights(
      CallContext context, Criteria criteria, StreamListener<FlightInfo> listener) {
    listener.onError(unsupported("ListFlights"));
  }

  // ---- Life cycle

  /**
   * Waits for running calls to end, rolls back the transactions that clients left open, frees the
   * parameters of prepared statements that clients left open, then closes the allocator, whose leak
   * check throws {@link IllegalStateException} if any call left Arrow memory behind. The database
   * belongs to the caller.
   */
  @Override
  public void close() {
    try {
      int running = calls.closeAndAwait(SHUTDOWN_GRACE);
      if (running > 0) {
        LOG.warn("{} calls still running after {}; closing anyway", running, SHUTDOWN_GRACE);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      LOG.warn("Interrupted while waiting for running calls; closing anyway");
    }
    try {
      transactions.close();
    } catch (SQLException e) {
      LOG.warn("Could not roll back every abandoned transaction: {}", e.getMessage());
    }
    preparedStatements.close();
    allocator.close();
  }

  /** How many transactions are open, for tests. */
  int openTransactions() {
    return transactions.openCount();
  }

  /** How many prepared statements are open, for tests. */
  int openPreparedStatements() {
    return preparedStatements.openCount();
  }

  // ---- Helpers

  /** A call's work on a DuckDB connection, which may fail on DuckDB's side. */
  private interface ConnectionBody<T> {
    T run(DuckDbTransactions.Lease lease) throws SQLException;
  }

  /** A call's work with Arrow memory of its own. */
  private interface AllocatorBody<T> {
    T run(BufferAllocator callAllocator) throws SQLException;
  }

  /**
   * Runs a tracked call on the connection of {@code transaction} (empty: a connection of its own,
   * whose default catalog and schema are {@code defaults}). A DuckDB error is noted in the
   * transaction, whose commit reports it if DuckDB aborted the transaction because of it.
   */
  private <T> T withConnection(
      SessionDefaults defaults, ByteString transaction, ConnectionBody<T> body)
      throws SQLException {
    return calls.track(
        () -> {
          try (DuckDbTransactions.Lease lease = transactions.lease(transaction, defaults)) {
            try {
              return body.run(lease);
            } catch (SQLException e) {
              lease.failed(e);
              throw e;
            }
          }
        });
  }

  /**
   * Runs {@code body} with an allocator of its own, whose closing checks that the call freed every
   * buffer: a leak fails the call that caused it, rather than the server's shutdown.
   */
  private <T> T withCallAllocator(String kind, AllocatorBody<T> body) throws SQLException {
    try (BufferAllocator callAllocator =
        allocator.newChildAllocator(kind + "-" + PUT_IDS.incrementAndGet(), 0, Long.MAX_VALUE)) {
      return body.run(callAllocator);
    }
  }

  /** The transaction a command names, or empty for none. */
  private static ByteString transactionId(boolean present, ByteString id) {
    return present ? id : ByteString.EMPTY;
  }

  private void sendUpdateCount(StreamListener<PutResult> ackStream, long count) {
    sendResult(
        ackStream, DoPutUpdateResult.newBuilder().setRecordCount(count).build().toByteArray());
  }

  /** Sends {@code metadata} as the DoPut's one result, and completes the call. */
  private void sendResult(StreamListener<PutResult> ackStream, byte[] metadata) {
    try (ArrowBuf buffer = allocator.buffer(metadata.length)) {
      buffer.writeBytes(metadata);
      ackStream.onNext(PutResult.metadata(buffer));
    }
    ackStream.onCompleted();
  }

  /** An IPC-serialized schema, as prepared statements describe their parameters and results. */
  private static ByteString serialized(Schema schema) {
    return schema == null ? ByteString.EMPTY : ByteString.copyFrom(schema.serializeAsMessage());
  }

  private Schema schema(DuckDBConnection connection, String sql) throws SQLException {
    try {
      return DuckDbDatabase.arrowSchema(connection, sql, allocator);
    } catch (SQLException e) {
      throw DuckDbDatabase.queryError(connection, sql, e);
    }
  }

  private static Ticket ticket(StatementSlice slice) {
    TicketStatementQuery ticket =
        TicketStatementQuery.newBuilder().setStatementHandle(slice.encode()).build();
    return new Ticket(Any.pack(ticket).toByteArray());
  }

  /** A FlightInfo whose single endpoint hands {@code command} back to this server's DoGet. */
  private static FlightInfo metadataInfo(
      Message command, Schema schema, FlightDescriptor descriptor) {
    FlightEndpoint endpoint = new FlightEndpoint(new Ticket(Any.pack(command).toByteArray()));
    return new FlightInfo(schema, descriptor, List.of(endpoint), -1, -1);
  }

  /** A catalog command's body, which may fail on DuckDB's side. */
  private interface MetadataStream {
    void run() throws SQLException;
  }

  private void streamMetadata(ServerStreamListener listener, MetadataStream body) {
    try {
      calls.track(
          () -> {
            body.run();
            return null;
          });
    } catch (SQLException e) {
      listener.error(queryFailed(e));
    } catch (FlightRuntimeException e) {
      listener.error(e);
    }
  }

  /** DuckDB refused the client's SQL: INVALID_ARGUMENT with DuckDB's own message. */
  private static FlightRuntimeException queryFailed(Exception e) {
    LOG.info("Query failed: {}", e.getMessage());
    return CallStatus.INVALID_ARGUMENT
        .withDescription(e.getMessage())
        .withCause(e)
        .toRuntimeException();
  }

  private static FlightRuntimeException unsupported(String feature) {
    return CallStatus.UNIMPLEMENTED
        .withDescription("Not supported by the " + DuckDbSqlInfo.SERVER_NAME + ": " + feature)
        .toRuntimeException();
  }
}
