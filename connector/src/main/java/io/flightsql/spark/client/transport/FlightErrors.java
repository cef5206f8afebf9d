package io.flightsql.spark.client.transport;

import java.util.IdentityHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.apache.arrow.flight.CallStatus;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.FlightStatusCode;
import org.apache.arrow.memory.OutOfMemoryException;

/**
 * Builds every error the connector raises about a server, in one form: {@code [flightsql] <rpc>
 * failed for <server>: <STATUS>: <what happened>. <what to do>}; and tells what kind of failure an
 * exception is, looking through the wrappers around it for the status a server or gRPC gave.
 */
public final class FlightErrors {
  private static final String PREFIX = "[flightsql] ";

  private FlightErrors() {}

  /**
   * The connector's error about a call: {@code [flightsql] <rpc> failed for <server>: <STATUS>:
   * <detail>}, then {@code . <fix>} when there is one. It keeps {@code status} and {@code detail}
   * for callers ({@link FlightSqlConnectorException#statusCode()}, {@link
   * FlightSqlConnectorException#serverMessage()}) and a Serializable copy of {@code cause}.
   *
   * @param rpc the call or step that failed, as users know it: {@code DoGet}, {@code Planning}
   * @param server the server called; a {@link FlightUri} prints no secret
   * @param status the status of the failure, as gRPC names it
   * @param detail what happened, in the server's words where it said
   * @param fix what the user can do, or null when there is nothing to say
   * @param cause the failure underneath, or null
   */
  public static FlightSqlConnectorException failure(
      String rpc,
      FlightUri server,
      FlightStatusCode status,
      String detail,
      String fix,
      Throwable cause) {
    return build(rpc, server, status.name(), detail, detail, fix, cause);
  }

  /**
   * A message of the connector that is not about one call (an unsupported statement, say), with the
   * prefix every connector message has: {@code [flightsql] <sentence>}.
   */
  public static String message(String sentence) {
    return PREFIX + sentence;
  }

  /**
   * The connector's error about what a server sent or holds rather than about one call (a result
   * that does not match its schema, say): {@code [flightsql] <sentence>}, keeping {@code status}
   * and {@code detail} for callers as {@link #failure} does.
   */
  public static FlightSqlConnectorException problem(String sentence, String status, String detail) {
    return new FlightSqlConnectorException(message(sentence), status, detail, null);
  }

  /**
   * {@code failure} with one more sentence, saying what it means where it happened; its status and
   * the server's words are kept, and {@code failure} is the cause.
   */
  public static FlightSqlConnectorException amend(
      FlightSqlConnectorException failure, String sentence) {
    String message = failure.getMessage();
    String separator = message.endsWith(".") ? " " : ". ";
    return new FlightSqlConnectorException(
        message + separator + sentence, failure.statusCode(), failure.serverMessage(), failure);
  }

  /**
   * True when a call's answer may have been lost after the server acted on it: the call ran out of
   * time or was cancelled, the connection failed, or the stream was reset. A server that answered
   * with any other status said what it did.
   */
  public static boolean isAnswerLost(Throwable t) {
    String status = statusOf(t);
    return "TIMED_OUT".equals(status) || "CANCELLED".equals(status) || isRetryable(t);
  }

  /**
   * Wraps a failure of one RPC: {@code [flightsql] <rpc> failed for <uri>: <STATUS>: <message>},
   * with the innermost cause's message when it says more and a hint for the status. The status and
   * message are those of the first Flight or connector failure in {@code t}'s chain of causes, so
   * that a wrapper (an {@code IllegalStateException} around a stream's failure, say) does not turn
   * UNAVAILABLE into UNKNOWN. The URI printed is the server's address only (see {@link FlightUri}).
   */
  public static FlightSqlConnectorException rpcFailed(String rpc, Object target, Throwable t) {
    if (t instanceof FlightSqlConnectorException) {
      return (FlightSqlConnectorException) t;
    }
    Throwable carrier = statusCarrier(t);
    String status = "UNKNOWN";
    String serverMessage = String.valueOf(t.getMessage());
    if (carrier instanceof FlightSqlConnectorException) {
      status = ((FlightSqlConnectorException) carrier).statusCode();
      serverMessage = String.valueOf(((FlightSqlConnectorException) carrier).serverMessage());
    } else if (carrier instanceof FlightRuntimeException) {
      CallStatus callStatus = ((FlightRuntimeException) carrier).status();
      status = callStatus.code().name();
      serverMessage = callStatus.description() == null ? "" : callStatus.description();
    }
    OutOfMemoryException outOfMemory = MemoryLimits.outOfMemory(t);
    if (outOfMemory != null) {
      String detail = MemoryLimits.detail(outOfMemory);
      return build(
          rpc, target, "RESOURCE_EXHAUSTED", detail, detail, MemoryLimits.fix(outOfMemory), t);
    }
    String detail = serverMessage.isEmpty() ? "(no message)" : serverMessage;
    String innermost = rootCauseDetail(t, serverMessage);
    if (!innermost.isEmpty()) {
      detail += " (" + innermost + ")";
    }
    return build(rpc, target, status, detail, serverMessage, hint(status, serverMessage, t), t);
  }

