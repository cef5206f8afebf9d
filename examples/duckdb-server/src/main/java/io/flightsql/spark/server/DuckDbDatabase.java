package io.flightsql.spark.server;

import java.io.IOException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.dictionary.DictionaryProvider;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.arrow.vector.util.DictionaryUtility;
import org.duckdb.DuckDBConnection;
import org.duckdb.DuckDBDriver;
import org.duckdb.DuckDBResultSet;

/**
 * The one in-memory DuckDB database of a server, and the settings every query relies on.
 *
 * <p>Thread-safe: each caller works on its own connection from {@link #connect()}, a duplicate of
 * the connection held here. The database lives until this object and every duplicate are closed.
 */
final class DuckDbDatabase implements AutoCloseable {

  /**
   * Database-wide settings made at start-up. They are written out rather than left to DuckDB's
   * defaults because the Arrow types and the row order that clients see depend on them.
   */
  private static final String[] SETTINGS = {
    // TIMESTAMPTZ values print, cast and export (timestamp[us, tz=UTC]) the same on every machine.
    "SET GLOBAL TimeZone = 'UTC'",
    // The Arrow types every Arrow reader knows: plain utf8, binary and list rather than their
    // large or view forms, and no DuckDB extension types. Format 1.0 matters too: from 1.4 on,
    // DuckDB exports BLOB as binary_view even without produce_arrow_string_view.
    "SET GLOBAL arrow_output_version = '1.0'",
    "SET GLOBAL produce_arrow_string_view = false",
    "SET GLOBAL arrow_large_buffer_size = false",
    "SET GLOBAL arrow_output_list_view = false",
    "SET GLOBAL arrow_lossless_conversion = false",
    // Scans return rows in insertion order; the demo tables and their tests rely on it.
    "SET GLOBAL preserve_insertion_order = true",
  };

  /**
   * Part of DuckDB's error for every statement in a transaction that DuckDB has aborted, because a
   * statement in it failed.
   */
  static final String TRANSACTION_ABORTED = "Current transaction is aborted";

  private final DuckDBConnection connection;
  private final String version;
  private final String defaultCatalog;

  private DuckDbDatabase(DuckDBConnection connection, String version, String defaultCatalog) {
    this.connection = connection;
    this.version = version;
    this.defaultCatalog = defaultCatalog;
  }

  /**
   * A new, empty in-memory database with this server's settings, then {@code extraSettings} in
   * order, so that they can override the defaults.
   *
   * @throws IllegalArgumentException with DuckDB's message if DuckDB rejects one of {@code
   *     extraSettings} (an unknown name, a value of the wrong type)
   */
  static DuckDbDatabase openInMemory(List<DuckDbSetting> extraSettings) throws SQLException {
    Properties properties = new Properties();
    // Results are pulled chunk by chunk as DoGet sends them instead of being computed up front.
    properties.setProperty(DuckDBDriver.JDBC_STREAM_RESULTS, "true");
    DuckDBConnection connection =
        (DuckDBConnection) DriverManager.getConnection("jdbc:duckdb:", properties);
    try {
      for (String setting : SETTINGS) {
        execute(connection, setting);
      }
      for (DuckDbSetting setting : extraSettings) {
        try {
          execute(connection, setting.sql());
        } catch (SQLException e) {
          throw new IllegalArgumentException(
              "DuckDB rejected the setting '" + setting + "': " + e.getMessage(), e);
        }
      }
      String version = queryString(connection, "SELECT version()");
      String defaultCatalog = queryString(connection, "SELECT current_database()");
      return new DuckDbDatabase(connection, version, defaultCatalog);
    } catch (SQLException | RuntimeException e) {
      try {
        connection.close();
      } catch (SQLException suppressed) {
        e.addSuppressed(suppressed);
      }
      throw e;
    }
  }

  /**
   * Switches DuckDB to one worker thread, once the start-up data is loaded.
   *
   * <p>With more than one thread, DuckDB returns the rows of hash aggregates, DISTINCT, hash joins
   * and ties of an ORDER BY in an order that changes from run to run. The endpoints of a query are
   * slices of separate executions of the same statement, so they only add up to the result if every
   * execution returns the same order. A single thread makes that so; queries from different clients
   * (and so the endpoints of one query) still run in parallel, each on its caller's thread.
   */
  void serveDeterministically() throws SQLException {
    execute(connection, "SET GLOBAL threads = 1");
  }

  /** DuckDB's version, for example {@code v1.5.6}. */
  String version() {
    return version;
  }

  /** The catalog that new connections use by default: DuckDB's in-memory database, "memory". */
  String defaultCatalog() {
    return defaultCatalog;
  }

  /** A new connection to this database; the caller closes it. */
  DuckDBConnection connect() throws SQLException {
    return connection.duplicate();
  }

