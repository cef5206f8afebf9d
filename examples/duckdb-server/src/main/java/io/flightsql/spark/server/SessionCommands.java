package io.flightsql.spark.server;

import static io.flightsql.spark.server.CallRunner.queryFailed;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.flight.CallStatus;
import org.apache.arrow.flight.CloseSessionResult;
import org.apache.arrow.flight.FlightProducer.CallContext;
import org.apache.arrow.flight.FlightProducer.StreamListener;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.GetSessionOptionsResult;
import org.apache.arrow.flight.NoOpSessionOptionValueVisitor;
import org.apache.arrow.flight.SessionOptionValue;
import org.apache.arrow.flight.SessionOptionValueFactory;
import org.apache.arrow.flight.SetSessionOptionsRequest;
import org.apache.arrow.flight.SetSessionOptionsResult;
import org.apache.arrow.flight.SetSessionOptionsResult.ErrorValue;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The session actions: SetSessionOptions, GetSessionOptions and CloseSession, on the session of the
 * call's cookie ({@link DuckDbSessions}). Without sessions they answer {@code UNIMPLEMENTED}.
 *
 * <p>Thread-safe: a session's options change under the session's lock.
 */
final class SessionCommands {

  private static final Logger LOG = LoggerFactory.getLogger(SessionCommands.class);

  private final CallRunner runner;
  private final DuckDbDatabase database;

  SessionCommands(CallRunner runner, DuckDbDatabase database) {
    this.runner = runner;
    this.database = database;
  }

  /**
   * Sets the session options {@code catalog} and {@code schema} (strings; an empty value unsets
   * one), the default catalog and schema of the session's later queries and statements. DuckDB
   * checks the two together, as the request leaves them: if it refuses them (no such catalog, or no
   * such schema in it), both are answered with INVALID_VALUE and the session keeps what it had. A
   * value that is not a string is INVALID_VALUE too, and an unknown option INVALID_NAME, as the
   * protocol says; the other options of the request still apply.
   */
  void set(
      SetSessionOptionsRequest request,
      CallContext context,
      StreamListener<SetSessionOptionsResult> listener) {
    DuckDbSessions.Call call = context.getMiddleware(DuckDbSessions.KEY);
    if (call == null) {
      listener.onError(sessionsOff("SetSessionOptions"));
      return;
    }
    DuckDbSessions.Session session = call.session();
    Map<String, SetSessionOptionsResult.Error> errors = new LinkedHashMap<>();
    try {
      runner.track(
          () -> {
            synchronized (session) {
              setOptions(session, request.getSessionOptions(), errors);
            }
            return null;
          });
      listener.onNext(new SetSessionOptionsResult(errors));
      listener.onCompleted();
    } catch (SQLException e) {
      listener.onError(queryFailed(e));
    } catch (FlightRuntimeException e) {
      listener.onError(e);
    }
  }

  private void setOptions(
      DuckDbSessions.Session session,
      Map<String, SessionOptionValue> options,
      Map<String, SetSessionOptionsResult.Error> errors) {
    SessionDefaults proposed = session.defaults();
    List<String> changed = new ArrayList<>();
    for (Map.Entry<String, SessionOptionValue> option : options.entrySet()) {
      String name = option.getKey();
      if (!name.equals(SessionDefaults.CATALOG) && !name.equals(SessionDefaults.SCHEMA)) {
        LOG.info("SetSessionOptions: unknown option '{}'", name);
        errors.put(name, new SetSessionOptionsResult.Error(ErrorValue.INVALID_NAME));
        continue;
      }
      SessionOptionValue value = option.getValue();
      String text = value.isEmpty() ? null : value.acceptVisitor(new StringOptionValue());
      if (!value.isEmpty() && (text == null || text.isEmpty())) {
        LOG.info("SetSessionOptions: option '{}' must be a non-empty string", name);
        errors.put(name, new SetSessionOptionsResult.Error(ErrorValue.INVALID_VALUE));
        continue;
      }
      proposed =
          name.equals(SessionDefaults.CATALOG)
              ? proposed.withCatalog(text)
              : proposed.withSchema(text);
      changed.add(name);
    }
    if (changed.isEmpty()) {
      return;
    }
    try {
      database.connect(proposed).close();
    } catch (SQLException e) {
      LOG.info("SetSessionOptions: DuckDB refused {}: {}", proposed.options(), e.getMessage());
      for (String name : changed) {
        errors.put(name, new SetSessionOptionsResult.Error(ErrorValue.INVALID_VALUE));
      }
      return;
    }
    session.defaults(proposed);
    LOG.info("Session {} options now {}", session.label(), proposed.options());
  }

  /** A session option's value if it is a string, else null. */
  private static final class StringOptionValue extends NoOpSessionOptionValueVisitor<String> {
    @Override
    public String visit(String value) {
      return value;
    }
  }

  void get(CallContext context, StreamListener<GetSessionOptionsResult> listener) {
    DuckDbSessions.Call call = context.getMiddleware(DuckDbSessions.KEY);
    if (call == null) {
      listener.onError(sessionsOff("GetSessionOptions"));
      return;
    }
    Map<String, SessionOptionValue> options = new LinkedHashMap<>();
    call.session()
        .defaults()
        .options()
        .forEach(
            (name, value) ->
                options.put(name, SessionOptionValueFactory.makeSessionOptionValue(value)));
    listener.onNext(new GetSessionOptionsResult(options));
    listener.onCompleted();
  }

  /** Ends the session: later calls with its cookie start a new one, with no options set. */
  void close(CallContext context, StreamListener<CloseSessionResult> listener) {
    DuckDbSessions.Call call = context.getMiddleware(DuckDbSessions.KEY);
    if (call == null) {
      listener.onError(sessionsOff("CloseSession"));
      return;
    }
    call.closeSession();
    listener.onNext(new CloseSessionResult(CloseSessionResult.Status.CLOSED));
    listener.onCompleted();
  }

  private static FlightRuntimeException sessionsOff(String action) {
    return CallStatus.UNIMPLEMENTED
        .withDescription(
            "Not supported by the "
                + DuckDbSqlInfo.SERVER_NAME
                + ": "
                + action
                + " (sessions are off; start the server with sessions enabled, --sessions)")
        .toRuntimeException();
  }
}