  private static FlightSqlConnectorException build(
      String rpc,
      Object server,
      String status,
      String detail,
      String serverMessage,
      String fix,
      Throwable cause) {
    StringBuilder message =
        new StringBuilder(PREFIX)
            .append(rpc)
            .append(" failed for ")
            .append(server)
            .append(": ")
            .append(status)
            .append(": ")
            .append(detail);
    if (fix != null && !fix.isEmpty()) {
      message.append(". ").append(fix);
    }
    return new FlightSqlConnectorException(
        message.toString(), status, serverMessage, cause == null ? null : serializableCopy(cause));
  }

  /**
   * The status of a failure as gRPC names it: its own, or that of the first Flight or connector
   * failure among its causes; {@code UNKNOWN} when none has one.
   */
  public static String statusOf(Throwable t) {
    Throwable carrier = statusCarrier(t);
    if (carrier instanceof FlightSqlConnectorException) {
      return ((FlightSqlConnectorException) carrier).statusCode();
    }
    if (carrier instanceof FlightRuntimeException) {
      return ((FlightRuntimeException) carrier).status().code().name();
    }
    return "UNKNOWN";
  }

  /** True when the failure says the server does not implement the call. */
  public static boolean isUnimplemented(Throwable t) {
    return "UNIMPLEMENTED".equals(statusOf(t));
  }

  /**
   * True when the failure is UNAVAILABLE (the server unreachable, restarting, or the connection
   * reset), whether raw or already wrapped by the connector.
   */
  public static boolean isUnavailable(Throwable t) {
    return "UNAVAILABLE".equals(statusOf(t));
  }

  /**
   * True when the call may be made again as it was, if it changes nothing on the server: the
   * connection failed (UNAVAILABLE), or the stream was reset under the call ({@code INTERNAL} with
   * an {@code RST_STREAM}, as a server killed mid-call or a proxy in between leaves it).
   */
  public static boolean isRetryable(Throwable t) {
    return isUnavailable(t) || isStreamReset(t);
  }

  /** Status codes of failures that are about the call itself, not about what it asked. */
  private static final Set<String> ABOUT_THE_CALL =
      Set.of(
          "UNAVAILABLE",
          "UNAUTHENTICATED",
          "UNAUTHORIZED",
          "CANCELLED",
          "TIMED_OUT",
          "RESOURCE_EXHAUSTED");

  /**
   * True when the failure is about the call (the server unreachable, the caller not authenticated
   * or allowed, the call cancelled, out of time or over a limit, the stream reset) and says nothing
   * of the SQL, ticket or table it carried, whether raw or wrapped.
   */
  public static boolean isAboutTheCall(Throwable t) {
    return ABOUT_THE_CALL.contains(statusOf(t)) || isStreamReset(t);
  }

  private static boolean isStreamReset(Throwable t) {
    if (!"INTERNAL".equals(statusOf(t))) {
      return false;
    }
    Throwable carrier = statusCarrier(t);
    String description =
        carrier instanceof FlightSqlConnectorException
            ? ((FlightSqlConnectorException) carrier).serverMessage()
            : ((FlightRuntimeException) carrier).status().description();
    String text = String.valueOf(description).toLowerCase(Locale.ROOT);
    // grpc-java says "RST_STREAM closed stream", grpc-go "stream terminated by RST_STREAM".
    return text.contains("rst_stream") || text.contains("rst stream");
  }

  /** The first exception in the chain that carries a status: Flight's or the connector's. */
  private static Throwable statusCarrier(Throwable t) {
    Map<Throwable, Boolean> seen = new IdentityHashMap<>();
    for (Throwable c = t; c != null && seen.put(c, Boolean.TRUE) == null; c = c.getCause()) {
      if (c instanceof FlightRuntimeException || c instanceof FlightSqlConnectorException) {
        return c;
      }
    }
    return null;
  }

