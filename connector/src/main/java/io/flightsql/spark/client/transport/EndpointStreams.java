package io.flightsql.spark.client.transport;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import org.apache.arrow.flight.FlightEndpoint;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.flight.Location;
import org.apache.arrow.flight.Ticket;
import org.apache.arrow.util.AutoCloseables;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The DoGet side of a session: which servers to try for an endpoint, and opening a ticket's stream
 * from the first of them that answers, without sending the session's credentials in clear to a
 * plaintext location of a TLS server. Streams allocate from the session's allocator. A stream from
 * {@link #open} belongs to its caller, who closes it before the session; {@link #forEachRow} and
 * {@link #schema} close theirs before they return. Not thread-safe, like its session.
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
    FlightSqlConnectorException failure = null;
    for (FlightUri target : targets) {
      try {
        refuseDowngrade(target);
        // Waiting for the stream's schema surfaces connection and server errors here, while
        // another location can still be tried.
        FlightStream stream = clients.forTarget(target).getStream(ticket);
        if (failure != null) {
          LOG.warn(
              "Reading from {} after an earlier location failed: {}", target, failure.getMessage());
        }
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
        stream -> {
          while (stream.next()) {
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
        stream -> {
          long rows = 0;
          while (stream.next()) {
            rows += stream.getRoot().getRowCount();
          }
          return rows;
        });
  }

  /** The schema at the head of the endpoint's stream (see {@link StreamSchemas}). */
  public Schema schema(FlightEndpoint endpoint) {
    return read(endpoint, StreamSchemas::schema);
  }

  /**
   * Opens the endpoint's stream, hands it to {@code reader} and closes it. A failure to close is
   * suppressed into the reader's failure, or thrown as an {@link IllegalStateException} when the
   * reader succeeded.
   */
  private <T> T read(FlightEndpoint endpoint, Function<FlightStream, T> reader) {
    // Not a try-with-resources: FlightStream.close() declares Exception, which includes
    // InterruptedException, and javac's "try" lint refuses such a resource.
    FlightStream stream = open(targets(endpoint), endpoint.getTicket());
    T value;
    try {
      value = reader.apply(stream);
    } catch (RuntimeException | Error e) {
      AutoCloseables.close(e, stream);
      throw e;
    }
    try {
      stream.close();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("Interrupted while closing a stream of " + server, e);
    } catch (Exception e) {
      throw new IllegalStateException("Closing a stream of " + server + " failed: " + e, e);
    }
    return value;
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
