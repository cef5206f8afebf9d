package io.flightsql.spark.client.transport;

import java.util.Collections;
import java.util.Iterator;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.apache.arrow.flight.Action;
import org.apache.arrow.flight.CallOption;
import org.apache.arrow.flight.CallOptions;
import org.apache.arrow.flight.CallStatus;
import org.apache.arrow.flight.CancelFlightInfoRequest;
import org.apache.arrow.flight.CancelFlightInfoResult;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.FlightDescriptor;
import org.apache.arrow.flight.FlightEndpoint;
import org.apache.arrow.flight.FlightGrpcUtils;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.FlightStatusCode;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.flight.PollInfo;
import org.apache.arrow.flight.RenewFlightEndpointRequest;
import org.apache.arrow.flight.Result;
import org.apache.arrow.flight.SchemaResult;
import org.apache.arrow.flight.SetSessionOptionsRequest;
import org.apache.arrow.flight.SetSessionOptionsResult;
import org.apache.arrow.flight.Ticket;
import org.apache.arrow.flight.auth2.BasicAuthCredentialWriter;
import org.apache.arrow.flight.grpc.CredentialCallOption;
import org.apache.arrow.flight.sql.FlightSqlClient;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Flight SQL client of one session to one server, through which every call of the connector
 * goes: a thin decorator over Arrow's {@link FlightSqlClient} that adds, to every call, the
 * session's headers, credentials and cookies (by the {@link CallState} middleware of its Flight
 * client) and the deadline of option {@code callTimeout}; logs in with basic authentication before
 * the first call; and, when the server refuses a token (UNAUTHENTICATED), logs in again and retries
 * that call once. Not thread-safe, like its session.
 *
 * <p>Deadlines: unary calls and DoAction get {@code callTimeout} as a gRPC deadline; those that are
 * not queries or statements get {@code streamIdleTimeout} when {@code callTimeout} is unset. A
 * DoGet would be cut off mid-stream by a deadline, so it is bounded only until its first message
 * (the schema) arrives (and by option {@code streamIdleTimeout}, the shorter of the two ending the
 * wait). A DoPut's length depends on the data, so it has none. Planning calls that fail with
 * UNAVAILABLE are retried ({@link Retries}); nothing else is.
 */
