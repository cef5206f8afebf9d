package io.flightsql.spark.write;

import io.flightsql.spark.client.FlightSqlSession;
import io.flightsql.spark.client.transport.FlightSqlConnectorException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Ending a transaction that failed, on the driver and on executors. */
final class Transactions {
  private static final Logger LOG = LoggerFactory.getLogger(Transactions.class);

  private Transactions() {}

  /**
   * Rolls {@code transaction} back, on an interrupted thread too ({@link Uninterrupted}), and once
   * more when the first attempt failed for another reason than the server not knowing the
   * transaction (which means it has ended): a transaction left open holds its locks until the
   * server ends it, which arrow-go's SQLite example never does. A rollback that fails twice is
   * added to {@code cause} and logged as an error naming {@code what}.
   *
   * @return whether the transaction is known to have ended
   */
  static boolean rollback(
      FlightSqlSession session, byte[] transaction, Throwable cause, String what) {
    boolean[] ended = {false};
    Uninterrupted.run(
        () -> {
          RuntimeException first = null;
          for (int attempt = 1; attempt <= 2 && !ended[0]; attempt++) {
            try {
              session.rollback(transaction);
              ended[0] = true;
            } catch (RuntimeException e) {
              if (isUnknownTransaction(e)) {
                ended[0] = true;
              } else if (first == null) {
                first = e;
              } else {
                first.addSuppressed(e);
              }
            }
          }
          if (!ended[0]) {
            cause.addSuppressed(first);
            LOG.error(
                "The transaction of {} could not be rolled back, and may stay open on {} until the"
                    + " server ends it, holding its locks: {}",
                what,
                session.server(),
                first.getMessage());
          }
        });
    return ended[0];
  }

  /** The server answered that it knows no such transaction: it has ended already. */
  private static boolean isUnknownTransaction(RuntimeException e) {
    if (!(e instanceof FlightSqlConnectorException)) {
      return false;
    }
    String status = ((FlightSqlConnectorException) e).statusCode();
    return "NOT_FOUND".equals(status) || "INVALID_ARGUMENT".equals(status);
  }
}
