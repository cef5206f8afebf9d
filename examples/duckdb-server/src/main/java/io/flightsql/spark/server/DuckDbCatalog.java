package io.flightsql.spark.server;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.arrow.flight.FlightProducer.ServerStreamListener;
import org.apache.arrow.flight.sql.FlightSqlProducer;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandGetDbSchemas;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandGetTables;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.duckdb.DuckDBConnection;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Answers Flight SQL's catalog commands (GetCatalogs, GetDbSchemas, GetTables, GetTableTypes) from
 * DuckDB's {@code information_schema}, in the result schemas of {@link FlightSqlProducer.Schemas}.
 *
 * <p>DuckDB's internal catalogs ({@code system}, holding {@code information_schema} and {@code
 * pg_catalog}, and the per-connection {@code temp}) are left out: clients see the databases that
 * hold their data, {@code memory} for the in-memory one. DuckDB's table type {@code BASE TABLE} is
 * reported as {@code TABLE}, the name JDBC and most Flight SQL servers use.
 */
final class DuckDbCatalog {

  private static final Logger LOG = LoggerFactory.getLogger(DuckDbCatalog.class);

  /** Matches the catalogs that clients may see, as a condition on a column holding its name. */
  private static final String VISIBLE_CATALOG = " NOT IN ('system', 'temp')";

  /** The table types GetTableTypes lists, as GetTables reports them. */
  static final List<String> TABLE_TYPES = List.of("LOCAL TEMPORARY", "TABLE", "VIEW");

  private final DuckDbDatabase database;
  private final BufferAllocator allocator;

  DuckDbCatalog(DuckDbDatabase database, BufferAllocator allocator) {
    this.database = database;
    this.allocator = allocator;
  }

  void streamCatalogs(ServerStreamListener listener) throws SQLException {
    String sql =
        "SELECT DISTINCT catalog_name FROM information_schema.schemata WHERE catalog_name"
            + VISIBLE_CATALOG
            + " ORDER BY catalog_name";
    send(FlightSqlProducer.Schemas.GET_CATALOGS_SCHEMA, sql, List.of(), listener);
  }

  void streamSchemas(CommandGetDbSchemas command, ServerStreamListener listener)
      throws SQLException {
    StringBuilder sql =
        new StringBuilder(
            "SELECT catalog_name, schema_name FROM information_schema.schemata WHERE catalog_name"
                + VISIBLE_CATALOG);
    List<String> parameters = new ArrayList<>();
    if (command.hasCatalog()) {
      sql.append(" AND catalog_name = ?");
      parameters.add(command.getCatalog());
    }
    if (command.hasDbSchemaFilterPattern()) {
      sql.append(" AND schema_name LIKE ? ESCAPE '\\'");
      parameters.add(command.getDbSchemaFilterPattern());
    }
    sql.append(" ORDER BY catalog_name, schema_name");
    send(FlightSqlProducer.Schemas.GET_SCHEMAS_SCHEMA, sql.toString(), parameters, listener);
  }

  void streamTables(CommandGetTables command, ServerStreamListener listener) throws SQLException {
    StringBuilder sql =
        new StringBuilder(
            "SELECT * FROM (SELECT table_catalog, table_schema, table_name, CASE table_type WHEN"
                + " 'BASE TABLE' THEN 'TABLE' ELSE table_type END AS table_type FROM"
                + " information_schema.tables WHERE table_catalog"
                + VISIBLE_CATALOG
                + ") AS t WHERE true");
    List<String> parameters = new ArrayList<>();
    if (command.hasCatalog()) {
      sql.append(" AND table_catalog = ?");
      parameters.add(command.getCatalog());
    }
    if (command.hasDbSchemaFilterPattern()) {
      sql.append(" AND table_schema LIKE ? ESCAPE '\\'");
      parameters.add(command.getDbSchemaFilterPattern());
    }
    if (command.hasTableNameFilterPattern()) {
      sql.append(" AND table_name LIKE ? ESCAPE '\\'");
      parameters.add(command.getTableNameFilterPattern());
    }
    if (command.getTableTypesCount() > 0) {
      sql.append(" AND table_type IN (");
      for (int i = 0; i < command.getTableTypesCount(); i++) {
        sql.append(i == 0 ? "?" : ", ?");
        parameters.add(command.getTableTypes(i));
      }
      sql.append(')');
    }
    sql.append(" ORDER BY table_catalog, table_schema, table_name, table_type");
    if (!command.getIncludeSchema()) {
      send(
          FlightSqlProducer.Schemas.GET_TABLES_SCHEMA_NO_SCHEMA,
          sql.toString(),
          parameters,
          listener);
      return;
    }
    try (DuckDBConnection connection = database.connect();
        VectorSchemaRoot root =
            VectorSchemaRoot.create(FlightSqlProducer.Schemas.GET_TABLES_SCHEMA, allocator)) {
      int count = fill(root, connection, sql.toString(), parameters);
      VarBinaryVector schemas = (VarBinaryVector) root.getVector("table_schema");
      for (int row = 0; row < count; row++) {
        String catalog = text(root, "catalog_name", row);
        String schema = text(root, "db_schema_name", row);
        String table = text(root, "table_name", row);
        schemas.setSafe(row, tableSchema(connection, catalog, schema, table).serializeAsMessage());
      }
      schemas.setValueCount(count);
      root.setRowCount(count);
      listener.start(root);
      listener.putNext();
      listener.completed();
    }
  }

