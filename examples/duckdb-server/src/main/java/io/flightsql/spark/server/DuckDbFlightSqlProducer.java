package io.flightsql.spark.server;

import com.google.protobuf.Any;
import com.google.protobuf.InvalidProtocolBufferException;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.function.BiConsumer;
import org.apache.arrow.flight.Action;
import org.apache.arrow.flight.CallStatus;
import org.apache.arrow.flight.CancelFlightInfoRequest;
import org.apache.arrow.flight.CancelStatus;
import org.apache.arrow.flight.CloseSessionRequest;
import org.apache.arrow.flight.CloseSessionResult;
import org.apache.arrow.flight.FlightDescriptor;
import org.apache.arrow.flight.FlightEndpoint;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.flight.GetSessionOptionsRequest;
import org.apache.arrow.flight.GetSessionOptionsResult;
import org.apache.arrow.flight.Location;
import org.apache.arrow.flight.PollInfo;
import org.apache.arrow.flight.PutResult;
import org.apache.arrow.flight.RenewFlightEndpointRequest;
import org.apache.arrow.flight.Result;
import org.apache.arrow.flight.SchemaResult;
import org.apache.arrow.flight.SetSessionOptionsRequest;
import org.apache.arrow.flight.SetSessionOptionsResult;
import org.apache.arrow.flight.Ticket;
import org.apache.arrow.flight.sql.impl.FlightSql.ActionBeginSavepointRequest;
import org.apache.arrow.flight.sql.impl.FlightSql.ActionBeginSavepointResult;
import org.apache.arrow.flight.sql.impl.FlightSql.ActionBeginTransactionRequest;
import org.apache.arrow.flight.sql.impl.FlightSql.ActionBeginTransactionResult;
import org.apache.arrow.flight.sql.impl.FlightSql.ActionClosePreparedStatementRequest;
import org.apache.arrow.flight.sql.impl.FlightSql.ActionCreatePreparedStatementRequest;
import org.apache.arrow.flight.sql.impl.FlightSql.ActionEndSavepointRequest;
import org.apache.arrow.flight.sql.impl.FlightSql.ActionEndTransactionRequest;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandGetCatalogs;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandGetDbSchemas;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandGetSqlInfo;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandGetTableTypes;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandGetTables;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandPreparedStatementQuery;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandPreparedStatementUpdate;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandStatementIngest;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandStatementQuery;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandStatementUpdate;
import org.apache.arrow.flight.sql.impl.FlightSql.TicketStatementQuery;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.compression.CompressionUtil.CodecType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Flight SQL side of the server: turns Flight SQL commands into DuckDB statements. This class
 * only dispatches; each family of commands has a class of its own:
 *
 * <ul>
 *   <li>{@link QueryCommands}: statement queries (GetFlightInfo, GetSchema, DoGet) and
 *       RenewFlightEndpoint;
 *   <li>{@link PollCommands}: PollFlightInfo (statement queries planned in the background) and
 *       CancelFlightInfo;
 *   <li>{@link UpdateCommands}: statement updates and bulk ingestion (DoPut of
 *       CommandStatementUpdate and CommandStatementIngest, {@link BulkIngest});
 *   <li>{@link PreparedStatementCommands}: prepared statements with and without parameters;
 *   <li>{@link TransactionCommands}: BeginTransaction and EndTransaction; every command that
 *       carries a transaction id runs in it;
 *   <li>{@link MetadataCommands}: GetSqlInfo, GetCatalogs, GetDbSchemas, GetTables and
 *       GetTableTypes;
 *   <li>{@link SessionCommands}: with sessions on ({@link DuckDbSessions}), SetSessionOptions,
 *       GetSessionOptions and CloseSession.
 * </ul>
 *
 * <p>Every other command answers {@code UNIMPLEMENTED} with a message naming it ({@link
 * UnsupportedCommands}). What the families share (tracked calls, connections by transaction,
 * per-call allocators, DoPut answers, error statuses) is in {@link CallRunner}.
 *
 * <p>Thread-safe: a call without a transaction opens its own DuckDB connection and closes it before
 * it returns; calls in a transaction take turns on its connection ({@link DuckDbTransactions}). All
 * Arrow memory comes from this producer's allocator, closed by {@link #close()}.
 */
