package io.flightsql.spark.catalog;

import io.flightsql.spark.client.FlightSqlSession;
import io.flightsql.spark.client.metadata.NameLookup;
import io.flightsql.spark.client.metadata.ServerSchema;
import io.flightsql.spark.client.metadata.TableRef;
import io.flightsql.spark.client.transport.FlightErrors;
import io.flightsql.spark.client.transport.FlightSqlConnectorException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.connector.catalog.Identifier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How the catalog's namespaces and identifiers map to a server's catalogs, schemas and tables, at
 * the depth the server has: {@code [catalog, schema]}, {@code [catalog]} or {@code [schema]} (a
 * catalog when the server has a catalog of that name), or none. Names match as the server spells
 * them, else ignoring case unless {@code spark.sql.caseSensitive}. Driver only.
 */
final class ServerNamespaces {
  private static final Logger LOG = LoggerFactory.getLogger(ServerNamespaces.class);

  private final CatalogConnection connection;

  ServerNamespaces(CatalogConnection connection) {
    this.connection = connection;
  }

  /**
   * The server's catalog and schema that a namespace names, in the server's spelling: {@code
   * [catalog]} or {@code [schema]} (a catalog when the server has one of that name), or {@code
   * [catalog, schema]}; empty when the server has no such place.
   */
  Optional<ServerSchema> resolve(FlightSqlSession session, String[] namespace) {
    if (namespace.length == 0 || namespace.length > 2) {
      return Optional.empty();
    }
    boolean caseSensitive = caseSensitive();
    Optional<String> catalog =
        matching(connection.serverCatalogs(session, false), namespace[0], caseSensitive);
    if (namespace.length == 1 && catalog.isPresent()) {
      return Optional.of(new ServerSchema(catalog.get(), null));
    }
    for (ServerSchema schema :
        schemas(session, namespace.length == 2 ? catalog.orElse(null) : null)) {
      if (namespace.length == 1
          && schema.schema() != null
          && (schema.catalog() == null || catalog.isPresent())
          && same(schema.schema(), namespace[0], caseSensitive)) {
        return Optional.of(schema);
      }
      if (namespace.length == 1
          && schema.catalog() != null
          && same(schema.catalog(), namespace[0], caseSensitive)) {
        return Optional.of(new ServerSchema(schema.catalog(), null));
      }
      if (namespace.length == 2
          && schema.catalog() != null
          && schema.schema() != null
          && same(schema.catalog(), namespace[0], caseSensitive)
          && same(schema.schema(), namespace[1], caseSensitive)) {
        return Optional.of(schema);
      }
    }
    return Optional.empty();
  }

  /** GetDbSchemas; a server without it has no schemas. */
  static List<ServerSchema> schemas(FlightSqlSession session, String catalog) {
    try {
      return session.schemas(catalog);
    } catch (FlightSqlConnectorException e) {
      if (!"UNIMPLEMENTED".equals(e.statusCode())) {
        throw e;
      }
      LOG.info("{} does not implement GetDbSchemas: namespaces are its catalogs", session.server());
      return Collections.emptyList();
    }
  }

  /**
   * The server table an identifier names: the namespace's parts as the server's catalog and schema
   * ({@code [x]} is a catalog when the server has a catalog of that name, else a schema), an
   * identifier without namespace in the catalog's default namespace.
   */
  TableRef tableRef(FlightSqlSession session, Identifier ident) {
    String[] namespace =
        ident.namespace().length == 0 ? connection.defaultNamespace() : ident.namespace();
    switch (namespace.length) {
      case 0:
        return new TableRef(null, null, ident.name());
      case 1:
        Optional<String> catalog =
            matching(connection.serverCatalogs(session, false), namespace[0], caseSensitive());
        return catalog.isPresent()
            ? new TableRef(catalog.get(), null, ident.name())
            : new TableRef(null, namespace[0], ident.name());
      case 2:
        return new TableRef(namespace[0], namespace[1], ident.name());
      default:
        throw new IllegalArgumentException(
            FlightErrors.message(
                ident
                    + " has "
                    + namespace.length
                    + " namespace levels; a Flight SQL server has at most two (catalog.schema)."));
    }
  }

  /**
   * How the catalog looks a table's name up: with Spark's {@code spark.sql.caseSensitive}, and,
   * where the name matches tables in several schemas, the server's current schema as its dialect
   * asks for it.
   */
  NameLookup lookup(FlightSqlSession session) {
    connection.capabilities(session);
    return NameLookup.of(caseSensitive(), connection.knownDialect().currentSchemaQuery());
  }

  static Identifier identifier(TableRef table) {
    List<String> namespace = new ArrayList<>();
    if (table.catalog() != null) {
      namespace.add(table.catalog());
    }
    if (table.schema() != null) {
      namespace.add(table.schema());
    }
    return Identifier.of(namespace.toArray(new String[0]), table.name());
  }

  static boolean samePlace(TableRef a, TableRef b, boolean caseSensitive) {
    return (b.catalog() == null
            || (a.catalog() != null && same(a.catalog(), b.catalog(), caseSensitive)))
        && (b.schema() == null
            || (a.schema() != null && same(a.schema(), b.schema(), caseSensitive)));
  }

  private static Optional<String> matching(
      List<String> names, String wanted, boolean caseSensitive) {
    if (names.contains(wanted)) {
      return Optional.of(wanted);
    }
    if (caseSensitive) {
      return Optional.empty();
    }
    for (String name : names) {
      if (name.equalsIgnoreCase(wanted)) {
        return Optional.of(name);
      }
    }
    return Optional.empty();
  }

  private static boolean same(String a, String b, boolean caseSensitive) {
    return caseSensitive ? a.equals(b) : a.equalsIgnoreCase(b);
  }

  static boolean caseSensitive() {
    return Boolean.parseBoolean(
        SparkSession.active().conf().get("spark.sql.caseSensitive", "false"));
  }
}
