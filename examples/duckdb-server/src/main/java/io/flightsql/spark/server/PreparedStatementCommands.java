package io.flightsql.spark.server;

import static io.flightsql.spark.server.CallRunner.defaults;
import static io.flightsql.spark.server.CallRunner.queryFailed;
import static io.flightsql.spark.server.CallRunner.transactionId;

import com.google.protobuf.Any;
import com.google.protobuf.ByteString;
import java.sql.ParameterMetaData;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.flight.CallStatus;
import org.apache.arrow.flight.FlightDescriptor;
import org.apache.arrow.flight.FlightEndpoint;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightProducer.CallContext;
import org.apache.arrow.flight.FlightProducer.ServerStreamListener;
import org.apache.arrow.flight.FlightProducer.StreamListener;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.flight.PutResult;
import org.apache.arrow.flight.Result;
import org.apache.arrow.flight.SchemaResult;
import org.apache.arrow.flight.Ticket;
import org.apache.arrow.flight.sql.impl.FlightSql.ActionClosePreparedStatementRequest;
import org.apache.arrow.flight.sql.impl.FlightSql.ActionCreatePreparedStatementRequest;
import org.apache.arrow.flight.sql.impl.FlightSql.ActionCreatePreparedStatementResult;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandPreparedStatementQuery;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandPreparedStatementUpdate;
import org.apache.arrow.flight.sql.impl.FlightSql.DoPutPreparedStatementResult;
import org.apache.arrow.vector.ipc.message.IpcOption;
import org.apache.arrow.vector.types.pojo.Schema;
import org.duckdb.DuckDBConnection;
import org.duckdb.DuckDBResultSetMetaData;
import org.duckdb.StatementReturnType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Prepared statements: CreatePreparedStatement and ClosePreparedStatement, and the GetFlightInfo,
 * GetSchema, DoGet and DoPut of a prepared statement's handle.
 *
 * <p>Prepared statements live in {@link DuckDbPreparedStatements}, under random handles. Without
 * parameters, a prepared query runs like a statement query ({@link QueryCommands}). With
 * parameters, DoPut binds batches of parameter rows: an update runs once per row ({@link
 * PreparedUpdate}); a query keeps its rows until GetFlightInfo, whose single endpoint streams the
 * results of every row in turn.
 *
 * <p>Thread-safe: calls on one prepared statement with parameters take turns on it.
 */
final class PreparedStatementCommands {

  private static final Logger LOG = LoggerFactory.getLogger(PreparedStatementCommands.class);

  private final CallRunner runner;
  private final QueryCommands queries;
  private final DuckDbTransactions transactions;
  private final SliceStreamer streamer;
  private final DuckDbPreparedStatements preparedStatements;
  private final WriteSink sink;

  /** Whether a prepared query carries its result's schema (not without SchemaBeforeData). */
  private final boolean schemaBeforeData;

  PreparedStatementCommands(
      CallRunner runner,
      QueryCommands queries,
      DuckDbTransactions transactions,
      SliceStreamer streamer,
      DuckDbPreparedStatements preparedStatements,
      WriteSink sink,
      boolean schemaBeforeData) {
    this.sink = sink;
    this.schemaBeforeData = schemaBeforeData;
    this.runner = runner;
    this.queries = queries;
    this.transactions = transactions;
    this.streamer = streamer;
    this.preparedStatements = preparedStatements;
  }

