package io.flightsql.spark.server;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Properties;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.Schema;
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
    // Plain utf8 and binary vectors, which every Arrow reader knows, rather than string_view.
    "SET GLOBAL produce_arrow_string_view = false",
    "SET GLOBAL arrow_large_buffer_size = false",
    // Scans return rows in insertion order; the demo tables and their tests rely on it.
    "SET GLOBAL preserve_insertion_order = true",
  };

  private final DuckDBConnection connection;
  private final String version;

  private DuckDbDatabase(DuckDBConnection connection, String version) {
    this.connection = connection;
    this.version = version;
  }

  /** A new, empty in-memory database with this server's settings. */
  static DuckDbDatabase openInMemory() throws SQLException {
    Properties properties = new Properties();
    // Results are pulled chunk by chunk as DoGet sends them instead of being computed up front.
    properties.setProperty(DuckDBDriver.JDBC_STREAM_RESULTS, "true");
    DuckDBConnection connection =
        (DuckDBConnection) DriverManager.getConnection("jdbc:duckdb:", properties);
    try {
      for (String setting : SETTINGS) {
        execute(connection, setting);
      }
      String version = queryString(connection, "SELECT version()");
      return new DuckDbDatabase(connection, version);
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

  /** A new connection to this database; the caller closes it. */
  DuckDBConnection connect() throws SQLException {
    return connection.duplicate();
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
        ResultSet rows = statement.executeQuery();
        ArrowReader reader = arrowReader(rows, allocator, 1)) {
      return reader.getVectorSchemaRoot().getSchema();
    } catch (java.io.IOException e) {
      throw new SQLException("Could not read the Arrow schema from DuckDB: " + e.getMessage(), e);
    }
  }

  /**
   * The error to report for a client's query that DuckDB refused inside the server's subquery
   * wrapper: the query's own error when it fails on its own too, so that the message's line and
   * caret point into the client's text; otherwise an explanation that the statement cannot be a
   * subquery (PRAGMA, EXPLAIN, ...). Queries holding a semicolon keep the wrapper's error, as
   * preparing several statements would run all but the last.
   */
  static SQLException queryError(Connection connection, String sql, SQLException wrapped) {
    String body = QuerySql.body(sql);
    if (body.indexOf(';') >= 0) {
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
    return (ArrowReader) duckRows.arrowExportStream(allocator, batchRows);
  }
}
