package io.flightsql.spark.server;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.arrow.flight.CallHeaders;
import org.apache.arrow.flight.CallInfo;
import org.apache.arrow.flight.CallStatus;
import org.apache.arrow.flight.FlightMethod;
import org.apache.arrow.flight.FlightProducer;
import org.apache.arrow.flight.FlightServerMiddleware;
import org.apache.arrow.flight.RequestContext;

/**
 * Records every call's method and request headers, so that a test can check what a client sent
 * (credentials, cookies, custom headers). A Flight server middleware; on the embedded DuckDB
 * server:
 *
 * <pre>{@code
 * CallRecorder recorder = new CallRecorder();
 * DuckDbFlightSqlServer server =
 *     DuckDbFlightSqlServer.builder()
 *         .middleware(CallRecorder.KEY, recorder)
 *         .actionObserver(recorder::actionStarted)
 *         .start();
 * ...
 * assertThat(recorder.calls()).extracting(RecordedCall::method).contains("DoGet");
 * }</pre>
 *
 * <p>That server installs such middleware ahead of authentication, so calls refused for want of
 * credentials are recorded with what they sent. Flight tells middleware a call's method but not
 * which action a DoAction runs, which is in the request only the producer reads: the server's
 * action observer hands it to {@link #actionStarted}. Without the observer, actions are recorded as
 * plain {@code DoAction}.
 *
 * <p>Thread-safe. Records are kept until {@link #clear()}; a test server serves few enough calls
 * for that not to matter.
 */
public final class CallRecorder implements FlightServerMiddleware.Factory<CallRecorder.Call> {

  /** The key to install the recorder under; one recorder per server. */
  public static final FlightServerMiddleware.Key<Call> KEY =
      FlightServerMiddleware.Key.of("call-recorder");

  private final List<Call> calls = new ArrayList<>();

  @Override
  public Call onCallStarted(CallInfo info, CallHeaders incoming, RequestContext context) {
    Map<String, List<String>> headers = new LinkedHashMap<>();
    for (String name : incoming.keys()) {
      String key = name.toLowerCase(Locale.ROOT);
      if (key.endsWith("-bin")) {
        continue;
      }
      List<String> values = headers.computeIfAbsent(key, k -> new ArrayList<>());
      incoming.getAll(name).forEach(values::add);
    }
    Call call = new Call(methodName(info.method()), headers);
    synchronized (calls) {
      calls.add(call);
    }
    return call;
  }

  /**
   * Names the action of the DoAction call that {@code context} belongs to; a server's action
   * observer. Does nothing for a call this recorder did not see.
   */
  public void actionStarted(FlightProducer.CallContext context, String actionType) {
    Call call = context.getMiddleware(KEY);
    if (call != null) {
      call.method = "DoAction:" + actionType;
    }
  }

  /**
   * Every call recorded since the recorder was installed or since {@link #clear()}, oldest first,
   * with its method and request headers; calls refused for want of credentials included.
   */
  public List<RecordedCall> calls() {
    synchronized (calls) {
      return calls.stream().map(Call::snapshot).toList();
    }
  }

  /** Forgets the calls recorded so far. */
  public void clear() {
    synchronized (calls) {
      calls.clear();
    }
  }

  /** {@code GET_FLIGHT_INFO} as the Flight protocol spells it: {@code GetFlightInfo}. */
  static String methodName(FlightMethod method) {
    StringBuilder name = new StringBuilder();
    for (String word : method.name().split("_")) {
      name.append(word.charAt(0)).append(word.substring(1).toLowerCase(Locale.ROOT));
    }
    return name.toString();
  }

  /** One call's record while it runs; {@link #actionStarted} adds the type of a DoAction. */
  public static final class Call implements FlightServerMiddleware {
    private final Map<String, List<String>> headers;
    private volatile String method;

    private Call(String method, Map<String, List<String>> headers) {
      this.method = method;
      this.headers = headers;
    }

    private RecordedCall snapshot() {
      return new RecordedCall(method, headers);
    }

    @Override
    public void onBeforeSendingHeaders(CallHeaders outgoing) {}

    @Override
    public void onCallCompleted(CallStatus status) {}

    @Override
    public void onCallErrored(Throwable error) {}
  }
}