final class DuckDbFlightSqlProducer extends UnsupportedCommands {

  private static final Logger LOG = LoggerFactory.getLogger(DuckDbFlightSqlProducer.class);

  /** How long {@link #close()} lets running calls finish before it frees what they use. */
  private static final Duration SHUTDOWN_GRACE = Duration.ofSeconds(30);

  private final BufferAllocator allocator;
  private final DuckDbTransactions transactions;
  private final DuckDbPreparedStatements preparedStatements = new DuckDbPreparedStatements();
  private final CallRunner runner;
  private final QueryCommands queries;
  private final PollCommands polls;
  private final UpdateCommands updates;
  private final PreparedStatementCommands prepared;
  private final TransactionCommands transactionCommands;
  private final SessionCommands sessions;
  private final MetadataCommands metadata;
  private final List<BiConsumer<CallContext, String>> actionObservers;
  private final Set<String> withoutCommands;
  private final WriteSink sink;
  private final ComputedResults computed;

  /**
   * @param allocator owned by the producer from now on, and closed by {@link #close()}
   * @param locations the locations every statement endpoint advertises, in order; none means the
   *     endpoint is read from this server
   * @param actionObservers told the type of each action before it runs, in this order
   * @param pacing the pause before each DoGet batch and the observers of cancelled DoGets
   * @param compression the codec of the record batches of query streams
   */
  DuckDbFlightSqlProducer(
      DuckDbDatabase database,
      BufferAllocator allocator,
      int endpoints,
      int batchRows,
      List<Location> locations,
      LongQuerySettings longQueries,
      List<BiConsumer<CallContext, String>> actionObservers,
      DoGetPacing pacing,
      CodecType compression,
      Set<String> withoutCommands)
      throws SQLException {
    this.allocator = allocator;
    this.withoutCommands = Set.copyOf(withoutCommands);
    this.actionObservers = List.copyOf(actionObservers);
    this.transactions = new DuckDbTransactions(database);
    this.runner = new CallRunner(allocator, transactions);
    SliceStreamer streamer = new SliceStreamer(allocator, batchRows, pacing, compression);
    this.computed =
        withoutCommands.contains("QueryPerEndpoint")
            ? new ComputedResults(
                allocator.newChildAllocator("computed-results", 0, Long.MAX_VALUE))
            : null;
    this.queries =
        new QueryCommands(
            runner,
            transactions,
            streamer,
            endpoints,
            locations,
            longQueries,
            withoutCommands.contains("TicketReuse"),
            !withoutCommands.contains("SchemaBeforeData"),
            computed,
            batchRows);
    this.polls = new PollCommands(queries, longQueries);
    this.sink = new WriteSink(withoutCommands.contains("RowStorage"));
    this.updates = new UpdateCommands(runner, sink);
    this.prepared =
        new PreparedStatementCommands(
            runner,
            queries,
            transactions,
            streamer,
            preparedStatements,
            sink,
            !withoutCommands.contains("SchemaBeforeData"));
    this.transactionCommands = new TransactionCommands(runner, transactions);
    this.sessions = new SessionCommands(runner, database);
    this.metadata =
        new MetadataCommands(
            runner,
            DuckDbSqlInfo.create(database, !withoutCommands.contains("Transactions")),
            new DuckDbCatalog(database, allocator));
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
    super.getStream(context, ticket, listener);
  }

  /**
   * Tells the action observers which action the call runs, before the usual dispatch: middleware
   * sees the call's method only, and the action's type is in the request.
   */
  @Override
  public void doAction(CallContext context, Action action, StreamListener<Result> listener) {
    for (BiConsumer<CallContext, String> observer : actionObservers) {
      observer.accept(context, action.getType());
    }
    super.doAction(context, action, listener);
  }

  // ---- Statement queries, updates and bulk ingestion

  @Override
  public FlightInfo getFlightInfoStatement(
      CommandStatementQuery command, CallContext context, FlightDescriptor descriptor) {
    return queries.flightInfo(command, context, descriptor);
  }