  /**
   * A new connection whose default catalog and schema are {@code defaults}.
   *
   * @throws SQLException if DuckDB refuses them (no such catalog or schema); the connection is then
   *     closed
   */
  DuckDBConnection connect(SessionDefaults defaults) throws SQLException {
    DuckDBConnection duplicate = connect();
    String use = defaults.useStatement(defaultCatalog);
    if (use != null) {
      try {
        execute(duplicate, use);
      } catch (SQLException e) {
        try {
          duplicate.close();
        } catch (SQLException suppressed) {
          e.addSuppressed(suppressed);
        }
        throw e;
      }
    }
    return duplicate;
  }

  /** Runs one or more statements (separated by semicolons) that return no rows the caller needs. */
  void execute(String sql) throws SQLException {
    try (DuckDBConnection c = connect()) {
      execute(c, sql);
    }
  }

  @Override
  public void close() throws SQLException {
    connection.close();
  }

  /**
   * Runs {@code sql} and returns its first column of its first row as a string.
   *
   * <p>Prepared rather than plain statements throughout: DuckDB's JDBC driver reports errors of
   * plain statements under a misleading "Attempting to execute an unsuccessful or closed pending
   * query result" prefix, whereas prepared statements report DuckDB's own message.
   */
  static String queryString(Connection connection, String sql) throws SQLException {
    try (PreparedStatement statement = connection.prepareStatement(sql);
        ResultSet rows = statement.executeQuery()) {
      if (!rows.next()) {
        throw new SQLException("Query returned no rows: " + sql);
      }
      return rows.getString(1);
    }
  }

  /** The number that {@code sql} (a {@code SELECT count(*)}) returns. */
  static long queryLong(Connection connection, String sql) throws SQLException {
    return Long.parseLong(queryString(connection, sql));
  }

  /**
   * Runs statements for their effect and returns the number of rows the last one changed, or 0 when
   * it reports none (DDL and settings).
   */
  static long execute(Connection connection, String sql) throws SQLException {
    try (PreparedStatement statement = connection.prepareStatement(sql)) {
      if (statement.execute()) {
        return 0;
      }
      return Math.max(0, statement.getLargeUpdateCount());
    }
  }

  /**
   * The Arrow schema of {@code sql}'s result, from a {@code LIMIT 0} run through the same Arrow
   * export that streams the rows, so both agree to the last type parameter.
   */
  static Schema arrowSchema(Connection connection, String sql, BufferAllocator allocator)
      throws SQLException {
    try (PreparedStatement statement = connection.prepareStatement(QuerySql.schemaProbe(sql));
        ResultSet rows = statement.executeQuery()) {
      return resultSchema(rows, allocator);
    }
  }

  /** The Arrow schema of a result, as its Arrow export describes it, without reading a row. */
  static Schema resultSchema(ResultSet rows, BufferAllocator allocator) throws SQLException {
    try (ArrowReader reader = arrowReader(rows, allocator, 1)) {
      return messageSchema(reader.getVectorSchemaRoot().getSchema(), reader);
    } catch (IOException e) {
      throw new SQLException("Could not read the Arrow schema from DuckDB: " + e.getMessage(), e);
    }
  }

  /**
   * The Arrow types that DuckDB exports the given DuckDB types as, for example {@code DECIMAL(9,
   * 2)} or {@code MAP(VARCHAR, INTEGER[])}: a schema with one field per name. A type that DuckDB
   * cannot name (such as {@code INVALID}, its type of a parameter whose type it cannot infer)
   * becomes Arrow's null type: DuckDB itself would export an untyped NULL as an integer.
   *
   * <p>Safe inside a transaction: only statements that DuckDB prepared without error are run, and a
   * failed prepare leaves a transaction as it was (a failed execution would abort it).
   */
  static Schema arrowSchemaOfTypes(
      Connection connection, List<String> names, List<String> types, BufferAllocator allocator)
      throws SQLException {
    if (types.isEmpty()) {
      return new Schema(List.of());
    }
    List<String> columns = new ArrayList<>(types.size());
    boolean[] unknown = new boolean[types.size()];
    for (int i = 0; i < types.size(); i++) {
      String type = types.get(i);
      unknown[i] = type == null || type.isBlank() || type.equals("INVALID");
      if (!unknown[i] && !prepares(connection, "SELECT CAST(NULL AS " + type + ")")) {
        unknown[i] = true;
      }
      // A stand-in for an unknown type, whose field is replaced below.
      String value = unknown[i] ? "NULL::BOOLEAN" : "CAST(NULL AS " + type + ")";
      columns.add(value + " AS " + QuerySql.quoteIdentifier(names.get(i)));
    }
    Schema exported = arrowSchema(connection, "SELECT " + String.join(", ", columns), allocator);
    List<Field> fields = new ArrayList<>(exported.getFields());
    for (int i = 0; i < fields.size(); i++) {
      if (unknown[i]) {
        fields.set(i, Field.nullable(fields.get(i).getName(), ArrowType.Null.INSTANCE));
      }
    }
    return new Schema(fields);
  }

