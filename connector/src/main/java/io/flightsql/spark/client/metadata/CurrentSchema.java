package io.flightsql.spark.client.metadata;

import io.flightsql.spark.client.transport.EndpointStreams;
import io.flightsql.spark.client.transport.FlightErrors;
import io.flightsql.spark.client.transport.FlightSqlConnectorException;
import io.flightsql.spark.client.transport.FlightUri;
import io.flightsql.spark.client.transport.SessionClients;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.arrow.flight.FlightEndpoint;
import org.apache.arrow.flight.NoOpSessionOptionValueVisitor;
import org.apache.arrow.flight.SessionOptionValue;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where a server looks for a table named without its schema, as the server itself says: the
 * session's options {@code catalog} and {@code schema} (GetSessionOptions), else the one row of the
 * established dialect's query ({@code SELECT current_database(), current_schema()} on DuckDB,
 * {@code VALUES CURRENT SCHEMA} on Derby). Asked only when a name matches tables in several
 * schemas, and never kept, since the session's options may change it; that a server lacks
 * GetSessionOptions is kept ({@link ServerFacts}). Immutable.
 */
final class CurrentSchema {
  private static final Logger LOG = LoggerFactory.getLogger(CurrentSchema.class);

  static final String GET_SESSION_OPTIONS = "GetSessionOptions";

  private final ServerSchema place;
  private final String source;

  CurrentSchema(ServerSchema place, String source) {
    this.place = place;
    this.source = source;
  }

  /** The current catalog (maybe null) and schema, when the server said them. */
  Optional<ServerSchema> place() {
    return Optional.ofNullable(place);
  }

  /** What said it, or, when nothing did, what was asked and what came back; for messages. */
  String source() {
    return source;
  }

  /**
   * Asks the server of {@code clients}.
   *
   * @throws FlightSqlConnectorException when a call fails for a reason that is not about the
   *     question (the server unreachable, the credentials refused)
   */
  static CurrentSchema ask(SessionClients clients, EndpointStreams streams, NameLookup lookup) {
    FlightUri server = clients.server();
    List<String> tried = new ArrayList<>();
    ServerFacts facts = ServerFacts.of(clients.settings());
    if (facts.lacks(GET_SESSION_OPTIONS)) {
      tried.add(GET_SESSION_OPTIONS + " is not implemented");
    } else {
      try {
        Map<String, SessionOptionValue> options =
            clients.forServer().getSessionOptions().getSessionOptions();
        String schema = text(options.get("schema"));
        if (schema != null) {
          return new CurrentSchema(
              new ServerSchema(text(options.get("catalog")), schema), GET_SESSION_OPTIONS);
        }
        tried.add(GET_SESSION_OPTIONS + " gave no option 'schema'");
      } catch (RuntimeException e) {
        if (FlightErrors.isUnimplemented(e)) {
          facts.noteLacking(GET_SESSION_OPTIONS);
          tried.add(GET_SESSION_OPTIONS + " is not implemented");
        } else if (FlightErrors.isAboutTheCall(e)) {
          throw SessionClients.failed("DoAction(" + GET_SESSION_OPTIONS + ")", server, e);
        } else {
          tried.add(GET_SESSION_OPTIONS + " failed: " + e.getMessage());
        }
      }
    }
    Optional<String> query = lookup.currentSchemaQuery();
    if (!query.isPresent()) {
      tried.add("the server's dialect, as established, has no query for it");
      return new CurrentSchema(null, String.join("; ", tried));
    }
    try {
      Optional<ServerSchema> answered = firstRow(clients, streams, query.get());
      if (answered.isPresent()) {
        return new CurrentSchema(answered.get(), "the query '" + query.get() + "'");
      }
      tried.add("the query '" + query.get() + "' returned no schema");
    } catch (RuntimeException e) {
      if (FlightErrors.isAboutTheCall(e)) {
        throw e instanceof FlightSqlConnectorException
            ? (FlightSqlConnectorException) e
            : SessionClients.failed("GetFlightInfo", server, e);
      }
      LOG.info("{} refused '{}': {}", server, query.get(), e.getMessage());
      tried.add("the query '" + query.get() + "' failed: " + e.getMessage());
    }
    return new CurrentSchema(null, String.join("; ", tried));
  }

  /** The first row's catalog and schema (two columns) or schema (one column). */
  private static Optional<ServerSchema> firstRow(
      SessionClients clients, EndpointStreams streams, String query) {
    List<ServerSchema> rows = new ArrayList<>();
    for (FlightEndpoint endpoint : clients.forServer().executeBounded(query).getEndpoints()) {
      streams.forEachRow(
          endpoint,
          (root, i) -> {
            if (rows.isEmpty()) {
              rows.add(place(root, i));
            }
          });
      if (!rows.isEmpty()) {
        break;
      }
    }
    return rows.isEmpty() || rows.get(0).schema() == null
        ? Optional.empty()
        : Optional.of(rows.get(0));
  }

  private static ServerSchema place(VectorSchemaRoot root, int row) {
    int columns = root.getFieldVectors().size();
    String last = columns == 0 ? null : text(root.getVector(columns - 1).getObject(row));
    String first = columns >= 2 ? text(root.getVector(0).getObject(row)) : null;
    return new ServerSchema(first, last);
  }

  private static String text(Object value) {
    return value == null ? null : value.toString();
  }

  private static String text(SessionOptionValue value) {
    if (value == null || value.isEmpty()) {
      return null;
    }
    String text =
        value.acceptVisitor(
            new NoOpSessionOptionValueVisitor<String>() {
              @Override
              public String visit(String s) {
                return s;
              }
            });
    return text == null || text.isEmpty() ? null : text;
  }
}