  private static String hint(String status, String serverMessage, Throwable t) {
    String tls = tlsHint(t);
    if (!tls.isEmpty()) {
      return tls;
    }
    if (bodyCutShort(t)) {
      return "A record batch's header describes buffers past the end of the body that came with"
          + " it: the message was cut short or is malformed. The server, or something between it"
          + " and Spark, sent it";
    }
    if (failedDecompressing(t)) {
      return "A record batch that the server compressed could not be decompressed: its body is"
          + " corrupt, or not in the format of the codec it names (ZSTD or LZ4_FRAME). Read the"
          + " query with the server's compression off to tell whether the server or the link"
          + " spoils it";
    }
    switch (status) {
      case "UNAVAILABLE":
        if (serverMessage.contains("Keepalive failed")) {
          return "The connection went silent for option 'keepAliveTime' and the server did not"
              + " answer a keepalive ping within "
              + FlightChannels.KEEP_ALIVE_TIMEOUT_MILLIS / 1000
              + " s more, so it was closed: the server is gone, the network dropped the"
              + " connection, or a proxy stopped forwarding it. Check the server and the network"
              + " path to it";
        }
        return "Check that the server is running and that option 'uri' names its host, port"
            + " and scheme (grpc:// for plaintext, grpc+tls:// for TLS)";
      case "RESOURCE_EXHAUSTED":
        if (!MemoryLimits.oversizedMessage(serverMessage).isEmpty()) {
          return MemoryLimits.oversizedMessage(serverMessage);
        }
        if (serverMessage.contains("larger than max")) {
          return "The server refuses gRPC messages this large (gRPC's default limit is 4 MiB):"
              + " for a write, lower option 'batchBytes' (each batch is one message, a little"
              + " larger than its Arrow buffers), or raise the server's limit on received"
              + " messages";
        }
        return "";
      case "UNAUTHENTICATED":
        return "Check the credentials: options 'username' and 'password' (or 'passwordEnv',"
            + " 'passwordFile'), or 'token' (or 'tokenEnv', 'tokenFile')";
      case "UNAUTHORIZED":
        return "The credentials were accepted but do not allow this; check the user's"
            + " permissions on the server";
      case "TIMED_OUT":
        return "The call passed its deadline (gRPC DEADLINE_EXCEEDED); option 'callTimeout' sets"
            + " it (when unset, calls that should answer at once get 'streamIdleTimeout'): raise"
            + " it";
      default:
        return "";
    }
  }

  /**
   * Whether Arrow's codec failed to decompress a record batch: a frame of its compression packages
   * (relocated or not) threw, or a message says so.
   */
  /** An index out of bounds while Arrow cut a message's body into the buffers its header names. */
  private static boolean bodyCutShort(Throwable t) {
    Map<Throwable, Boolean> seen = new IdentityHashMap<>();
    for (Throwable c = t; c != null && seen.put(c, Boolean.TRUE) == null; c = c.getCause()) {
      if (c instanceof IndexOutOfBoundsException) {
        for (StackTraceElement frame : c.getStackTrace()) {
          if (frame.getClassName().endsWith("ipc.message.MessageSerializer")) {
            return true;
          }
        }
      }
    }
    return false;
  }

  private static boolean failedDecompressing(Throwable t) {
    Map<Throwable, Boolean> seen = new IdentityHashMap<>();
    for (Throwable c = t; c != null && seen.put(c, Boolean.TRUE) == null; c = c.getCause()) {
      if (String.valueOf(c.getMessage()).toLowerCase(Locale.ROOT).contains("decompress")) {
        return true;
      }
      for (StackTraceElement frame : c.getStackTrace()) {
        String where = frame.getClassName();
        if (where.contains("arrow.compression.") || where.contains("arrow.vector.compression.")) {
          return true;
        }
      }
    }
    return false;
  }

  /** A hint for a failed TLS handshake, found in the messages of the exception chain. */
  private static String tlsHint(Throwable t) {
    StringBuilder messages = new StringBuilder();
    Map<Throwable, Boolean> seen = new IdentityHashMap<>();
    for (Throwable c = t; c != null && seen.put(c, Boolean.TRUE) == null; c = c.getCause()) {
      messages.append(c.getClass().getName()).append(": ").append(c.getMessage()).append('\n');
    }
    // Lower case: the JDK's and OpenSSL's TLS engines spell the same alerts differently.
    String text = messages.toString().toLowerCase(Locale.ROOT);
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
