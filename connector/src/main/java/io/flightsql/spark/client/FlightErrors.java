package io.flightsql.spark.client;

import java.util.IdentityHashMap;
import java.util.Map;
import org.apache.arrow.flight.CallStatus;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.FlightStatusCode;

/** Turns Flight and gRPC failures into {@link FlightSqlConnectorException}s users can act on. */
public final class FlightErrors {
  private FlightErrors() {}

  /**
   * Wraps a failure of one RPC: {@code [flightsql] <rpc> failed for <uri>: <STATUS>: <message>}.
   * The URI printed is the server's address only (see {@link FlightUri}).
   */
  public static FlightSqlConnectorException rpcFailed(String rpc, Object target, Throwable t) {
    if (t instanceof FlightSqlConnectorException) {
      return (FlightSqlConnectorException) t;
    }
    String status = "UNKNOWN";
    String serverMessage = String.valueOf(t.getMessage());
    if (t instanceof FlightRuntimeException) {
      CallStatus callStatus = ((FlightRuntimeException) t).status();
      status = callStatus.code().name();
      serverMessage = callStatus.description() == null ? "" : callStatus.description();
    }
    String detail = rootCauseDetail(t, serverMessage);
    StringBuilder message =
        new StringBuilder("[flightsql] ")
            .append(rpc)
            .append(" failed for ")
            .append(target)
            .append(": ")
            .append(status)
            .append(": ")
            .append(serverMessage.isEmpty() ? "(no message)" : serverMessage);
    if (!detail.isEmpty()) {
      message.append(" (").append(detail).append(')');
    }
    String hint = hint(t);
    if (!hint.isEmpty()) {
      message.append(". ").append(hint);
    }
    return new FlightSqlConnectorException(
        message.toString(), status, serverMessage, serializableCopy(t));
  }

  /** True when the failure says the server does not implement the call. */
  public static boolean isUnimplemented(Throwable t) {
    return t instanceof FlightRuntimeException
        && ((FlightRuntimeException) t).status().code() == FlightStatusCode.UNIMPLEMENTED;
  }

  private static String hint(Throwable t) {
    if (t instanceof FlightRuntimeException) {
      FlightStatusCode code = ((FlightRuntimeException) t).status().code();
      if (code == FlightStatusCode.UNAVAILABLE) {
        return "Check that the server is running and that option 'uri' names its host, port and"
            + " scheme (grpc:// for plaintext, grpc+tls:// for TLS)";
      }
    }
    return "";
  }

  /** The innermost cause's message when it says more than the outer one (e.g. the socket error). */
  private static String rootCauseDetail(Throwable t, String outer) {
    Throwable root = t;
    Map<Throwable, Boolean> seen = new IdentityHashMap<>();
    while (root.getCause() != null && seen.put(root, Boolean.TRUE) == null) {
      root = root.getCause();
    }
    if (root == t || root.getMessage() == null || outer.contains(root.getMessage())) {
      return "";
    }
    return root.getClass().getSimpleName() + ": " + root.getMessage();
  }

  /**
   * A plain copy of the exception chain: same messages and stack traces, but only JDK exception
   * types, so that it serializes whatever the original held (gRPC metadata, status objects).
   */
  static RuntimeException serializableCopy(Throwable t) {
    RuntimeException copy = new RuntimeException(t.getClass().getName() + ": " + t.getMessage());
    copy.setStackTrace(t.getStackTrace());
    Throwable cause = t.getCause();
    if (cause != null && cause != t) {
      copy.initCause(serializableCopy(cause));
    }
    return copy;
  }
}
