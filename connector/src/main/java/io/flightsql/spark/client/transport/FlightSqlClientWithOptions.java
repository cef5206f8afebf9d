package io.flightsql.spark.client.transport;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.function.Function;
import org.apache.arrow.flight.Action;
import org.apache.arrow.flight.CallOption;
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
import org.apache.arrow.flight.GetSessionOptionsRequest;
import org.apache.arrow.flight.GetSessionOptionsResult;
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
 * <p>Bounds: every call first waits for its channel to be connected, within option {@code
 * connectTimeout} ({@link FlightChannels#awaitConnected}). Calls that should answer promptly
 * (metadata, transactions, prepared statements, session options, actions, and a poll of a query the
 * server is running) get {@code callTimeout} as their gRPC deadline, or {@code streamIdleTimeout}
 * when it is unset; calls whose answer takes as long as the work asked for (a query's GetFlightInfo
 * or first PollFlightInfo, a statement) get {@code callTimeout} only, and the caller's own limit
 * ({@link CallBudget}), since a deadline would cut a long but healthy query: while they wait,
 * keepalive pings (option {@code keepAliveTime}) find a connection that went dead. A deadline that
 * passes is reported naming the option that set it. A DoGet would be cut off mid-stream by a
 * deadline, so it is bounded only until its first message (the schema) arrives (and by option
 * {@code streamIdleTimeout}, the shorter of the two ending the wait). A DoPut's length depends on
 * the data, so it has none. Planning calls that fail with UNAVAILABLE or a reset stream are retried
 * ({@link Retries}); nothing else is.
 */
public final class FlightSqlClientWithOptions implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(FlightSqlClientWithOptions.class);

  private final FlightUri target;
  private final CallState state;
  private final SharedChannel channel;
  private final FlightClient client;
  private final FlightSqlClient sql;

  FlightSqlClientWithOptions(FlightUri target, CallState state, BufferAllocator allocator) {
    this.target = target;
    this.state = state;
    this.channel = FlightChannels.acquire(target, state.settings());
    this.client =
        FlightGrpcUtils.createFlightClient(
            allocator, channel, Collections.singletonList(state.forTarget(target)));
    this.sql = new FlightSqlClient(client);
  }

  FlightUri target() {
    return target;
  }

  public ConnectionSettings settings() {
    return state.settings();
  }

  /** GetFlightInfo of a query: bounded by {@code callTimeout} only (see the class comment). */
  public FlightInfo execute(String query) {
    return execute(query, CallBudget.UNLIMITED);
  }

  /** GetFlightInfo of a query within the caller's {@code budget} (and {@code callTimeout}). */
  public FlightInfo execute(String query, CallBudget budget) {
    return idempotent("GetFlightInfo", budget, work(budget), o -> sql.execute(query, o));
  }

  /**
   * GetFlightInfo of a small query the connector asks on its own behalf (a probe), with the
   * deadline of metadata calls: {@code callTimeout}, else {@code streamIdleTimeout}.
   */
  public FlightInfo executeBounded(String query) {
    return idempotent("GetFlightInfo", prompt(), o -> sql.execute(query, o));
  }

  /** The first PollFlightInfo of a query, which may run it as GetFlightInfo would. */
  public PollInfo poll(FlightDescriptor descriptor, CallBudget budget) {
    return idempotent("PollFlightInfo", budget, work(budget), o -> client.pollInfo(descriptor, o));
  }

  /**
   * A PollFlightInfo of a query the server said it is running: the answer should come at once, so
   * it has the deadline of metadata calls (within the caller's {@code budget}).
   */
  public PollInfo pollAgain(FlightDescriptor descriptor, CallBudget budget) {
    return idempotent(
        "PollFlightInfo", budget, prompt().cappedBy(budget), o -> client.pollInfo(descriptor, o));
  }

  /** CancelFlightInfo with a deadline of at most {@code capMillis}. */
  public CancelFlightInfoResult cancel(FlightInfo info, long capMillis) {
    return call(
        prompt().cappedAt(capMillis),
        o -> client.cancelFlightInfo(new CancelFlightInfoRequest(info), o));
  }

  /** RenewFlightEndpoint. */
  public FlightEndpoint renew(FlightEndpoint endpoint) {
    return call(
        prompt(), o -> client.renewFlightEndpoint(new RenewFlightEndpointRequest(endpoint), o));
  }

  public SchemaResult getExecuteSchema(String query) {
    return idempotent("GetSchema", prompt(), o -> sql.getExecuteSchema(query, o));
  }

  public FlightSqlClient.PreparedStatement prepare(String query) {
    return call(prompt(), o -> sql.prepare(query, o));
  }

  public FlightInfo getSqlInfo() {
    return idempotent("GetFlightInfo(GetSqlInfo)", prompt(), o -> sql.getSqlInfo(new int[0], o));
  }

  public FlightInfo getTables(String catalog, String schema, String table, boolean withSchemas) {
    return idempotent(
        "GetFlightInfo(GetTables)",
        prompt(),
        o -> sql.getTables(catalog, schema, table, null, withSchemas, o));
  }

  public FlightInfo getCatalogs() {
    return idempotent("GetFlightInfo(GetCatalogs)", prompt(), sql::getCatalogs);
  }

  public FlightInfo getSchemas(String catalog) {
    return idempotent(
        "GetFlightInfo(GetDbSchemas)", prompt(), o -> sql.getSchemas(catalog, null, o));
  }

  private <T> T idempotent(String rpc, CallDeadline deadline, Function<CallOption[], T> rpcCall) {
    return idempotent(rpc, CallBudget.UNLIMITED, deadline, rpcCall);
  }

  /** A planning call, which changes nothing on the server: retried ({@link Retries}). */
  private <T> T idempotent(
      String rpc, CallBudget budget, CallDeadline deadline, Function<CallOption[], T> rpcCall) {
    return Retries.idempotent(
        rpc, target, state.settings().maxRetries(), budget, () -> call(budget, deadline, rpcCall));
  }

  /** A statement: bounded by {@code callTimeout} only, as it takes as long as its work. */
  public long executeUpdate(String statement, byte[] transactionId) {
    return call(
        work(CallBudget.UNLIMITED),
        o ->
            transactionId == null
                ? sql.executeUpdate(statement, o)
                : sql.executeUpdate(statement, new FlightSqlClient.Transaction(transactionId), o));
  }

  /**
   * A statement that should finish at once (dropping a staging table, say), with the deadline of
   * metadata calls: {@code callTimeout}, else {@code streamIdleTimeout}; a server that holds it
   * (behind another transaction's lock) does not hold the caller for ever.
   */
  public long executeUpdateBounded(String statement) {
    return call(prompt(), o -> sql.executeUpdate(statement, o));
  }

  public byte[] beginTransaction() {
    return call(prompt(), o -> sql.beginTransaction(o).getTransactionId());
  }

  public void commit(byte[] transactionId) {
    call(
        prompt(),
        o -> {
          sql.commit(new FlightSqlClient.Transaction(transactionId), o);
          return null;
        });
  }

  public void rollback(byte[] transactionId) {
    call(
        prompt(),
        o -> {
          sql.rollback(new FlightSqlClient.Transaction(transactionId), o);
          return null;
        });
  }

  public SetSessionOptionsResult setSessionOptions(SetSessionOptionsRequest request) {
    return call(prompt(), o -> client.setSessionOptions(request, o));
  }

  public GetSessionOptionsResult getSessionOptions() {
    return call(prompt(), o -> client.getSessionOptions(new GetSessionOptionsRequest(), o));
  }

  /** Runs an action and reads its whole answer, so that failures surface here. */
  public List<Result> doAction(Action action) {
    return call(
        prompt(),
        o -> {
          List<Result> results = new ArrayList<>();
          Iterator<Result> answer = client.doAction(action, o);
          answer.forEachRemaining(results::add);
          return results;
        });
  }

  public FlightClient.ClientStreamListener startPut(
      FlightDescriptor descriptor, VectorSchemaRoot root, FlightClient.PutListener listener) {
    FlightChannels.awaitConnected(
        channel.channel(), state.settings().connectTimeoutMillis(), CallBudget.UNLIMITED);
    loginIfNeeded();
    return client.startPut(descriptor, root, listener);
  }

  /**
   * Opens the stream of a ticket and waits for its first message, within {@code callTimeout}, so
   * that connection, authentication and server errors surface here.
   */
  FlightStream getStream(Ticket ticket) {
    return call(CallDeadline.NONE, o -> openStream(ticket));
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

  private CallDeadline work(CallBudget budget) {
    return CallDeadline.work(state.settings()).cappedBy(budget);
  }

  private CallDeadline prompt() {
    return CallDeadline.prompt(state.settings());
  }

  /**
   * Runs one call once its channel is connected: logs in first if needed, and once more if the
   * server refuses the token. A deadline of an option that passes is reported naming the option.
   */
  private <T> T call(CallDeadline deadline, Function<CallOption[], T> rpc) {
    return call(CallBudget.UNLIMITED, deadline, rpc);
  }

  private <T> T call(CallBudget budget, CallDeadline deadline, Function<CallOption[], T> rpc) {
    FlightChannels.awaitConnected(
        channel.channel(), state.settings().connectTimeoutMillis(), budget);
    loginIfNeeded();
    long start = System.nanoTime();
    try {
      return rpc.apply(deadline.options());
    } catch (FlightRuntimeException e) {
      if (e.status().code() == FlightStatusCode.TIMED_OUT) {
        throw deadline.explain(e, start);
      }
      if (e.status().code() != FlightStatusCode.UNAUTHENTICATED || !state.settings().basicAuth()) {
        throw e;
      }
      LOG.info("{} refused the bearer token (UNAUTHENTICATED); logging in again", target);
      state.tokenRefused(target);
      try {
        loginIfNeeded();
      } catch (RuntimeException loginFailed) {
        loginFailed.addSuppressed(e);
        throw loginFailed;
      }
      return rpc.apply(deadline.options());
    }
  }

  /**
   * Basic authentication: a Flight handshake with {@code authorization: Basic ...}; the server
   * answers with a bearer token, which the middleware keeps for every later call.
   */
  private void loginIfNeeded() {
    if (!state.needsLogin(target)) {
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
    if (state.needsLogin(target)) {
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
