package io.flightsql.spark.server;

import static io.flightsql.spark.server.CallRunner.defaults;
import static io.flightsql.spark.server.CallRunner.queryFailed;
import static io.flightsql.spark.server.CallRunner.unsupported;

import com.google.protobuf.ByteString;
import java.sql.SQLException;
import org.apache.arrow.flight.CallStatus;
import org.apache.arrow.flight.FlightProducer.CallContext;
import org.apache.arrow.flight.FlightProducer.StreamListener;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.Result;
import org.apache.arrow.flight.sql.impl.FlightSql.ActionBeginTransactionResult;
import org.apache.arrow.flight.sql.impl.FlightSql.ActionEndTransactionRequest;

/**
 * The transaction actions: BeginTransaction and EndTransaction, on the server's open transactions
 * ({@link DuckDbTransactions}); savepoints answer {@code UNIMPLEMENTED}, since DuckDB has none. The
 * commands that carry a transaction id run in it through {@link CallRunner#withConnection}.
 *
 * <p>Thread-safe.
 */
final class TransactionCommands {

  private final CallRunner runner;
  private final DuckDbTransactions transactions;

  TransactionCommands(CallRunner runner, DuckDbTransactions transactions) {
    this.runner = runner;
    this.transactions = transactions;
  }

  /** Begins a transaction with the default catalog and schema of the call's session. */
  void begin(CallContext context, StreamListener<ActionBeginTransactionResult> listener) {
    try {
      SessionDefaults defaults = defaults(context);
      ByteString id = runner.track(() -> transactions.begin(defaults));
      listener.onNext(ActionBeginTransactionResult.newBuilder().setTransactionId(id).build());
      listener.onCompleted();
    } catch (SQLException e) {
      listener.onError(queryFailed(e));
    } catch (FlightRuntimeException e) {
      listener.onError(e);
    }
  }

  void end(ActionEndTransactionRequest request, StreamListener<Result> listener) {
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
      runner.track(
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

  /** BeginSavepoint and EndSavepoint: refused, DuckDB has no savepoints. */
  static FlightRuntimeException savepointsUnsupported() {
    return unsupported("savepoints (DuckDB has none)");
  }
}
