package io.flightsql.spark.client.transport;

import java.util.ArrayList;
import java.util.List;
import java.util.function.BiFunction;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import org.apache.arrow.flight.FlightEndpoint;
import org.apache.arrow.flight.FlightStatusCode;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.flight.Location;
import org.apache.arrow.flight.Ticket;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The DoGet side of a session: which servers to try for an endpoint, and opening a ticket's stream
 * from the first of them that answers, without sending the session's credentials in clear to a
 * plaintext location of a TLS server, nor to a host that option {@code credentialHosts} does not
 * name. Streams allocate from the session's allocator. A stream from {@link #open} belongs to its
 * caller, who closes it before the session; {@link #forEachRow} and {@link #schema} close theirs
 * before they return. Not thread-safe, like its session.
 */
public final class EndpointStreams {
  private static final Logger LOG = LoggerFactory.getLogger(EndpointStreams.class);

  private final FlightUri server;
  private final ConnectionSettings settings;
  private final SessionClients clients;

  public EndpointStreams(ConnectionSettings settings, SessionClients clients) {
    this.server = settings.uri();
    this.settings = settings;
    this.clients = clients;
  }

  /** Receives one row of a stream. */
  public interface RowVisitor {
    void row(VectorSchemaRoot root, int index);
  }

  /** The servers to try for an endpoint, in order. */
  public List<FlightUri> targets(FlightEndpoint endpoint) {
    List<String> locations = new ArrayList<>();
    for (Location location : endpoint.getLocations()) {
      locations.add(location.getUri().toString());
    }
    return EndpointTargets.resolve(server, locations);
  }

  /**
   * Opens the stream of a ticket from the first target that answers. The failures of the targets
   * tried before are kept as suppressed exceptions of the final failure, or logged when a later
   * target worked.
   */
  public FlightStream open(List<FlightUri> targets, Ticket ticket) {
    return open(targets, ticket, new FlightUri[1]);
  }

  /** As {@link #open(List, Ticket)}, noting in {@code openedFrom[0]} the target that answered. */
  private FlightStream open(List<FlightUri> targets, Ticket ticket, FlightUri[] openedFrom) {
    return open(targets, ticket, openedFrom, clients::forTarget);
  }

  private FlightStream open(
      List<FlightUri> targets,
      Ticket ticket,
      FlightUri[] openedFrom,
      Function<FlightUri, FlightSqlClientWithOptions> clientFor) {
    FlightSqlConnectorException failure = null;
    for (FlightUri target : targets) {
      try {
        refuseDowngrade(target);
        refuseUntrusted(target);
        // Waiting for the stream's schema surfaces connection and server errors here, while
        // another location can still be tried.
        FlightStream stream = clientFor.apply(target).getStream(ticket);
        if (failure != null) {
          LOG.warn(
              "Reading from {} after an earlier location failed: {}", target, failure.getMessage());
        }
        openedFrom[0] = target;
        return stream;
      } catch (RuntimeException e) {
        FlightSqlConnectorException wrapped = SessionClients.failed("DoGet", target, e);
        if (failure != null) {
          wrapped.addSuppressed(failure);
        }
        failure = wrapped;
      }
    }
    throw failure;
  }

  /** Hands every row of the endpoint's stream to {@code visitor}, then closes the stream. */
  public void forEachRow(FlightEndpoint endpoint, RowVisitor visitor) {
    read(
        endpoint,
        (stream, next) -> {
          while (next.getAsBoolean()) {
            VectorSchemaRoot root = stream.getRoot();
            for (int i = 0; i < root.getRowCount(); i++) {
              visitor.row(root, i);
            }
          }
          return null;
        });
  }

  /** How many rows the endpoint's stream holds, read to its end batch by batch. */
  public long countRows(FlightEndpoint endpoint) {
    return read(
        endpoint,
        (stream, next) -> {
          long rows = 0;
          while (next.getAsBoolean()) {
            rows += stream.getRoot().getRowCount();
          }
          return rows;
        });
  }

  /** The schema at the head of the endpoint's stream (see {@link StreamSchemas}). */
  public Schema schema(FlightEndpoint endpoint) {
    return read(endpoint, (stream, next) -> StreamSchemas.schema(stream));
  }

  /**
   * Opens the endpoint's stream, hands it to {@code reader} with the stream's {@code next()}
   * bounded by option {@code streamIdleTimeout}, and closes it. A failure to close is suppressed
   * into the reader's failure, or thrown as an {@link IllegalStateException} when the reader
   * succeeded.
   */
  private <T> T read(FlightEndpoint endpoint, BiFunction<FlightStream, BooleanSupplier, T> reader) {
    // Not a try-with-resources: FlightStream.close() declares Exception, which includes
    // InterruptedException, and javac's "try" lint refuses such a resource.
    FlightUri[] target = new FlightUri[1];
    FlightStream stream = open(targets(endpoint), endpoint.getTicket(), target);
    T value;
    try {
      value = reader.apply(stream, () -> next(stream, target[0]));
    } catch (RuntimeException | Error e) {
      StreamClosing.closeAfter(e, stream);
      throw e;
    }
    try {
      StreamClosing.close(stream);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("Interrupted while closing a stream of " + server, e);
    } catch (Exception e) {
      throw new IllegalStateException("Closing a stream of " + server + " failed: " + e, e);
    }
    return value;
  }

  /**
   * The stream's next message, cancelling the stream when none comes within option {@code
   * streamIdleTimeout}: a server that stopped answering a metadata call or a probe in mid-stream
   * fails it rather than holding the driver.
   */
  private boolean next(FlightStream stream, FlightUri target) {
    long timeout = settings.streamIdleTimeoutMillis();
    try (StreamWatch watch =
        StreamWatch.start(
            timeout, () -> stream.cancel("option 'streamIdleTimeout' passed", null))) {
      try {
        boolean more = stream.next();
        if (watch.fired()) {
          throw idle(target, timeout, null);
        }
        return more;
      } catch (RuntimeException e) {
        if (watch.fired()) {
          throw idle(target, timeout, e);
        }
        throw e;
      }
    }
  }

  private static FlightSqlConnectorException idle(FlightUri target, long timeout, Throwable cause) {
    return FlightErrors.failure(
        "DoGet",
        target,
        FlightStatusCode.TIMED_OUT,
        StreamWatch.silence("reading the answer of a metadata call or probe", timeout),
        "Check the server; if it is only slow, raise 'streamIdleTimeout' (0 waits for ever)",
        cause);
  }

  /**
   * Refuses a location on a host the connection's credentials do not go to: on its own, the
   * middleware would call it without them, and the read would fail in the server's words or, worse,
   * read another server's data as an anonymous user.
   */
  private void refuseUntrusted(FlightUri target) {
    List<String> credentials = settings.credentialOptions();
    if (!credentials.isEmpty() && !settings.credentialHosts().allows(server, target)) {
      throw new UntrustedLocationException(server, target, credentials);
    }
  }

  /**
   * Refuses a plaintext location when option {@code uri} uses TLS: the session's credentials,
   * headers and cookies would cross the network in clear.
   */
  private void refuseDowngrade(FlightUri target) {
    if (server.isTls() && !target.isTls() && !settings.allowInsecureLocations()) {
      throw new InsecureLocationException(target);
    }
  }
}
