package io.flightsql.spark.client.transport;

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

  /**
   * True when the failure is UNAVAILABLE (the server unreachable, restarting, or the connection
   * reset), whether raw or already wrapped by the connector.
   */
  public static boolean isUnavailable(Throwable t) {
    if (t instanceof FlightSqlConnectorException) {
      return "UNAVAILABLE".equals(((FlightSqlConnectorException) t).statusCode());
    }
    return t instanceof FlightRuntimeException
        && ((FlightRuntimeException) t).status().code() == FlightStatusCode.UNAVAILABLE;
  }

  /** Status codes of failures that are about the call itself, not about what it asked. */
  private static final java.util.Set<String> ABOUT_THE_CALL =
      java.util.Set.of("UNAVAILABLE", "UNAUTHENTICATED", "UNAUTHORIZED", "CANCELLED", "TIMED_OUT");

  /**
   * True when the failure is about the call (the server unreachable, the caller not authenticated
   * or allowed, the call cancelled or out of time) and says nothing of the SQL, ticket or table it
   * carried, whether raw or already wrapped by the connector.
   */
  public static boolean isAboutTheCall(Throwable t) {
    String code = null;
    if (t instanceof FlightSqlConnectorException) {
      code = ((FlightSqlConnectorException) t).statusCode();
    } else if (t instanceof FlightRuntimeException) {
      code = ((FlightRuntimeException) t).status().code().name();
    }
    return code != null && ABOUT_THE_CALL.contains(code);
  }

  private static String hint(Throwable t) {
    if (t instanceof FlightRuntimeException) {
      FlightStatusCode code = ((FlightRuntimeException) t).status().code();
      String tls = tlsHint(t);
      if (!tls.isEmpty()) {
        return tls;
      }
      switch (code) {
        case UNAVAILABLE:
          return "Check that the server is running and that option 'uri' names its host, port"
              + " and scheme (grpc:// for plaintext, grpc+tls:// for TLS)";
        case UNAUTHENTICATED:
          return "Check the credentials: options 'username' and 'password' (or 'passwordEnv',"
              + " 'passwordFile'), or 'token' (or 'tokenEnv', 'tokenFile')";
        case UNAUTHORIZED:
          return "The credentials were accepted but do not allow this; check the user's"
              + " permissions on the server";
        case TIMED_OUT:
          return "The call passed its deadline (gRPC DEADLINE_EXCEEDED); option 'callTimeout'"
              + " sets it (when unset, calls other than queries and statements get"
              + " 'streamIdleTimeout'): raise it, or leave it unset for no deadline";
        default:
          return "";
      }
    }
    return "";
  }

  /** A hint for a failed TLS handshake, found in the messages of the exception chain. */
  private static String tlsHint(Throwable t) {
    StringBuilder messages = new StringBuilder();
    Map<Throwable, Boolean> seen = new IdentityHashMap<>();
    for (Throwable c = t; c != null && seen.put(c, Boolean.TRUE) == null; c = c.getCause()) {
      messages.append(c.getClass().getName()).append(": ").append(c.getMessage()).append('\n');
    }
    // Lower case: the JDK's and OpenSSL's TLS engines spell the same alerts differently.
    String text = messages.toString().toLowerCase(java.util.Locale.ROOT);
    if (text.contains("certificate_required") || text.contains("bad_certificate")) {
      return "The server requires a client certificate (mutual TLS) it trusts: give options"
          + " 'clientCertificate' and 'clientKey'";
    }
    if (text.contains("pkix path")
        || text.contains("certificateexception")
        || text.contains("unable to find valid certification path")
        || text.contains("certificate_verify_failed")
        || text.contains("no subject alternative")
        || text.contains("no name matching")) {
      return "The server's TLS certificate is not trusted: give the CA that signed it with option"
          + " 'tlsRootCerts' (a PEM file), or, for tests only, set"
          + " 'disableCertificateVerification' to true";
    }
    if (text.contains("sslhandshakeexception")
        || text.contains("notsslrecordexception")
        || text.contains("not an ssl/tls record")) {
      return "The TLS handshake failed: check that the server uses TLS (grpc+tls://) or not"
          + " (grpc://), and options 'tlsRootCerts', 'clientCertificate' and 'clientKey'";
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