public final class FlightSqlClientWithOptions implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(FlightSqlClientWithOptions.class);

  private final FlightUri target;
  private final CallState state;
  private final FlightClient client;
  private final FlightSqlClient sql;

  FlightSqlClientWithOptions(FlightUri target, CallState state, BufferAllocator allocator) {
    this.target = target;
    this.state = state;
    this.client =
        FlightGrpcUtils.createFlightClient(
            allocator,
            new SharedChannel(FlightChannels.channel(target, state.settings())),
            Collections.singletonList(state));
    this.sql = new FlightSqlClient(client);
  }

  FlightUri target() {
    return target;
  }

  public ConnectionSettings settings() {
    return state.settings();
  }

  public FlightInfo execute(String query) {
    return idempotent("GetFlightInfo", () -> sql.execute(query, deadline()));
  }

  /**
   * GetFlightInfo of a small query the connector asks on its own behalf (a probe), with the
   * deadline of metadata calls: {@code callTimeout}, else {@code streamIdleTimeout}.
   */
  public FlightInfo executeBounded(String query) {
    return idempotent("GetFlightInfo", () -> sql.execute(query, boundedDeadline()));
  }

  /** GetFlightInfo of a query with a deadline of at most {@code capMillis} (0: callTimeout's). */
  public FlightInfo execute(String query, long capMillis) {
    return idempotent("GetFlightInfo", () -> sql.execute(query, deadline(capMillis)));
  }

  /** PollFlightInfo with a deadline of at most {@code capMillis} (0: callTimeout's). */
  public PollInfo poll(FlightDescriptor descriptor, long capMillis) {
    return idempotent("PollFlightInfo", () -> client.pollInfo(descriptor, deadline(capMillis)));
  }

  /** CancelFlightInfo with a deadline of at most {@code capMillis} (0: callTimeout's). */
  public CancelFlightInfoResult cancel(FlightInfo info, long capMillis) {
    return call(
        () -> client.cancelFlightInfo(new CancelFlightInfoRequest(info), deadline(capMillis)));
  }

  /** RenewFlightEndpoint. */
  public FlightEndpoint renew(FlightEndpoint endpoint) {
    return call(
        () -> client.renewFlightEndpoint(new RenewFlightEndpointRequest(endpoint), deadline()));
  }

  public SchemaResult getExecuteSchema(String query) {
    return idempotent("GetSchema", () -> sql.getExecuteSchema(query, boundedDeadline()));
  }

  public FlightSqlClient.PreparedStatement prepare(String query) {
    return call(() -> sql.prepare(query, boundedDeadline()));
  }

  public FlightInfo getSqlInfo() {
    return idempotent(
        "GetFlightInfo(GetSqlInfo)", () -> sql.getSqlInfo(new int[0], boundedDeadline()));
  }

  public FlightInfo getTables(String catalog, String schema, String table, boolean withSchemas) {
    return idempotent(
        "GetFlightInfo(GetTables)",
        () -> sql.getTables(catalog, schema, table, null, withSchemas, boundedDeadline()));
  }

  public FlightInfo getCatalogs() {
    return idempotent("GetFlightInfo(GetCatalogs)", () -> sql.getCatalogs(boundedDeadline()));
  }

  public FlightInfo getSchemas(String catalog) {
    return idempotent(
        "GetFlightInfo(GetDbSchemas)", () -> sql.getSchemas(catalog, null, boundedDeadline()));
  }

  /** A planning call, which changes nothing on the server: retried on UNAVAILABLE. */
  private <T> T idempotent(String rpc, Supplier<T> rpcCall) {
    return Retries.idempotent(rpc, target, state.settings().maxRetries(), () -> call(rpcCall));
  }

  public long executeUpdate(String statement, byte[] transactionId) {
    return call(
        () ->
            transactionId == null
                ? sql.executeUpdate(statement, deadline())
                : sql.executeUpdate(
                    statement, new FlightSqlClient.Transaction(transactionId), deadline()));
  }

  public byte[] beginTransaction() {
    return call(() -> sql.beginTransaction(boundedDeadline()).getTransactionId());
  }

  public void commit(byte[] transactionId) {
    call(
        () -> {
          sql.commit(new FlightSqlClient.Transaction(transactionId), boundedDeadline());
          return null;
        });
  }

  public void rollback(byte[] transactionId) {
    call(
        () -> {
          sql.rollback(new FlightSqlClient.Transaction(transactionId), boundedDeadline());
          return null;
        });
  }

  public SetSessionOptionsResult setSessionOptions(SetSessionOptionsRequest request) {
    return call(() -> client.setSessionOptions(request, boundedDeadline()));
  }

  /** Runs an action and reads its whole answer, so that failures surface here. */
  public java.util.List<Result> doAction(Action action) {
    return call(
        () -> {
          java.util.List<Result> results = new java.util.ArrayList<>();
          Iterator<Result> answer = client.doAction(action, boundedDeadline());
          answer.forEachRemaining(results::add);
          return results;
        });
  }

  public FlightClient.ClientStreamListener startPut(
      FlightDescriptor descriptor, VectorSchemaRoot root, FlightClient.PutListener listener) {
    loginIfNeeded();
    return client.startPut(descriptor, root, listener);
  }

  /**
   * Opens the stream of a ticket and waits for its first message, within {@code callTimeout}, so
   * that connection, authentication and server errors surface here.
   */
  FlightStream getStream(Ticket ticket) {
    return call(() -> openStream(ticket));
  }

  private FlightStream openStream(Ticket ticket) {
    FlightStream stream = client.getStream(ticket);
    // Both bound the wait for the first message; the shorter one is named when it ends it.
    long callTimeout = state.settings().callTimeoutMillis();
    long idleTimeout = state.settings().streamIdleTimeoutMillis();
    boolean idleFirst = idleTimeout > 0 && (callTimeout <= 0 || idleTimeout < callTimeout);
    long timeout = idleFirst ? idleTimeout : callTimeout;
    try (StreamWatch watch =
        StreamWatch.start(timeout, () -> stream.cancel("no answer within the timeout", null))) {
      try {
        stream.getSchema();
        return stream;
      } catch (RuntimeException e) {
        closeQuietly(stream, e);
        if (!watch.fired()) {
          throw e;
        }
        if (idleFirst) {
          throw StreamWatch.idle(
              "DoGet", target, "waiting for the stream's first message", timeout, e);
        }
        FlightRuntimeException deadline =
            CallStatus.TIMED_OUT
                .withDescription(
                    "the server sent nothing within option 'callTimeout' (" + timeout + " ms)")
                .toRuntimeException();
        deadline.addSuppressed(e);
        throw deadline;
      }
    }
  }

  /**
   * The deadline of calls whose answer takes the server no work proportional to the data (metadata,
   * transactions, prepared statements, session options): {@code callTimeout}, else {@code
   * streamIdleTimeout}, so that such a call on a connection that stopped carrying bytes fails
   * instead of waiting for ever. Queries (GetFlightInfo) and statements, which may run for long,
   * have {@code callTimeout} only.
   */
  private CallOption[] boundedDeadline() {
    long timeout = state.settings().callTimeoutMillis();
    if (timeout <= 0) {
      timeout = state.settings().streamIdleTimeoutMillis();
    }
    return timeout > 0
        ? new CallOption[] {CallOptions.timeout(timeout, TimeUnit.MILLISECONDS)}
        : new CallOption[0];
  }

  private CallOption[] deadline() {
    return deadline(0);
  }

  /**
   * The deadline of option callTimeout, or {@code capMillis} if shorter; none if neither is set.
   */
  private CallOption[] deadline(long capMillis) {
    long timeout = state.settings().callTimeoutMillis();
    if (capMillis > 0 && (timeout <= 0 || capMillis < timeout)) {
      timeout = capMillis;
    }
    return timeout > 0
        ? new CallOption[] {CallOptions.timeout(timeout, TimeUnit.MILLISECONDS)}
        : new CallOption[0];
  }

  /** Runs one call: logs in first if needed, and once more if the server refuses the token. */
  private <T> T call(Supplier<T> rpc) {
    loginIfNeeded();
    try {
      return rpc.get();
    } catch (FlightRuntimeException e) {
      if (e.status().code() != FlightStatusCode.UNAUTHENTICATED || !state.settings().basicAuth()) {
        throw e;
      }
      LOG.info("{} refused the bearer token (UNAUTHENTICATED); logging in again", target);
      state.tokenRefused();
      try {
        loginIfNeeded();
      } catch (RuntimeException loginFailed) {
        loginFailed.addSuppressed(e);
        throw loginFailed;
      }
      return rpc.get();
    }
  }

  /**
   * Basic authentication: a Flight handshake with {@code authorization: Basic ...}; the server
   * answers with a bearer token, which the middleware keeps for every later call.
   */
  private void loginIfNeeded() {
    if (!state.needsLogin()) {
      return;
    }
    ConnectionSettings settings = state.settings();
    try {
      client.handshake(
          new CredentialCallOption(
              new BasicAuthCredentialWriter(settings.username(), settings.password())));
    } catch (FlightRuntimeException e) {
      throw e.status()
          .code()
          .toStatus()
          .withDescription(
              "basic authentication (Handshake) as user '"
                  + settings.username()
                  + "' failed: "
                  + e.status().description())
          .withCause(e)
          .toRuntimeException();
    }
    if (state.needsLogin()) {
      throw CallStatus.UNAUTHENTICATED
          .withDescription(
              "the server accepted the handshake but sent no bearer token (authorization header)")
          .toRuntimeException();
    }
    LOG.debug("Logged in to {} as {}", target, settings.username());
  }

  private static void closeQuietly(AutoCloseable closeable, Throwable primary) {
    try {
      closeable.close();
    } catch (Exception e) {
      primary.addSuppressed(e);
    }
  }

  /**
   * Closes the Flight client. If the thread is interrupted while gRPC shuts the channel down, the
   * interrupt is kept for the caller to see and the channel is left to finish shutting down.
   */
  @Override
  public void close() {
    try {
      client.close();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
