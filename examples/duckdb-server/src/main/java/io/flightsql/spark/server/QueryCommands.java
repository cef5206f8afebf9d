package io.flightsql.spark.server;

import static io.flightsql.spark.server.CallRunner.defaults;
import static io.flightsql.spark.server.CallRunner.queryFailed;
import static io.flightsql.spark.server.CallRunner.transactionId;

import com.google.protobuf.Any;
import com.google.protobuf.ByteString;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.flight.CallStatus;
import org.apache.arrow.flight.FlightDescriptor;
import org.apache.arrow.flight.FlightEndpoint;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightProducer.CallContext;
import org.apache.arrow.flight.FlightProducer.ServerStreamListener;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.Location;
import org.apache.arrow.flight.SchemaResult;
import org.apache.arrow.flight.Ticket;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandStatementQuery;
import org.apache.arrow.flight.sql.impl.FlightSql.TicketStatementQuery;
import org.apache.arrow.vector.ipc.message.IpcOption;
import org.apache.arrow.vector.types.pojo.Schema;
import org.duckdb.DuckDBConnection;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Statement queries: GetFlightInfo, GetSchema and DoGet of CommandStatementQuery.
 *
 * <p>A query's FlightInfo has a fixed number of endpoints; each one is a {@link StatementSlice}, a
 * contiguous range of the result rows, and the endpoints in order add up to the result in order.
 * Endpoints advertise the configured locations, by default none: they are redeemed at this same
 * server. A query inside a transaction has a single endpoint, since the transaction's one
 * connection runs one statement at a time. A query of a session can only be read with the session's
 * cookie.
 *
 * <p>Thread-safe.
 */
final class QueryCommands {

  private static final Logger LOG = LoggerFactory.getLogger(QueryCommands.class);

  private final CallRunner runner;
  private final DuckDbTransactions transactions;
  private final SliceStreamer streamer;
  private final int endpoints;
  private final List<Location> locations;

  /**
   * @param locations the locations every statement endpoint advertises, in order; none means the
   *     endpoint is read from this server
   */
  QueryCommands(
      CallRunner runner,
      DuckDbTransactions transactions,
      SliceStreamer streamer,
      int endpoints,
      List<Location> locations) {
    this.runner = runner;
    this.transactions = transactions;
    this.streamer = streamer;
    this.endpoints = endpoints;
    this.locations = List.copyOf(locations);
  }

  FlightInfo flightInfo(
      CommandStatementQuery command, CallContext context, FlightDescriptor descriptor) {
    ByteString transaction = transactionId(command.hasTransactionId(), command.getTransactionId());
    try {
      return flightInfo(command.getQuery(), transaction, context, descriptor);
    } catch (SQLException | IllegalArgumentException e) {
      throw queryFailed(e);
    }
  }

  /**
   * The FlightInfo of {@code sql} run in {@code transaction} (empty for none): its schema, its row
   * count and its endpoints. Prepared statements without parameters are read this way too.
   */
  FlightInfo flightInfo(
      String sql, ByteString transaction, CallContext context, FlightDescriptor descriptor)
      throws SQLException {
    DuckDbSessions.Call session = context.getMiddleware(DuckDbSessions.KEY);
    ByteString sessionDigest = session == null ? ByteString.EMPTY : session.session().digest();
    SessionDefaults defaults = defaults(context);
    return runner.withConnection(
        defaults,
        transaction,
        lease -> {
          DuckDBConnection connection = lease.connection();
          Schema schema = runner.schema(connection, sql);
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

  SchemaResult schema(CommandStatementQuery command, CallContext context) {
    ByteString transaction = transactionId(command.hasTransactionId(), command.getTransactionId());
    try {
      return runner.withConnection(
          defaults(context),
          transaction,
          lease -> new SchemaResult(runner.schema(lease.connection(), command.getQuery())));
    } catch (SQLException | IllegalArgumentException e) {
      throw queryFailed(e);
    }
  }

  /** Streams the slice of the result that the ticket names. */
  void stream(TicketStatementQuery ticket, CallContext context, ServerStreamListener listener) {
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
      runner.track(
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

  private static Ticket ticket(StatementSlice slice) {
    TicketStatementQuery ticket =
        TicketStatementQuery.newBuilder().setStatementHandle(slice.encode()).build();
    return new Ticket(Any.pack(ticket).toByteArray());
  }
}