  @Override
  public SchemaResult getSchemaStatement(
      CommandStatementQuery command, CallContext context, FlightDescriptor descriptor) {
    refuseIfWithout("GetSchema");
    return queries.schema(command, context);
  }

  @Override
  public void getStreamStatement(
      TicketStatementQuery ticket, CallContext context, ServerStreamListener listener) {
    queries.stream(ticket, context, listener);
  }

  @Override
  public Runnable acceptPutStatement(
      CommandStatementUpdate command,
      CallContext context,
      FlightStream flightStream,
      StreamListener<PutResult> ackStream) {
    return updates.acceptStatement(command, context, ackStream);
  }

  @Override
  public Runnable acceptPutStatementBulkIngest(
      CommandStatementIngest command,
      CallContext context,
      FlightStream flightStream,
      StreamListener<PutResult> ackStream) {
    return updates.acceptIngest(command, context, flightStream, ackStream);
  }

  // ---- Long-running queries and endpoints that expire

  /**
   * Plans a statement query in the background ({@link PollCommands}); other commands answer at once
   * with their FlightInfo.
   */
  @Override
  public PollInfo pollFlightInfo(CallContext context, FlightDescriptor descriptor) {
    return polls.poll(context, descriptor, d -> getFlightInfo(context, d));
  }

  @Override
  public void cancelFlightInfo(
      CancelFlightInfoRequest request, CallContext context, StreamListener<CancelStatus> listener) {
    try {
      listener.onNext(polls.cancel(request));
      listener.onCompleted();
    } catch (RuntimeException e) {
      listener.onError(e);
    }
  }

  @Override
  public void renewFlightEndpoint(
      RenewFlightEndpointRequest request,
      CallContext context,
      StreamListener<FlightEndpoint> listener) {
    try {
      listener.onNext(queries.renew(request.getFlightEndpoint()));
      listener.onCompleted();
    } catch (RuntimeException e) {
      listener.onError(e);
    }
  }

  // ---- Prepared statements

  @Override
  public void createPreparedStatement(
      ActionCreatePreparedStatementRequest request,
      CallContext context,
      StreamListener<Result> listener) {
    prepared.create(request, context, listener);
  }

  @Override
  public void closePreparedStatement(
      ActionClosePreparedStatementRequest request,
      CallContext context,
      StreamListener<Result> listener) {
    prepared.close(request, listener);
  }

  @Override
  public FlightInfo getFlightInfoPreparedStatement(
      CommandPreparedStatementQuery command, CallContext context, FlightDescriptor descriptor) {
    return prepared.flightInfo(command, context, descriptor);
  }

  @Override
  public SchemaResult getSchemaPreparedStatement(
      CommandPreparedStatementQuery command, CallContext context, FlightDescriptor descriptor) {
    return prepared.schema(command, context);
  }

  @Override
  public void getStreamPreparedStatement(
      CommandPreparedStatementQuery command, CallContext context, ServerStreamListener listener) {
    prepared.stream(command, context, listener);
  }

  @Override
  public Runnable acceptPutPreparedStatementUpdate(
      CommandPreparedStatementUpdate command,
      CallContext context,
      FlightStream flightStream,
      StreamListener<PutResult> ackStream) {
    return prepared.acceptUpdate(command, context, flightStream, ackStream);
  }

  @Override
  public Runnable acceptPutPreparedStatementQuery(
      CommandPreparedStatementQuery command,
      CallContext context,
      FlightStream flightStream,
      StreamListener<PutResult> ackStream) {
    return prepared.acceptQueryParameters(command, flightStream, ackStream);
  }

  // ---- Transactions

  @Override
  public void beginTransaction(
      ActionBeginTransactionRequest request,
      CallContext context,
      StreamListener<ActionBeginTransactionResult> listener) {
    refuseIfWithout("Transactions");
    transactionCommands.begin(context, listener);
  }

  @Override
  public void endTransaction(
      ActionEndTransactionRequest request, CallContext context, StreamListener<Result> listener) {
    transactionCommands.end(request, listener);
  }