  void create(
      ActionCreatePreparedStatementRequest request,
      CallContext context,
      StreamListener<Result> listener) {
    ByteString transaction = transactionId(request.hasTransactionId(), request.getTransactionId());
    String sql = request.getQuery();
    try {
      ActionCreatePreparedStatementResult result =
          runner.withConnection(
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
        DuckDbDatabase.arrowSchemaOfTypes(
            connection, parameterNames, parameterTypes, runner.allocator());
    ByteString datasetSchema = ByteString.EMPTY;
    // Without SchemaBeforeData, the schema comes with the data only.
    if (schemaBeforeData && query && parameterTypes.isEmpty()) {
      datasetSchema = serialized(queryDatasetSchema(connection, sql));
    } else if (schemaBeforeData && query) {
      // Parameters are not bound yet: the result's columns as DuckDB types them for now.
      datasetSchema =
          serialized(
              DuckDbDatabase.arrowSchemaOfTypes(
                  connection, columnNames, columnTypes, runner.allocator()));
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
      return DuckDbDatabase.arrowSchema(connection, sql, runner.allocator());
    } catch (SQLException e) {
      return null;
    }
  }

  void close(ActionClosePreparedStatementRequest request, StreamListener<Result> listener) {
    try {
      preparedStatements.remove(request.getPreparedStatementHandle());
      listener.onCompleted();
    } catch (FlightRuntimeException e) {
      listener.onError(e);
    }
  }

  FlightInfo flightInfo(
      CommandPreparedStatementQuery command, CallContext context, FlightDescriptor descriptor) {
    DuckDbPreparedStatements.Prepared prepared =
        preparedStatements.get(command.getPreparedStatementHandle());
    try {
      if (prepared.parameterCount() == 0) {
        return queries.flightInfo(prepared.sql(), prepared.transactionId(), context, descriptor);
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

  SchemaResult schema(CommandPreparedStatementQuery command, CallContext context) {
    DuckDbPreparedStatements.Prepared prepared =
        preparedStatements.get(command.getPreparedStatementHandle());
    try {
      if (prepared.parameterCount() == 0) {
        return runner.withConnection(
            defaults(context),
            prepared.transactionId(),
            lease -> new SchemaResult(runner.schema(lease.connection(), prepared.sql())));
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
      return runner.withConnection(
          defaults,
          prepared.transactionId(),
          lease ->
              runner.withCallAllocator(
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

  void stream(
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
      runner.track(
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

  Runnable acceptUpdate(
      CommandPreparedStatementUpdate command,
      CallContext context,
      FlightStream flightStream,
      StreamListener<PutResult> ackStream) {
    return () -> {
      try {
        DuckDbPreparedStatements.Prepared prepared =
            preparedStatements.get(command.getPreparedStatementHandle());
        long count =
            runner.withConnection(
                defaults(context),
                prepared.transactionId(),
                lease ->
                    runner.withCallAllocator(
                        "update",
                        callAllocator ->
                            PreparedUpdate.run(
                                prepared, lease, flightStream, callAllocator, sink)));
        LOG.info(
            "Prepared update {} from {}: {} rows",
            DuckDbTransactions.label(prepared.handle()),
            context.peerIdentity(),
            count);
        runner.sendUpdateCount(ackStream, count);
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
  Runnable acceptQueryParameters(
      CommandPreparedStatementQuery command,
      FlightStream flightStream,
      StreamListener<PutResult> ackStream) {
    return () -> {
      try {
        DuckDbPreparedStatements.Prepared prepared =
            preparedStatements.get(command.getPreparedStatementHandle());
        runner.track(
            () -> {
              if (prepared.parameterCount() == 0) {
                while (flightStream.next()) {
                  // A query without parameters has nothing to bind.
                }
                return null;
              }
              PreparedUpdate.checkParameters(flightStream.getSchema(), prepared.parameterCount());
              prepared.bind(ParameterBatches.read(flightStream, runner.allocator()));
              return null;
            });
        DoPutPreparedStatementResult result =
            DoPutPreparedStatementResult.newBuilder()
                .setPreparedStatementHandle(prepared.handle())
                .build();
        runner.sendResult(ackStream, result.toByteArray());
      } catch (SQLException e) {
        ackStream.onError(queryFailed(e));
      } catch (FlightRuntimeException e) {
        ackStream.onError(e);
      }
    };
  }

  /** An IPC-serialized schema, as prepared statements describe their parameters and results. */
  private static ByteString serialized(Schema schema) {
    return schema == null ? ByteString.EMPTY : ByteString.copyFrom(schema.serializeAsMessage());
  }
}
