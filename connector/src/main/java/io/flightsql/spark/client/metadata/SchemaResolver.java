package io.flightsql.spark.client.metadata;

import io.flightsql.spark.client.transport.FlightErrors;
import io.flightsql.spark.client.transport.FlightSqlConnectorException;
import io.flightsql.spark.client.transport.FlightUri;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.FlightStatusCode;
import org.apache.arrow.vector.types.pojo.Schema;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Finds a query's result schema by trying several ways in order and stopping at the first that
 * gives one. Servers differ: some implement GetSchema, some only describe prepared statements, some
 * put the schema in FlightInfo, and some only send it at the head of the data stream.
 */
public final class SchemaResolver {
  private static final Logger LOG = LoggerFactory.getLogger(SchemaResolver.class);

  /** One way of finding the schema. */
  public interface Source {
    /** The RPC it uses, for messages, e.g. {@code GetSchema}. */
    String rpc();

    /** The schema, or empty when the server answered but did not say. */
    Optional<Schema> fetch();

    /** The source that calls {@code rpc} by {@code fetch}. */
    static Source of(String rpc, Supplier<Optional<Schema>> fetch) {
      return new Source() {
        @Override
        public String rpc() {
          return rpc;
        }

        @Override
        public Optional<Schema> fetch() {
          return fetch.get();
        }
      };
    }
  }

  private SchemaResolver() {}

  /**
   * Tries each source in order. A source that has no schema, or that the server does not implement,
   * passes to the next; a failure no other source can avoid (the query is rejected, the server is
   * unreachable, the caller is not authenticated) ends the search at once.
   *
   * @throws FlightSqlConnectorException the first failure that is not "unimplemented" (the most
   *     telling one, e.g. the server's syntax error), with the others attached as suppressed
   */
  public static Schema resolve(List<Source> sources, FlightUri target) {
    List<Throwable> failures = new ArrayList<>();
    for (Source source : sources) {
      try {
        Optional<Schema> schema = source.fetch();
        if (schema.isPresent() && !schema.get().getFields().isEmpty()) {
          LOG.debug("Result schema of the query taken from {}", source.rpc());
          return schema.get();
        }
      } catch (RuntimeException e) {
        LOG.debug("{} gave no schema: {}", source.rpc(), e.toString());
        FlightSqlConnectorException wrapped = FlightErrors.rpcFailed(source.rpc(), target, e);
        failures.add(wrapped);
        if (isFinal(e)) {
          break;
        }
      }
    }
    FlightSqlConnectorException primary = firstTelling(failures);
    if (primary == null) {
      primary =
          FlightErrors.failure(
              "Schema inference",
              target,
              FlightStatusCode.UNKNOWN,
              "the server gave no result schema for the query (tried "
                  + String.join(", ", triedRpcs(sources))
                  + ")",
              "Give the read its schema (DataFrameReader.schema) to skip inference",
              null);
    }
    for (Throwable other : failures) {
      if (other != primary) {
        primary.addSuppressed(other);
      }
    }
    throw primary;
  }

  private static List<String> triedRpcs(List<Source> sources) {
    List<String> names = new ArrayList<>();
    for (Source s : sources) {
      names.add(s.rpc());
    }
    return names;
  }

  /**
   * Whether no other way of finding the schema can do better. Only "not implemented" and the vague
   * INTERNAL/UNKNOWN (which some servers answer for commands they lack) are worth another try; a
   * query the server rejects (INVALID_ARGUMENT, NOT_FOUND) would only be rejected again.
   */
  private static boolean isFinal(RuntimeException e) {
    if (Thread.currentThread().isInterrupted()) {
      return true;
    }
    if (!(e instanceof FlightRuntimeException)) {
      return false;
    }
    FlightStatusCode code = ((FlightRuntimeException) e).status().code();
    return code != FlightStatusCode.UNIMPLEMENTED
        && code != FlightStatusCode.INTERNAL
        && code != FlightStatusCode.UNKNOWN;
  }

  /** The first failure that says more than "not implemented", or null. */
  private static FlightSqlConnectorException firstTelling(List<Throwable> failures) {
    for (Throwable t : failures) {
      FlightSqlConnectorException e = (FlightSqlConnectorException) t;
      if (!"UNIMPLEMENTED".equals(e.statusCode())) {
        return e;
      }
    }
    return null;
  }
}