  @Override
  public void beginSavepoint(
      ActionBeginSavepointRequest request,
      CallContext context,
      StreamListener<ActionBeginSavepointResult> listener) {
    listener.onError(TransactionCommands.savepointsUnsupported());
  }

  @Override
  public void endSavepoint(
      ActionEndSavepointRequest request, CallContext context, StreamListener<Result> listener) {
    listener.onError(TransactionCommands.savepointsUnsupported());
  }

  // ---- Sessions

  @Override
  public void setSessionOptions(
      SetSessionOptionsRequest request,
      CallContext context,
      StreamListener<SetSessionOptionsResult> listener) {
    sessions.set(request, context, listener);
  }

  @Override
  public void getSessionOptions(
      GetSessionOptionsRequest request,
      CallContext context,
      StreamListener<GetSessionOptionsResult> listener) {
    sessions.get(context, listener);
  }

  @Override
  public void closeSession(
      CloseSessionRequest request,
      CallContext context,
      StreamListener<CloseSessionResult> listener) {
    sessions.close(context, listener);
  }

  // ---- Server and catalog metadata

  /** Answers UNIMPLEMENTED for a command this server was started without. */
  private void refuseIfWithout(String command) {
    if (withoutCommands.contains(command)) {
      throw CallStatus.UNIMPLEMENTED
          .withDescription(command + " is not implemented (server started without it)")
          .toRuntimeException();
    }
  }

  @Override
  public FlightInfo getFlightInfoSqlInfo(
      CommandGetSqlInfo command, CallContext context, FlightDescriptor descriptor) {
    refuseIfWithout("GetSqlInfo");
    return metadata.sqlInfo(command, descriptor);
  }

  @Override
  public void getStreamSqlInfo(
      CommandGetSqlInfo command, CallContext context, ServerStreamListener listener) {
    metadata.streamSqlInfo(command, listener);
  }

  @Override
  public FlightInfo getFlightInfoCatalogs(
      CommandGetCatalogs command, CallContext context, FlightDescriptor descriptor) {
    refuseIfWithout("GetCatalogs");
    return metadata.catalogs(command, descriptor);
  }

  @Override
  public void getStreamCatalogs(CallContext context, ServerStreamListener listener) {
    metadata.streamCatalogs(listener);
  }

  @Override
  public FlightInfo getFlightInfoSchemas(
      CommandGetDbSchemas command, CallContext context, FlightDescriptor descriptor) {
    refuseIfWithout("GetDbSchemas");
    return metadata.schemas(command, descriptor);
  }

  @Override
  public void getStreamSchemas(
      CommandGetDbSchemas command, CallContext context, ServerStreamListener listener) {
    metadata.streamSchemas(command, listener);
  }

  @Override
  public FlightInfo getFlightInfoTables(
      CommandGetTables command, CallContext context, FlightDescriptor descriptor) {
    refuseIfWithout("GetTables");
    return metadata.tables(command, descriptor);
  }

  @Override
  public void getStreamTables(
      CommandGetTables command, CallContext context, ServerStreamListener listener) {
    metadata.streamTables(command, listener);
  }

  @Override
  public FlightInfo getFlightInfoTableTypes(
      CommandGetTableTypes command, CallContext context, FlightDescriptor descriptor) {
    return metadata.tableTypes(command, descriptor);
  }

  @Override
  public void getStreamTableTypes(CallContext context, ServerStreamListener listener) {
    metadata.streamTableTypes(listener);
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
    polls.close();
    try {
      int running = runner.closeAndAwait(SHUTDOWN_GRACE);
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
    if (computed != null) {
      computed.close();
    }
    allocator.close();
  }

  /** Rows of uploads discarded without {@code RowStorage}. */
  long discardedRows() {
    return sink.discardedRows();
  }

  /** How many queries CancelFlightInfo stopped while they were being planned, for tests. */
  int cancelledQueries() {
    return polls.cancelledQueries();
  }

  /** How many transactions are open, for tests. */
  int openTransactions() {
    return transactions.openCount();
  }

  /** How many prepared statements are open, for tests. */
  int openPreparedStatements() {
    return preparedStatements.openCount();
  }
}
