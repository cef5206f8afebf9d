package io.flightsql.spark.server;

import static io.flightsql.spark.server.CallRunner.defaults;
import static io.flightsql.spark.server.CallRunner.queryFailed;
import static io.flightsql.spark.server.CallRunner.transactionId;

import com.google.protobuf.Any;
import com.google.protobuf.ByteString;
import com.google.protobuf.InvalidProtocolBufferException;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.LockSupport;
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
 * <p>For tests of clients ({@link LongQuerySettings}): planning a statement query can be made slow
 * (GetFlightInfo then waits, ending early if the client cancels the call), and endpoints can
 * expire: their tickets are refused after their expiration time unless {@link #renew} extended it.
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
  private final LongQuerySettings longQueries;

  /**
   * @param locations the locations every statement endpoint advertises, in order; none means the
   *     endpoint is read from this server
   */
  /**
   * Whether each statement ticket can be read once only; and how many reads each ticket has left.
   * This server's tickets are the same for the same query slice, so each planning of it allows one
   * more read, as a server with a fresh ticket per planning would.
   */
  private final boolean singleUseTickets;

  private final Map<ByteString, Integer> readsLeft = new ConcurrentHashMap<>();

  /** Where queries are computed once for all their endpoints; null when each endpoint runs it. */
  private final ComputedResults computed;

  private final int batchRows;

  /** Takes one of the ticket's reads; false when it has none left. */
  private boolean redeem(ByteString handle) {
    boolean[] taken = {false};
    readsLeft.computeIfPresent(
        handle,
        (h, left) -> {
          taken[0] = true;
          return left > 1 ? left - 1 : null;
        });
    return taken[0];
  }

  /** Whether FlightInfo carries the result's schema (not without SchemaBeforeData). */
  private final boolean schemaBeforeData;

  QueryCommands(
      CallRunner runner,
      DuckDbTransactions transactions,
      SliceStreamer streamer,
      int endpoints,
      List<Location> locations,
      LongQuerySettings longQueries,
      boolean singleUseTickets,
      boolean schemaBeforeData,
      ComputedResults computed,
      int batchRows) {
    this.singleUseTickets = singleUseTickets;
    this.schemaBeforeData = schemaBeforeData;
    this.computed = computed;
    this.batchRows = batchRows;
    this.runner = runner;
    this.transactions = transactions;
    this.streamer = streamer;
    this.endpoints = endpoints;
    this.locations = List.copyOf(locations);
    this.longQueries = longQueries;
  }

  /** The schema a FlightInfo announces: the result's, or none without SchemaBeforeData. */
  private Schema announced(Schema schema) {
    return schemaBeforeData ? schema : new Schema(List.of());
  }

  /** Who asked for a query: the session (its digest and defaults) and the peer, for the log. */
  record Origin(ByteString sessionDigest, SessionDefaults defaults, String peer) {
    static Origin of(CallContext context) {
      DuckDbSessions.Call session = context.getMiddleware(DuckDbSessions.KEY);
      return new Origin(
          session == null ? ByteString.EMPTY : session.session().digest(),
          CallRunner.defaults(context),
          context.peerIdentity());
    }
  }

  /**
   * GetFlightInfo: waits out the planning delay, unless the client cancels the call, then plans.
   */
  FlightInfo flightInfo(
      CommandStatementQuery command, CallContext context, FlightDescriptor descriptor) {
    long deadline = System.nanoTime() + longQueries.planningDelay().toNanos();
    while (System.nanoTime() < deadline) {
      if (context.isCancelled()) {
        LOG.info("GetFlightInfo cancelled by the client while planning");
        throw CallStatus.CANCELLED
            .withDescription("The client cancelled the call")
            .toRuntimeException();
      }
      LockSupport.parkNanos(Math.min(deadline - System.nanoTime(), 20_000_000L));
    }
    return plan(command, Origin.of(context), descriptor);
  }

  /** The FlightInfo of a statement query, without the planning delay. */
  FlightInfo plan(CommandStatementQuery command, Origin origin, FlightDescriptor descriptor) {
    ByteString transaction = transactionId(command.hasTransactionId(), command.getTransactionId());
    try {
      return flightInfo(command.getQuery(), transaction, origin, descriptor);
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
    return flightInfo(sql, transaction, Origin.of(context), descriptor);
  }

  private FlightInfo flightInfo(
      String sql, ByteString transaction, Origin origin, FlightDescriptor descriptor)
      throws SQLException {
    ByteString sessionDigest = origin.sessionDigest();
    SessionDefaults defaults = origin.defaults();
    return runner.withConnection(
        defaults,
        transaction,
        lease -> {
          DuckDBConnection connection = lease.connection();
          if (computed != null && !lease.transactional()) {
            ComputedResults.Computed result =
                computed.compute(connection, sql, endpoints, batchRows);
            if (result != null) {
              LOG.info(
                  "GetFlightInfo from {}: {} rows computed for {} endpoints for SQL: {}",
                  origin.peer(),
                  result.rows(),
                  endpoints,
                  QuerySql.abbreviate(sql, 500));
              List<FlightEndpoint> slices = new ArrayList<>(endpoints);
              for (ByteString handle : result.handles()) {
                slices.add(new FlightEndpoint(ticket(handle), locationArray()));
              }
              return new FlightInfo(
                  announced(result.schema()),
                  descriptor,
                  slices,
                  -1,
                  result.rows(),
                  true,
                  IpcOption.DEFAULT);
            }
          }
          Schema schema = runner.schema(connection, sql);
          long rows = DuckDbDatabase.queryLong(connection, QuerySql.rowCount(sql));
          int count = lease.transactional() ? 1 : endpoints;
          List<FlightEndpoint> slices = new ArrayList<>(count);
          long expiresAt = longQueries.expiresAtMillis(System.currentTimeMillis());
          long offset = 0;
          for (int i = 0; i < count; i++) {
            long size = rows / count + (i < rows % count ? 1 : 0);
            boolean last = i == count - 1;
            StatementSlice slice =
                new StatementSlice(
                    sql, transaction, offset, last ? -1 : size, sessionDigest, defaults, expiresAt);
            slices.add(endpoint(slice));
            if (singleUseTickets) {
              readsLeft.merge(slice.encode(), 1, Integer::sum);
            }
            offset += size;
          }
          LOG.info(
              "GetFlightInfo from {}: {} rows in {} endpoints for SQL: {}",
              origin.peer(),
              rows,
              count,
              QuerySql.abbreviate(sql, 500));
          return new FlightInfo(
              announced(schema), descriptor, slices, -1, rows, true, IpcOption.DEFAULT);
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
    if (computed != null && ComputedResults.isHandle(ticket.getStatementHandle())) {
      ComputedResults.Slice slice = computed.take(ticket.getStatementHandle());
      if (slice == null) {
        listener.error(
            CallStatus.NOT_FOUND
                .withDescription(
                    "The ticket's result is gone: it was read already, or dropped after 10 minutes"
                        + " or for newer results; run the query again")
                .toRuntimeException());
        return;
      }
      try {
        runner.track(
            () -> {
              streamer.streamComputed(slice, listener);
              return null;
            });
      } catch (FlightRuntimeException | SQLException e) {
        listener.error(e);
      }
      return;
    }
    if (singleUseTickets && !redeem(ticket.getStatementHandle())) {
      listener.error(
          CallStatus.NOT_FOUND
              .withDescription("The ticket was read already; this server reads each ticket once")
              .toRuntimeException());
      return;
    }
    StatementSlice slice;
    try {
      slice = StatementSlice.decode(ticket.getStatementHandle());
    } catch (IllegalArgumentException e) {
      listener.error(
          CallStatus.INVALID_ARGUMENT.withDescription(e.getMessage()).toRuntimeException());
      return;
    }
    if (slice.expiredAt(System.currentTimeMillis())) {
      listener.error(
          CallStatus.NOT_FOUND
              .withDescription(
                  "The ticket expired at "
                      + Instant.ofEpochMilli(slice.expiresAtMillis())
                      + " (its endpoint's expiration_time); renew the endpoint"
                      + " (RenewFlightEndpoint) before it expires, or run the query again")
              .toRuntimeException());
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

  /**
   * RenewFlightEndpoint: the same endpoint with a new expiration time, counted from now. An
   * endpoint that already expired is renewed too: this server runs the query when the ticket is
   * read, so nothing of it was dropped.
   *
   * @throws FlightRuntimeException UNIMPLEMENTED when renewals are off; INVALID_ARGUMENT for an
   *     endpoint this server did not issue
   */
  FlightEndpoint renew(FlightEndpoint endpoint) {
    if (!longQueries.renew()) {
      throw CallRunner.unsupported("RenewFlightEndpoint");
    }
    StatementSlice slice;
    try {
      slice =
          StatementSlice.decode(
              Any.parseFrom(endpoint.getTicket().getBytes())
                  .unpack(TicketStatementQuery.class)
                  .getStatementHandle());
    } catch (InvalidProtocolBufferException | IllegalArgumentException e) {
      throw CallStatus.INVALID_ARGUMENT
          .withDescription("Not an endpoint of this server: " + e.getMessage())
          .toRuntimeException();
    }
    StatementSlice renewed =
        slice.expiringAt(longQueries.expiresAtMillis(System.currentTimeMillis()));
    LOG.info(
        "RenewFlightEndpoint: rows from {} now expire at {}",
        slice.offset(),
        Instant.ofEpochMilli(renewed.expiresAtMillis()));
    return endpoint(renewed);
  }

  private FlightEndpoint endpoint(StatementSlice slice) {
    Location[] where = locationArray();
    Ticket ticket = ticket(slice.encode());
    return slice.expiresAtMillis() > 0
        ? new FlightEndpoint(ticket, Instant.ofEpochMilli(slice.expiresAtMillis()), where)
        : new FlightEndpoint(ticket, where);
  }

  private Location[] locationArray() {
    return locations.toArray(new Location[0]);
  }

  private static Ticket ticket(ByteString handle) {
    TicketStatementQuery ticket =
        TicketStatementQuery.newBuilder().setStatementHandle(handle).build();
    return new Ticket(Any.pack(ticket).toByteArray());
  }
}