  private static boolean prepares(Connection connection, String sql) {
    try {
      connection.prepareStatement(sql).close();
      return true;
    } catch (SQLException e) {
      return false;
    }
  }

  /**
   * {@code schema} as the IPC schema message of a stream describes it: a dictionary-encoded column
   * (DuckDB's ENUM) has its dictionary's value type, with the index type in its encoding. A
   * reader's root instead holds the index vectors and so has the index type as the column's type;
   * announcing that in FlightInfo or GetSchema would contradict the stream, whose schema message
   * Flight writes in this form.
   *
   * @param dictionaries has an (even empty) dictionary for every encoded column of {@code schema}
   */
  private static Schema messageSchema(Schema schema, DictionaryProvider dictionaries) {
    List<Field> fields = new ArrayList<>(schema.getFields().size());
    Set<Long> used = new HashSet<>();
    for (Field field : schema.getFields()) {
      fields.add(DictionaryUtility.toMessageFormat(field, dictionaries, used));
    }
    return new Schema(fields, schema.getCustomMetadata());
  }

  /**
   * The error to report for a client's query that DuckDB refused inside the server's subquery
   * wrapper: the query's own error when it fails on its own too, so that the message's line and
   * caret point into the client's text; otherwise an explanation that the statement cannot be a
   * subquery (PRAGMA, EXPLAIN, ...). Queries holding a semicolon keep the wrapper's error, as
   * preparing several statements would run all but the last, and so do results that this server
   * cannot read ({@link SQLFeatureNotSupportedException}), which have nothing to do with the
   * wrapper, and so do the errors of a transaction that DuckDB has aborted, which refuses every
   * statement.
   */
  static SQLException queryError(Connection connection, String sql, SQLException wrapped) {
    String body = QuerySql.body(sql);
    if (body.indexOf(';') >= 0
        || wrapped instanceof SQLFeatureNotSupportedException
        || String.valueOf(wrapped.getMessage()).contains(TRANSACTION_ABORTED)) {
      return wrapped;
    }
    try {
      connection.prepareStatement(body).close();
      return new SQLException(
          "The statement cannot run as a query: queries run as SELECT * FROM (<query>), which"
              + " DuckDB refused: "
              + wrapped.getMessage(),
          wrapped);
    } catch (SQLException own) {
      return own;
    }
  }

  /**
   * The rows of {@code rows} as Arrow batches of at most {@code batchRows} rows. The reader's
   * buffers belong to {@code allocator}; close the reader before the result set.
   */
  static ArrowReader arrowReader(ResultSet rows, BufferAllocator allocator, int batchRows)
      throws SQLException {
    DuckDBResultSet duckRows = rows.unwrap(DuckDBResultSet.class);
    ArrowReader reader = (ArrowReader) duckRows.arrowExportStream(allocator, batchRows);
    try {
      checkReadable(reader.getVectorSchemaRoot().getSchema().getFields(), "");
      return reader;
    } catch (IOException e) {
      closeAfterFailure(reader, e);
      throw new SQLException("Could not read the Arrow schema from DuckDB: " + e.getMessage(), e);
    } catch (SQLException | RuntimeException e) {
      closeAfterFailure(reader, e);
      throw e;
    }
  }

  private static void closeAfterFailure(ArrowReader reader, Exception failure) {
    try {
      reader.close();
    } catch (IOException | RuntimeException e) {
      failure.addSuppressed(e);
    }
  }

  /**
   * Refuses the Arrow types that this server's Arrow Java imports without complaint but reads
   * wrongly. With {@code arrow_output_version} 1.5, DuckDB exports narrow decimals as 32- and
   * 64-bit decimals; Arrow Java 18 has only 128- and 256-bit decimal vectors and reads those
   * buffers as 16 bytes per value, which yields garbage (and reads past the end of DuckDB's
   * buffer).
   */
  private static void checkReadable(List<Field> fields, String parent)
      throws SQLFeatureNotSupportedException {
    for (Field field : fields) {
      String path = parent + field.getName();
      if (field.getType() instanceof ArrowType.Decimal decimal
          && decimal.getBitWidth() != 128
          && decimal.getBitWidth() != 256) {
        throw new SQLFeatureNotSupportedException(
            "Column '"
                + path
                + "' is exported by DuckDB as a "
                + decimal.getBitWidth()
                + "-bit decimal, which this server's Arrow Java cannot read: set DuckDB's"
                + " arrow_output_version to 1.4 or lower (1.5 exports 32- and 64-bit decimals)");
      }
      checkReadable(field.getChildren(), path + ".");
    }
  }
}
