package io.flightsql.spark.server;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.Schema;
import org.duckdb.DuckDBConnection;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs a prepared statement once per row of Arrow parameter values, with DuckDB doing the binding.
 *
 * <p>The statement is prepared in SQL ({@code PREPARE}). The parameter rows reach DuckDB through
 * the Arrow C data interface ({@link ArrowStreamView}) as a SQL variable holding a list of row
 * structs, and each {@code EXECUTE} takes its arguments from that list. DuckDB casts every value to
 * its parameter's type as it does for any bound value, so every Arrow type that DuckDB reads works,
 * NULLs, intervals, lists, structs and maps included, without turning values into Java objects for
 * JDBC's setters (which would need a Java form of every DuckDB type, and drop the type of a NULL).
 *
 * <p>The rows are executed in chunks of {@value #CHUNK_ROWS}: every {@code EXECUTE} reads its
 * variable whole, so the variable it reads stays small. Each call has statement and variable names
 * of its own, dropped by {@link #close()}.
 *
 * <p>Used for the statements the fast path (one {@code INSERT ... SELECT} over the whole upload)
 * does not cover: updates and deletes with parameters, other inserts, and queries.
 */
final class ParameterRows implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(ParameterRows.class);

  private static final AtomicLong NAMES = new AtomicLong();
  private static final int CHUNK_ROWS = 256;

  /** What to do with each row's {@code EXECUTE}, prepared and not yet run. */
  interface RowAction {
    void run(PreparedStatement execute) throws SQLException;
  }

  private final DuckDBConnection connection;
  private final int parameterCount;
  private final BufferAllocator allocator;
  private final String statement;
  private final String rows;
  private final String chunk;

  /**
   * Prepares {@code sql} on {@code connection}.
   *
   * @throws SQLException DuckDB's error if the statement does not prepare; a transaction stays
   *     usable, as DuckDB first prepares it through JDBC, which leaves the transaction alone
   */
  ParameterRows(
      DuckDBConnection connection, String sql, int parameterCount, BufferAllocator allocator)
      throws SQLException {
    long id = NAMES.incrementAndGet();
    this.connection = connection;
    this.parameterCount = parameterCount;
    this.allocator = allocator;
    this.statement = "__flightsql_statement_" + id;
    this.rows = "__flightsql_rows_" + id;
    this.chunk = "__flightsql_chunk_" + id;
    // A failing PREPARE statement would abort the connection's transaction, a failing prepare not.
    connection.prepareStatement(sql).close();
    DuckDbDatabase.execute(connection, "PREPARE " + statement + " AS " + sql);
  }

  /**
   * The Arrow schema of a prepared query's result for its first bound parameter row, from a {@code
   * LIMIT 0} run of it.
   */
  static Schema querySchema(
      DuckDBConnection connection,
      String sql,
      int parameterCount,
      ParameterBatches parameters,
      BufferAllocator allocator)
      throws SQLException {
    try (ParameterRows rows =
        new ParameterRows(connection, QuerySql.schemaProbe(sql), parameterCount, allocator)) {
      long count;
      try (BatchReader reader = parameters.reader(allocator)) {
        count = rows.load(reader);
      }
      List<Schema> schemas = new ArrayList<>(1);
      rows.forEachRow(
          Math.min(1, count),
          execute -> {
            try (ResultSet result = execute.executeQuery()) {
              schemas.add(DuckDbDatabase.resultSchema(result, allocator));
            }
          });
      if (schemas.isEmpty()) {
        throw new SQLException("No parameter rows are bound, so the query has no result");
      }
      return schemas.get(0);
    }
  }

  /**
   * Makes the rows of {@code reader} the parameter rows to run, replacing any loaded before.
   *
   * @return the number of rows
   */
  long load(ArrowReader reader) throws SQLException {
    ArrowStreamView.execute(
        connection,
        reader,
        allocator,
        view -> "SET VARIABLE " + rows + " = (SELECT list(p) FROM " + view + " AS p)");
    return DuckDbDatabase.queryLong(
        connection, "SELECT coalesce(len(getvariable('" + rows + "')), 0)");
  }

  /** Runs the first {@code count} loaded rows in order, each through {@code action}. */
  void forEachRow(long count, RowAction action) throws SQLException {
    for (long start = 0; start < count; start += CHUNK_ROWS) {
      long size = Math.min(CHUNK_ROWS, count - start);
      DuckDbDatabase.execute(
          connection,
          "SET VARIABLE "
              + chunk
              + " = getvariable('"
              + rows
              + "')["
              + (start + 1)
              + ":"
              + (start + size)
              + "]");
      for (long row = 1; row <= size; row++) {
        try (PreparedStatement execute = connection.prepareStatement(execute(row))) {
          action.run(execute);
        }
      }
    }
  }

  /** {@code EXECUTE s(<row's value 1>, ...)}, each value a constant DuckDB folds when binding. */
  private String execute(long row) {
    StringBuilder sql = new StringBuilder("EXECUTE ").append(statement).append('(');
    for (int i = 1; i <= parameterCount; i++) {
      if (i > 1) {
        sql.append(", ");
      }
      sql.append("struct_extract_at(getvariable('")
          .append(chunk)
          .append("')[")
          .append(row)
          .append("], ")
          .append(i)
          .append(')');
    }
    return sql.append(')').toString();
  }

  /**
   * Drops the statement and the variables. In a transaction that DuckDB has aborted this fails, and
   * they stay until the transaction's connection closes, which is harmless.
   */
  @Override
  public void close() {
    for (String sql :
        new String[] {
          "DEALLOCATE " + statement, "RESET VARIABLE " + rows, "RESET VARIABLE " + chunk
        }) {
      try {
        DuckDbDatabase.execute(connection, sql);
      } catch (SQLException e) {
        LOG.debug("Could not clean up after a prepared statement ({}): {}", sql, e.getMessage());
      }
    }
  }
}
