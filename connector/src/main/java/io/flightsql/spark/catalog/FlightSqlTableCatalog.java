package io.flightsql.spark.catalog;

import io.flightsql.spark.client.FlightSqlConnectorException;
import io.flightsql.spark.client.FlightSqlSession;
import io.flightsql.spark.client.ServerSchema;
import io.flightsql.spark.client.ServerTable;
import io.flightsql.spark.client.TableRef;
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
import org.apache.spark.sql.SparkSession;
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

  @Override
  public void initialize(String name, CaseInsensitiveStringMap options) {
    connection = new CatalogConnection(name, options.asCaseSensitiveMap());
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
      for (ServerSchema schema : schemas(session, null)) {
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
          resolveNamespace(session, namespace)
              .orElseThrow(() -> new NoSuchNamespaceException(namespace));
      Set<List<String>> out = new LinkedHashSet<>();
      if (namespace.length == 1 && place.schema() == null) {
        for (ServerSchema schema : schemas(session, place.catalog())) {
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
        if (!resolveNamespace(session, namespace).isPresent()) {
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
        "[flightsql] Catalog '"
            + name()
            + "' does not run "
            + statement
            + ": its namespaces are the server's catalogs and schemas. Create or drop them on the"
            + " server itself (e.g. CREATE SCHEMA through the server's own client).");
  }

  /**
   * The server's catalog and schema that a namespace names, in the server's spelling: {@code
   * [catalog]} or {@code [schema]} (a catalog when the server has one of that name), or {@code
   * [catalog, schema]}; empty when the server has no such place.
   */
  private Optional<ServerSchema> resolveNamespace(FlightSqlSession session, String[] namespace) {
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
  private static List<ServerSchema> schemas(FlightSqlSession session, String catalog) {
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

  // ---- tables

  @Override
  public Identifier[] listTables(String[] namespace) throws NoSuchNamespaceException {
    try (FlightSqlSession session = connection.open("tables")) {
      ServerSchema place = null;
      if (namespace.length > 0) {
        place =
            resolveNamespace(session, namespace)
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
              "[flightsql] "
                  + session.server()
                  + " does not list its tables (GetTables is UNIMPLEMENTED), so catalog '"
                  + name()
                  + "' cannot show them. Tables can still be read by name: SELECT * FROM "
                  + name()
                  + ".<namespace>.<table>.",
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
          out.add(identifier(ref));
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
    TableRef wanted = tableRef(session, ident);
    Optional<ServerTable> found;
    try {
      found = session.findTable(wanted, caseSensitive(), true);
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

  /** The table from the schema of a query that returns no row; null if the query fails. */
  private Table probed(
      FlightSqlSession session, Dialect dialect, TableRef table, String tableType) {
    Schema columns;
    try {
      columns = session.resultSchema("SELECT * FROM " + dialect.table(table) + " WHERE 1 = 0");
    } catch (FlightSqlConnectorException e) {
      if (tableType == null) {
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
          "[flightsql] Catalog '"
              + name()
              + "' cannot create partitioned tables (PARTITIONED BY): Flight SQL has no way to"
              + " say how. Create the table without PARTITIONED BY.");
    }
    try (FlightSqlSession session = connection.open("create")) {
      ServerSchema place =
          ident.namespace().length == 0
              ? new ServerSchema(null, null)
              : resolveNamespace(session, ident.namespace())
                  .orElseThrow(() -> new NoSuchNamespaceException(ident.namespace()));
      TableRef table = new TableRef(place.catalog(), place.schema(), ident.name());
      if (session.findTable(table, caseSensitive(), false).isPresent()) {
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
        "[flightsql] Catalog '"
            + name()
            + "' does not alter tables, other than ALTER TABLE ... RENAME TO where the server's"
            + " dialect has a statement for it. Alter the table on the server itself.");
  }

  @Override
  public boolean dropTable(Identifier ident) {
    try (FlightSqlSession session = connection.open("drop")) {
      Optional<ServerTable> found =
          session.findTable(tableRef(session, ident), caseSensitive(), false);
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
      boolean caseSensitive = caseSensitive();
      TableRef from =
          session
              .findTable(tableRef(session, oldIdent), caseSensitive, false)
              .orElseThrow(() -> new NoSuchTableException(oldIdent))
              .ref();
      if (newIdent.namespace().length > 0) {
        TableRef wanted = tableRef(session, newIdent);
        if (!samePlace(from, wanted, caseSensitive)) {
          throw new UnsupportedOperationException(
              "[flightsql] Catalog '"
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
      if (session.findTable(to, caseSensitive, false).isPresent()) {
        throw new TableAlreadyExistsException(newIdent);
      }
      Dialect dialect = connection.dialect(session);
      Optional<String> sql = dialect.renameTable(from, newIdent.name());
      if (!sql.isPresent()) {
        throw new UnsupportedOperationException(
            "[flightsql] Dialect '"
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

  // ---- names

  /**
   * The server table an identifier names: the namespace's parts as the server's catalog and schema
   * ({@code [x]} is a catalog when the server has a catalog of that name, else a schema), an
   * identifier without namespace in the catalog's default namespace.
   */
  private TableRef tableRef(FlightSqlSession session, Identifier ident) {
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
            "[flightsql] "
                + ident
                + " has "
                + namespace.length
                + " namespace levels; a Flight SQL server has at most two (catalog.schema).");
    }
  }

  private static Identifier identifier(TableRef table) {
    List<String> namespace = new ArrayList<>();
    if (table.catalog() != null) {
      namespace.add(table.catalog());
    }
    if (table.schema() != null) {
      namespace.add(table.schema());
    }
    return Identifier.of(namespace.toArray(new String[0]), table.name());
  }

  private static boolean samePlace(TableRef a, TableRef b, boolean caseSensitive) {
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

  private static boolean caseSensitive() {
    return Boolean.parseBoolean(
        SparkSession.active().conf().get("spark.sql.caseSensitive", "false"));
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
