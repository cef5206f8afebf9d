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
import org.apache.arrow.flight.FlightServerMiddleware;
import org.apache.arrow.flight.RequestContext;

/**
 * Records every call's method and request headers, for {@link
 * DuckDbFlightSqlServer#recordedCalls()}. Installed ahead of authentication, so that calls refused
 * for want of credentials are recorded with what they sent.
 *
 * <p>Thread-safe. Records are kept until {@link #clear()}; a test server serves few enough calls
 * for that not to matter.
 */
final class CallRecorder implements FlightServerMiddleware.Factory<CallRecorder.Call> {

  static final FlightServerMiddleware.Key<Call> KEY =
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

  /** The calls recorded so far, oldest first. */
  List<RecordedCall> recorded() {
    synchronized (calls) {
      return calls.stream().map(Call::snapshot).toList();
    }
  }

  void clear() {
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

  /** One call's record while it runs; the producer adds the action type of a DoAction. */
  static final class Call implements FlightServerMiddleware {
    private final Map<String, List<String>> headers;
    private volatile String method;

    private Call(String method, Map<String, List<String>> headers) {
      this.method = method;
      this.headers = headers;
    }

    /** Names the action of a DoAction, which the call's headers do not carry. */
    void action(String type) {
      method = "DoAction:" + type;
    }

    RecordedCall snapshot() {
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
