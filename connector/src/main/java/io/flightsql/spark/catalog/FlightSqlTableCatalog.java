package io.flightsql.spark.catalog;

import io.flightsql.spark.client.FlightSqlSession;
import io.flightsql.spark.client.metadata.NameLookup;
import io.flightsql.spark.client.metadata.ServerSchema;
import io.flightsql.spark.client.metadata.ServerTable;
import io.flightsql.spark.client.metadata.TableRef;
import io.flightsql.spark.client.transport.FlightErrors;
import io.flightsql.spark.client.transport.FlightSqlConnectorException;
import io.flightsql.spark.client.transport.Warmup;
import io.flightsql.spark.config.FlightSqlReadConfig;
import io.flightsql.spark.dialect.Dialect;
import io.flightsql.spark.types.ArrowToSpark;
import io.flightsql.spark.types.ComparableColumns;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.spark.sql.catalyst.analysis.NoSuchNamespaceException;
import org.apache.spark.sql.catalyst.analysis.NoSuchTableException;
import org.apache.spark.sql.catalyst.analysis.TableAlreadyExistsException;
import org.apache.spark.sql.connector.catalog.Identifier;
import org.apache.spark.sql.connector.catalog.NamespaceChange;
import org.apache.spark.sql.connector.catalog.SupportsNamespaces;
import org.apache.spark.sql.connector.catalog.Table;
import org.apache.spark.sql.connector.catalog.TableCatalog;
import org.apache.spark.sql.connector.catalog.TableChange;
import org.apache.spark.sql.connector.expressions.Transform;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A Flight SQL server as a Spark catalog, {@code spark.sql.catalog.<name>}: its catalogs and
 * schemas are namespaces (GetCatalogs, GetDbSchemas), at the depth the server has; its tables are
 * tables (GetTables), read and written through the connector's read and write paths. Users
 * configure it by its entry point, {@code io.flightsql.spark.FlightSqlCatalog}; see
 * docs/catalog.md.
 *
 * <p>Namespaces: a server with catalogs and schemas (DuckDB) has namespaces {@code [catalog]} and
 * {@code [catalog, schema]}; one with catalogs only (SQLite's {@code main}) has {@code [catalog]};
 * one with schemas only (Derby) has {@code [schema]}; tables of one with neither are at the root.
 * Names are matched as the server spells them, else ignoring case unless {@code
 * spark.sql.caseSensitive}.
 *
 * <p>Each statement's metadata is one round trip where the server allows: loading a table is one
 * GetTables with the table's columns (or, where the server sends none, a query that returns no
 * row); the server's dialect and capabilities are asked once per catalog. Driver only.
 */
public class FlightSqlTableCatalog implements TableCatalog, SupportsNamespaces {
  private static final Logger LOG = LoggerFactory.getLogger(FlightSqlTableCatalog.class);

  private CatalogConnection connection;
  private ServerNamespaces namespaces;

  @Override
  public void initialize(String name, CaseInsensitiveStringMap options) {
    Warmup.start();
    connection = new CatalogConnection(name, options.asCaseSensitiveMap());
    namespaces = new ServerNamespaces(connection);
  }

  @Override
  public String name() {
    return connection.name();
  }

  /** Options {@code catalog} and {@code schema} among the catalog's properties, when given. */
  @Override
  public String[] defaultNamespace() {
    return connection.defaultNamespace();
  }

  // ---- namespaces

  @Override
  public String[][] listNamespaces() {
    try (FlightSqlSession session = connection.open("namespaces")) {
      Set<List<String>> out = new LinkedHashSet<>();
      List<String> catalogs = connection.serverCatalogs(session, true);
      for (String catalog : catalogs) {
        out.add(Collections.singletonList(catalog));
      }
      for (ServerSchema schema : ServerNamespaces.schemas(session, null)) {
        if (schema.catalog() == null && schema.schema() != null) {
          out.add(Collections.singletonList(schema.schema()));
        } else if (schema.catalog() != null && !catalogs.contains(schema.catalog())) {
          out.add(Collections.singletonList(schema.catalog()));
        }
      }
      return toArrays(out);
    }
  }

  @Override
  public String[][] listNamespaces(String[] namespace) throws NoSuchNamespaceException {
    if (namespace.length == 0) {
      return listNamespaces();
    }
    try (FlightSqlSession session = connection.open("namespaces")) {
      ServerSchema place =
          namespaces
              .resolve(session, namespace)
              .orElseThrow(() -> new NoSuchNamespaceException(namespace));
      Set<List<String>> out = new LinkedHashSet<>();
      if (namespace.length == 1 && place.schema() == null) {
        for (ServerSchema schema : ServerNamespaces.schemas(session, place.catalog())) {
          if (place.catalog().equals(schema.catalog()) && schema.schema() != null) {
            out.add(Arrays.asList(schema.catalog(), schema.schema()));
          }
        }
      }
      return toArrays(out);
    }
  }

