package io.flightsql.spark.server;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * One call that reached a server, as {@link CallRecorder#calls()} lists it: the Flight method and
 * the request headers, so that tests can check what a client sent (credentials, cookies, custom
 * headers). Calls refused for want of credentials are recorded too.
 *
 * <p>Immutable. {@link #toString()} hides the values of the headers that carry secrets.
 */
public final class RecordedCall {

  /** Headers whose values {@link #toString()} replaces, since they carry credentials. */
  private static final Set<String> SECRET_HEADERS = Set.of("authorization", "cookie");

  private final String method;
  private final Map<String, List<String>> headers;

  RecordedCall(String method, Map<String, List<String>> headers) {
    this.method = method;
    Map<String, List<String>> copy = new LinkedHashMap<>();
    headers.forEach((name, values) -> copy.put(name, List.copyOf(values)));
    this.headers = Collections.unmodifiableMap(copy);
  }

  /**
   * The Flight method: {@code Handshake}, {@code GetFlightInfo}, {@code GetSchema}, {@code DoGet},
   * {@code DoPut}, {@code DoExchange}, {@code ListFlights}, {@code ListActions}, {@code
   * PollFlightInfo}, or {@code DoAction:<action type>} such as {@code DoAction:SetSessionOptions};
   * plain {@code DoAction} for an action refused before its type was read (for want of
   * credentials), or on a server without the recorder's action observer.
   */
  public String method() {
    return method;
  }

  /**
   * Every request header, by lower-case name, with its values in the order received. Binary headers
   * ({@code -bin}) are left out.
   */
  public Map<String, List<String>> headers() {
    return headers;
  }

  /** The first value of a request header, or null if the call had none; the name is any case. */
  public String header(String name) {
    List<String> values = headers.get(name.toLowerCase(Locale.ROOT));
    return values == null || values.isEmpty() ? null : values.get(0);
  }

  @Override
  public String toString() {
    List<String> shown = new ArrayList<>();
    headers.forEach(
        (name, values) ->
            shown.add(name + "=" + (SECRET_HEADERS.contains(name) ? "<redacted>" : values)));
    return method + " " + shown;
  }
}
