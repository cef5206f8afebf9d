package io.flightsql.spark.server;

import com.google.protobuf.Any;
import com.google.protobuf.ByteString;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Message;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.flight.CallStatus;
import org.apache.arrow.flight.Criteria;
import org.apache.arrow.flight.FlightDescriptor;
import org.apache.arrow.flight.FlightEndpoint;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.flight.PutResult;
import org.apache.arrow.flight.Result;
import org.apache.arrow.flight.SchemaResult;
import org.apache.arrow.flight.Ticket;
import org.apache.arrow.flight.sql.FlightSqlProducer;
import org.apache.arrow.flight.sql.SqlInfoBuilder;
import org.apache.arrow.flight.sql.impl.FlightSql.ActionClosePreparedStatementRequest;
import org.apache.arrow.flight.sql.impl.FlightSql.ActionCreatePreparedStatementRequest;
import org.apache.arrow.flight.sql.impl.FlightSql.ActionCreatePreparedStatementResult;
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
import org.apache.arrow.flight.sql.impl.FlightSql.CommandStatementQuery;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandStatementUpdate;
import org.apache.arrow.flight.sql.impl.FlightSql.DoPutUpdateResult;
import org.apache.arrow.flight.sql.impl.FlightSql.TicketStatementQuery;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.ipc.message.IpcOption;
import org.apache.arrow.vector.types.pojo.Schema;
import org.duckdb.DuckDBConnection;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Flight SQL side of the server: turns Flight SQL commands into DuckDB statements.
 *
 * <p>Supported: statement queries (GetFlightInfo, GetSchema, DoGet), statement updates (DoPut),
 * GetSqlInfo, GetCatalogs, GetDbSchemas, GetTables and GetTableTypes. Every other command answers
 * {@code UNIMPLEMENTED} with a message naming it.
 *
 * <p>A query's FlightInfo has a fixed number of endpoints; each one is a {@link StatementSlice}, a
 * contiguous range of the result rows, and the endpoints in order add up to the result in order.
 * Endpoints have no location: they are redeemed at this same server.
 *
 * <p>Thread-safe: every call opens its own DuckDB connection and closes it before it returns; all
 * Arrow memory comes from this producer's allocator, closed by {@link #close()}.
 */
final class DuckDbFlightSqlProducer implements FlightSqlProducer {

  private static final Logger LOG = LoggerFactory.getLogger(DuckDbFlightSqlProducer.class);

  /** How long {@link #close()} lets running calls finish before it frees what they use. */
  private static final Duration SHUTDOWN_GRACE = Duration.ofSeconds(30);

  private final DuckDbDatabase database;
  private final BufferAllocator allocator;
  private final int endpoints;
  private final SqlInfoBuilder sqlInfo;
  private final DuckDbCatalog catalog;
  private final SliceStreamer streamer;
  private final CallTracker calls = new CallTracker();

  /**
   * @param allocator owned by the producer from now on, and closed by {@link #close()}
   */
  DuckDbFlightSqlProducer(
      DuckDbDatabase database, BufferAllocator allocator, int endpoints, int batchRows)
      throws SQLException {
    this.database = database;
    this.allocator = allocator;
    this.endpoints = endpoints;
    this.sqlInfo = DuckDbSqlInfo.create(database);
    this.catalog = new DuckDbCatalog(database, allocator);
    this.streamer = new SliceStreamer(database, allocator, batchRows);
  }

  // ---- Statement queries

  @Override
  public FlightInfo getFlightInfoStatement(
      CommandStatementQuery command, CallContext context, FlightDescriptor descriptor) {
    if (command.hasTransactionId()) {
      throw unsupported("transactions");
    }
    String sql = command.getQuery();
    try {
      return calls.track(() -> flightInfo(sql, context, descriptor));
    } catch (SQLException | IllegalArgumentException e) {
      throw queryFailed(e);
    }
  }

  private FlightInfo flightInfo(String sql, CallContext context, FlightDescriptor descriptor)
      throws SQLException {
    try (DuckDBConnection connection = database.connect()) {
      Schema schema = schema(connection, sql);
      long rows = DuckDbDatabase.queryLong(connection, QuerySql.rowCount(sql));
      List<FlightEndpoint> slices = new ArrayList<>(endpoints);
      long offset = 0;
      for (int i = 0; i < endpoints; i++) {
        long size = rows / endpoints + (i < rows % endpoints ? 1 : 0);
        boolean last = i == endpoints - 1;
        slices.add(new FlightEndpoint(ticket(new StatementSlice(sql, offset, last ? -1 : size))));
        offset += size;
      }
      LOG.info(
          "GetFlightInfo from {}: {} rows in {} endpoints for SQL: {}",
          context.peerIdentity(),
          rows,
          endpoints,
          QuerySql.abbreviate(sql, 500));
      return new FlightInfo(schema, descriptor, slices, -1, rows, true, IpcOption.DEFAULT);
    }
  }