  @Override
  public Map<String, String> loadNamespaceMetadata(String[] namespace)
      throws NoSuchNamespaceException {
    if (namespace.length > 0) {
      try (FlightSqlSession session = connection.open("namespace")) {
        if (!namespaces.resolve(session, namespace).isPresent()) {
          throw new NoSuchNamespaceException(namespace);
        }
      }
    }
    return Collections.emptyMap();
  }

  @Override
  public void createNamespace(String[] namespace, Map<String, String> metadata) {
    throw namespacesAreTheServers("CREATE NAMESPACE");
  }

  @Override
  public void alterNamespace(String[] namespace, NamespaceChange... changes) {
    throw namespacesAreTheServers("ALTER NAMESPACE");
  }

  @Override
  public boolean dropNamespace(String[] namespace, boolean cascade) {
    throw namespacesAreTheServers("DROP NAMESPACE");
  }

  private UnsupportedOperationException namespacesAreTheServers(String statement) {
    return new UnsupportedOperationException(
        FlightErrors.message("Catalog '")
            + name()
            + "' does not run "
            + statement
            + ": its namespaces are the server's catalogs and schemas. Create or drop them on the"
            + " server itself (e.g. CREATE SCHEMA through the server's own client).");
  }

  // ---- tables

  @Override
  public Identifier[] listTables(String[] namespace) throws NoSuchNamespaceException {
    try (FlightSqlSession session = connection.open("tables")) {
      ServerSchema place = null;
      if (namespace.length > 0) {
        place =
            namespaces
                .resolve(session, namespace)
                .orElseThrow(() -> new NoSuchNamespaceException(namespace));
      }
      List<ServerTable> listed;
      try {
        listed =
            session.tables(
                place == null ? null : place.catalog(),
                place == null ? null : place.schema(),
                null,
                false);
      } catch (FlightSqlConnectorException e) {
        if ("UNIMPLEMENTED".equals(e.statusCode())) {
          throw new UnsupportedOperationException(
              FlightErrors.message(
                  session.server()
                      + " does not list its tables (GetTables is UNIMPLEMENTED), so catalog '"
                      + name()
                      + "' cannot show them. Tables can still be read by name: SELECT * FROM "
                      + name()
                      + ".<namespace>.<table>."),
              e);
        }
        throw e;
      }
      List<Identifier> out = new ArrayList<>();
      for (ServerTable table : listed) {
        TableRef ref = table.ref();
        if (place == null
            || (Objects.equals(ref.catalog(), place.catalog())
                && Objects.equals(ref.schema(), place.schema()))) {
          out.add(ServerNamespaces.identifier(ref));
        }
      }
      return out.toArray(new Identifier[0]);
    }
  }

  @Override
  public Table loadTable(Identifier ident) throws NoSuchTableException {
    try (FlightSqlSession session = connection.open("load")) {
      Table table = load(session, ident);
      if (table == null) {
        throw new NoSuchTableException(ident);
      }
      return table;
    }
  }

  /** The table, or null when the server has none of that name. */
  private Table load(FlightSqlSession session, Identifier ident) {
    Dialect dialect = connection.dialect(session);
    TableRef wanted = namespaces.tableRef(session, ident);
    Optional<ServerTable> found;
    try {
      found = session.findTable(wanted, namespaces.lookup(session), true);
    } catch (FlightSqlConnectorException e) {
      if (!"UNIMPLEMENTED".equals(e.statusCode())) {
        throw e;
      }
      // No GetTables: the table is what a query of it answers, as the name was written.
      return probed(session, dialect, wanted, null);
    }
    if (!found.isPresent()) {
      return null;
    }
    ServerTable table = found.get();
    Optional<Schema> columns = table.columns();
    if (columns.isPresent()) {
      return catalogTable(table.ref(), table.type(), columns.get());
    }
    return probed(session, dialect, table.ref(), table.type());
  }

  /**
   * The table from the schema of a query that returns no row. Without a listing ({@code tableType}
   * null), a query the server refuses means there is no such table, and gives null; a failure of
   * the call itself (the server unreachable, the credentials refused, a deadline) says nothing of
   * the table and is raised, so that it never reads as "table not found".
   */
  private Table probed(
      FlightSqlSession session, Dialect dialect, TableRef table, String tableType) {
    Schema columns;
    try {
      columns = session.resultSchema("SELECT * FROM " + dialect.table(table) + " WHERE 1 = 0");
    } catch (FlightSqlConnectorException e) {
      if (tableType == null && !FlightErrors.isAboutTheCall(e)) {
        LOG.info("No table {} on {}: {}", table, session.server(), e.getMessage());
        return null;
      }
      throw e;
    }
    return catalogTable(table, tableType, columns);
  }

