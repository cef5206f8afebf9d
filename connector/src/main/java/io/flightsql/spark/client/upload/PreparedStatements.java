package io.flightsql.spark.client.upload;

import com.google.protobuf.Any;
import com.google.protobuf.ByteString;
import io.flightsql.spark.client.transport.FlightErrors;
import io.flightsql.spark.client.transport.FlightSqlClientWithOptions;
import io.flightsql.spark.client.transport.FlightUri;
import java.util.List;
import org.apache.arrow.flight.Action;
import org.apache.arrow.flight.Result;
import org.apache.arrow.flight.sql.FlightSqlUtils;
import org.apache.arrow.flight.sql.impl.FlightSql.ActionClosePreparedStatementRequest;
import org.apache.arrow.flight.sql.impl.FlightSql.ActionCreatePreparedStatementRequest;
import org.apache.arrow.flight.sql.impl.FlightSql.ActionCreatePreparedStatementResult;

/**
 * The two actions around a prepared INSERT that an upload binds its rows to: creating the
 * statement, and closing it whatever became of the upload.
 */
final class PreparedStatements {
  private PreparedStatements() {}

  /** Creates the statement and returns the server's handle of it. */
  static ByteString create(
      FlightSqlClientWithOptions client,
      FlightUri server,
      ActionCreatePreparedStatementRequest request) {
    try {
      List<Result> answer =
          client.doAction(
              new Action(
                  FlightSqlUtils.FLIGHT_SQL_CREATE_PREPARED_STATEMENT.getType(),
                  Any.pack(request).toByteArray()));
      if (answer.isEmpty()) {
        throw new IllegalStateException("the server answered CreatePreparedStatement with nothing");
      }
      return FlightSqlUtils.unpackAndParseOrThrow(
              answer.get(0).getBody(), ActionCreatePreparedStatementResult.class)
          .getPreparedStatementHandle();
    } catch (RuntimeException e) {
      throw FlightErrors.rpcFailed("CreatePreparedStatement", server, e);
    }
  }

  /**
   * Closes the statement. A failure to close is told with {@code primary}, the failure that ended
   * the upload, when there is one, and is otherwise dropped: the rows' fate is already decided, and
   * the server frees the statement with the session.
   */
  static void close(FlightSqlClientWithOptions client, ByteString handle, Throwable primary) {
    try {
      client.doAction(
          new Action(
              FlightSqlUtils.FLIGHT_SQL_CLOSE_PREPARED_STATEMENT.getType(),
              Any.pack(
                      ActionClosePreparedStatementRequest.newBuilder()
                          .setPreparedStatementHandle(handle)
                          .build())
                  .toByteArray()));
    } catch (RuntimeException e) {
      if (primary != null) {
        primary.addSuppressed(e);
      }
    }
  }
}