  @Override
  public SchemaResult getSchemaStatement(
      CommandStatementQuery command, CallContext context, FlightDescriptor descriptor) {
    if (command.hasTransactionId()) {
      throw unsupported("transactions");
    }
    try {
      return calls.track(
          () -> {
            try (DuckDBConnection connection = database.connect()) {
              return new SchemaResult(schema(connection, command.getQuery()));
            }
          });
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
    try {
      calls.track(
          () -> {
            streamer.stream(slice, listener);
            return null;
          });
    } catch (FlightRuntimeException | SQLException e) {
      listener.error(e);
    }
  }

  // ---- Statement updates

  @Override
  public Runnable acceptPutStatement(
      CommandStatementUpdate command,
      CallContext context,
      FlightStream flightStream,
      StreamListener<PutResult> ackStream) {
    return () -> {
      if (command.hasTransactionId()) {
        ackStream.onError(unsupported("transactions"));
        return;
      }
      String sql = command.getQuery();
      try {
        long count = calls.track(() -> update(sql));
        LOG.info(
            "Update from {}: {} rows for SQL: {}",
            context.peerIdentity(),
            count,
            QuerySql.abbreviate(sql, 500));
        byte[] result = DoPutUpdateResult.newBuilder().setRecordCount(count).build().toByteArray();
        try (ArrowBuf buffer = allocator.buffer(result.length)) {
          buffer.writeBytes(result);
          ackStream.onNext(PutResult.metadata(buffer));
        }
        ackStream.onCompleted();
      } catch (SQLException | IllegalArgumentException e) {
        ackStream.onError(queryFailed(e));
      } catch (FlightRuntimeException e) {
        ackStream.onError(e);
      }
    };
  }

  private long update(String sql) throws SQLException {
    try (DuckDBConnection connection = database.connect()) {
      return DuckDbDatabase.execute(connection, QuerySql.body(sql));
    }
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

  // ---- Prepared statements, without parameters (binding arrives with the write path). The handle
  // is the SQL itself, so the server keeps no state per statement and closing has nothing to free.

  @Override
  public void createPreparedStatement(
      ActionCreatePreparedStatementRequest request,
      CallContext context,
      StreamListener<Result> listener) {
    if (request.hasTransactionId()) {
      listener.onError(unsupported("transactions"));
      return;
    }
    String sql = request.getQuery();
    try {
      ByteString datasetSchema = calls.track(() -> preparedDatasetSchema(sql));
      ActionCreatePreparedStatementResult result =
          ActionCreatePreparedStatementResult.newBuilder()
              .setPreparedStatementHandle(ByteString.copyFromUtf8(sql))
              .setDatasetSchema(datasetSchema)
              .build();
      listener.onNext(new Result(Any.pack(result).toByteArray()));
      listener.onCompleted();
    } catch (SQLException | IllegalArgumentException e) {
      listener.onError(queryFailed(e));
    } catch (FlightRuntimeException e) {
      listener.onError(e);
    }
  }

  /**
   * The IPC-serialized result schema of a query, or no schema for a statement that returns no rows
   * (DDL, DML), which cannot be probed as a subquery; DuckDB still checks that one parses.
   */
  private ByteString preparedDatasetSchema(String sql) throws SQLException {
    try (DuckDBConnection connection = database.connect()) {
      try {
        return ByteString.copyFrom(schema(connection, sql).serializeAsMessage());
      } catch (SQLException asQuery) {
        try (PreparedStatement statement = connection.prepareStatement(sql)) {
          return ByteString.EMPTY;
        } catch (SQLException asStatement) {
          throw asQuery;
        }
      }
    }
  }

  @Override
  public void closePreparedStatement(
      ActionClosePreparedStatementRequest request,
      CallContext context,
      StreamListener<Result> listener) {
    listener.onCompleted();
  }

  @Override
  public FlightInfo getFlightInfoPreparedStatement(
      CommandPreparedStatementQuery command, CallContext context, FlightDescriptor descriptor) {
    String sql = command.getPreparedStatementHandle().toStringUtf8();
    try {
      return calls.track(() -> flightInfo(sql, context, descriptor));
    } catch (SQLException | IllegalArgumentException e) {
      throw queryFailed(e);
    }
  }

  @Override
  public void getStreamPreparedStatement(
      CommandPreparedStatementQuery command, CallContext context, ServerStreamListener listener) {
    // The endpoints of a prepared query carry statement tickets, so DoGet never lands here.
    listener.error(
        CallStatus.INVALID_ARGUMENT
            .withDescription("Read a prepared statement through the tickets of its FlightInfo")
            .toRuntimeException());
  }

  @Override
  public Runnable acceptPutPreparedStatementUpdate(
      CommandPreparedStatementUpdate command,
      CallContext context,
      FlightStream flightStream,
      StreamListener<PutResult> ackStream) {
    return () -> ackStream.onError(unsupported("prepared statements"));
  }

  @Override
  public Runnable acceptPutPreparedStatementQuery(
      CommandPreparedStatementQuery command,
      CallContext context,
      FlightStream flightStream,
      StreamListener<PutResult> ackStream) {
    return () -> ackStream.onError(unsupported("prepared statements"));
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
   * Waits for running calls to end, then closes the allocator, whose leak check throws {@link
   * IllegalStateException} if any call left Arrow memory behind. The database belongs to the
   * caller.
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
    allocator.close();
  }

  // ---- Helpers

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
