package io.flightsql.spark.server;

import static io.flightsql.spark.server.CallRunner.defaults;
import static io.flightsql.spark.server.CallRunner.queryFailed;
import static io.flightsql.spark.server.CallRunner.transactionId;

import com.google.protobuf.ByteString;
import java.sql.SQLException;
import org.apache.arrow.flight.FlightProducer.CallContext;
import org.apache.arrow.flight.FlightProducer.StreamListener;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.flight.PutResult;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandStatementIngest;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandStatementUpdate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The DoPuts that write without a prepared statement: statement updates (CommandStatementUpdate),
 * answered with DuckDB's count of changed rows, and bulk ingestion of an Arrow upload
 * (CommandStatementIngest, {@link BulkIngest}), answered with the number of rows ingested. Either
 * runs in the transaction the command names, if any.
 *
 * <p>Thread-safe.
 */
final class UpdateCommands {

  private static final Logger LOG = LoggerFactory.getLogger(UpdateCommands.class);

  private final CallRunner runner;
  private final WriteSink sink;

  UpdateCommands(CallRunner runner, WriteSink sink) {
    this.runner = runner;
    this.sink = sink;
  }

  Runnable acceptStatement(
      CommandStatementUpdate command, CallContext context, StreamListener<PutResult> ackStream) {
    return () -> {
      ByteString transaction =
          transactionId(command.hasTransactionId(), command.getTransactionId());
      String sql = command.getQuery();
      try {
        long count =
            runner.withConnection(
                defaults(context),
                transaction,
                lease -> DuckDbDatabase.execute(lease.connection(), QuerySql.body(sql)));
        LOG.info(
            "Update from {}: {} rows for SQL: {}",
            context.peerIdentity(),
            count,
            QuerySql.abbreviate(sql, 500));
        runner.sendUpdateCount(ackStream, count);
      } catch (SQLException | IllegalArgumentException e) {
        ackStream.onError(queryFailed(e));
      } catch (FlightRuntimeException e) {
        ackStream.onError(e);
      }
    };
  }

  Runnable acceptIngest(
      CommandStatementIngest command,
      CallContext context,
      FlightStream flightStream,
      StreamListener<PutResult> ackStream) {
    return () -> {
      ByteString transaction =
          transactionId(command.hasTransactionId(), command.getTransactionId());
      try {
        long rows =
            runner.withConnection(
                defaults(context),
                transaction,
                lease ->
                    runner.withCallAllocator(
                        "ingest",
                        callAllocator ->
                            BulkIngest.run(
                                command,
                                lease,
                                flightStream,
                                callAllocator,
                                context.peerIdentity(),
                                sink)));
        runner.sendUpdateCount(ackStream, rows);
      } catch (SQLException | IllegalArgumentException e) {
        ackStream.onError(queryFailed(e));
      } catch (FlightRuntimeException e) {
        ackStream.onError(e);
      }
    };
  }
}