  private Table catalogTable(TableRef table, String tableType, Schema columns) {
    FlightSqlReadConfig config = connection.readConfig(Collections.emptyMap(), table);
    StructType schema = ArrowToSpark.toSparkSchema(columns, config.typeOptions());
    return new FlightSqlCatalogTable(
        connection, table, tableType, schema, ComparableColumns.of(columns, schema));
  }

  @Override
  @SuppressWarnings("deprecation")
  public Table createTable(
      Identifier ident, StructType schema, Transform[] partitions, Map<String, String> properties)
      throws TableAlreadyExistsException, NoSuchNamespaceException {
    if (partitions.length > 0) {
      throw new UnsupportedOperationException(
          FlightErrors.message("Catalog '")
              + name()
              + "' cannot create partitioned tables (PARTITIONED BY): Flight SQL has no way to"
              + " say how. Create the table without PARTITIONED BY.");
    }
    try (FlightSqlSession session = connection.open("create")) {
      ServerSchema place =
          ident.namespace().length == 0
              ? new ServerSchema(null, null)
              : namespaces
                  .resolve(session, ident.namespace())
                  .orElseThrow(() -> new NoSuchNamespaceException(ident.namespace()));
      TableRef table = new TableRef(place.catalog(), place.schema(), ident.name());
      if (session.findTable(table, namespaces.lookup(session), false).isPresent()) {
        throw new TableAlreadyExistsException(ident);
      }
      Dialect dialect = connection.dialect(session);
      session.executeUpdate(dialect.createTable(table, schema), null);
      LOG.info("Catalog {} created table {} on {}", name(), table, session.server());
      return new FlightSqlCatalogTable(connection, table, "TABLE", schema, null);
    }
  }

  @Override
  public Table alterTable(Identifier ident, TableChange... changes) {
    throw new UnsupportedOperationException(
        FlightErrors.message("Catalog '")
            + name()
            + "' does not alter tables, other than ALTER TABLE ... RENAME TO where the server's"
            + " dialect has a statement for it. Alter the table on the server itself.");
  }

  @Override
  public boolean dropTable(Identifier ident) {
    try (FlightSqlSession session = connection.open("drop")) {
      Optional<ServerTable> found =
          session.findTable(namespaces.tableRef(session, ident), namespaces.lookup(session), false);
      if (!found.isPresent()) {
        return false;
      }
      session.executeUpdate(connection.dialect(session).dropTable(found.get().ref()), null);
      LOG.info("Catalog {} dropped table {}", name(), found.get().ref());
      return true;
    }
  }

  @Override
  public void renameTable(Identifier oldIdent, Identifier newIdent)
      throws NoSuchTableException, TableAlreadyExistsException {
    try (FlightSqlSession session = connection.open("rename")) {
      boolean caseSensitive = ServerNamespaces.caseSensitive();
      NameLookup lookup = namespaces.lookup(session);
      TableRef from =
          session
              .findTable(namespaces.tableRef(session, oldIdent), lookup, false)
              .orElseThrow(() -> new NoSuchTableException(oldIdent))
              .ref();
      if (newIdent.namespace().length > 0) {
        TableRef wanted = namespaces.tableRef(session, newIdent);
        if (!ServerNamespaces.samePlace(from, wanted, caseSensitive)) {
          throw new UnsupportedOperationException(
              FlightErrors.message("Catalog '")
                  + name()
                  + "' renames a table only within its namespace: "
                  + from
                  + " cannot move to "
                  + wanted
                  + ". Give the new name alone: ALTER TABLE ... RENAME TO "
                  + newIdent.name());
        }
      }
      TableRef to = from.withName(newIdent.name());
      if (session.findTable(to, lookup, false).isPresent()) {
        throw new TableAlreadyExistsException(newIdent);
      }
      Dialect dialect = connection.dialect(session);
      Optional<String> sql = dialect.renameTable(from, newIdent.name());
      if (!sql.isPresent()) {
        throw new UnsupportedOperationException(
            FlightErrors.message("Dialect '")
                + dialect.name()
                + "' has no statement to rename a table, so catalog '"
                + name()
                + "' cannot rename "
                + from
                + ". Rename it on the server itself, or set the catalog's option 'dialect' if"
                + " the server speaks one that has.");
      }
      session.executeUpdate(sql.get(), null);
      LOG.info("Catalog {} renamed {} to {}", name(), from, to);
    }
  }

  private static String[][] toArrays(Set<List<String>> namespaces) {
    String[][] out = new String[namespaces.size()][];
    int i = 0;
    for (List<String> namespace : namespaces) {
      out[i++] = namespace.toArray(new String[0]);
    }
    return out;
  }
}