  void streamTableTypes(ServerStreamListener listener) {
    try (VectorSchemaRoot root =
        VectorSchemaRoot.create(FlightSqlProducer.Schemas.GET_TABLE_TYPES_SCHEMA, allocator)) {
      VarCharVector types = (VarCharVector) root.getVector("table_type");
      types.allocateNew(TABLE_TYPES.size());
      for (int row = 0; row < TABLE_TYPES.size(); row++) {
        types.setSafe(row, TABLE_TYPES.get(row).getBytes(StandardCharsets.UTF_8));
      }
      root.setRowCount(TABLE_TYPES.size());
      listener.start(root);
      listener.putNext();
      listener.completed();
    }
  }

  /**
   * The columns declared NOT NULL: a query's Arrow schema marks every column nullable, while a
   * table's definition says which are not, as GetTables should.
   */
  private static Set<String> notNullColumns(
      Connection connection, String catalog, String schema, String table) throws SQLException {
    Set<String> out = new HashSet<>();
    try (PreparedStatement statement =
        connection.prepareStatement(
            "SELECT column_name FROM information_schema.columns WHERE table_catalog = ? AND"
                + " table_schema = ? AND table_name = ? AND is_nullable = 'NO'")) {
      statement.setString(1, catalog);
      statement.setString(2, schema);
      statement.setString(3, table);
      try (ResultSet rows = statement.executeQuery()) {
        while (rows.next()) {
          out.add(rows.getString(1));
        }
      }
    }
    return out;
  }

  private static Schema withNotNull(Schema schema, Set<String> notNull) {
    if (notNull.isEmpty()) {
      return schema;
    }
    List<Field> fields = new ArrayList<>();
    for (Field field : schema.getFields()) {
      fields.add(
          notNull.contains(field.getName())
              ? new Field(
                  field.getName(),
                  new FieldType(
                      false,
                      field.getType(),
                      field.getDictionary(),
                      field.getFieldType().getMetadata()),
                  field.getChildren())
              : field);
    }
    return new Schema(fields, schema.getCustomMetadata());
  }

  /** Runs {@code sql} and streams its rows, all strings, as one batch of {@code schema}. */
  private void send(
      Schema schema, String sql, List<String> parameters, ServerStreamListener listener)
      throws SQLException {
    try (DuckDBConnection connection = database.connect();
        VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator)) {
      fill(root, connection, sql, parameters);
      listener.start(root);
      listener.putNext();
      listener.completed();
    }
  }

  /**
   * Fills the leading string columns of {@code root} with the rows of {@code sql}, column by column
   * in order, and returns the number of rows.
   */
  private static int fill(
      VectorSchemaRoot root, Connection connection, String sql, List<String> parameters)
      throws SQLException {
    try (PreparedStatement statement = connection.prepareStatement(sql)) {
      for (int i = 0; i < parameters.size(); i++) {
        statement.setString(i + 1, parameters.get(i));
      }
      try (ResultSet rows = statement.executeQuery()) {
        int columns = rows.getMetaData().getColumnCount();
        root.allocateNew();
        int row = 0;
        while (rows.next()) {
          for (int column = 0; column < columns; column++) {
            VarCharVector vector = (VarCharVector) root.getVector(column);
            String value = rows.getString(column + 1);
            if (value == null) {
              vector.setNull(row);
            } else {
              vector.setSafe(row, value.getBytes(StandardCharsets.UTF_8));
            }
          }
          row++;
        }
        root.setRowCount(row);
        return row;
      }
    }
  }

  private static String text(VectorSchemaRoot root, String column, int row) {
    return new String(((VarCharVector) root.getVector(column)).get(row), StandardCharsets.UTF_8);
  }

  /** The Arrow schema of a table or view, as a {@code SELECT *} from it would stream it. */
  private Schema tableSchema(Connection connection, String catalog, String schema, String table) {
    try {
      Schema result =
          DuckDbDatabase.arrowSchema(
              connection,
              "SELECT * FROM " + QuerySql.qualifiedName(catalog, schema, table),
              allocator);
      return withNotNull(result, notNullColumns(connection, catalog, schema, table));
    } catch (SQLException e) {
      // A view whose tables were dropped has no schema; list it rather than fail the whole call.
      LOG.warn("No Arrow schema for {}.{}.{}: {}", catalog, schema, table, e.getMessage());
      return new Schema(List.of());
    }
  }
}
