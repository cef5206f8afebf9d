package io.flightsql.spark.server;

import java.sql.SQLException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.UnaryOperator;
import org.apache.arrow.c.ArrowArrayStream;
import org.apache.arrow.c.Data;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.duckdb.DuckDBConnection;

/**
 * Runs one DuckDB statement that reads Arrow batches from Java as a table, without copying them in
 * Java: the batches are exported through the Arrow C data interface and registered with DuckDB
 * ({@link DuckDBConnection#registerArrowStream}) as a view for the length of the statement.
 *
 * <p>What DuckDB JDBC 1.5 does with a registered stream, and so what this class takes care of:
 *
 * <ul>
 *   <li>The stream becomes a temporary view of the connection, created inside the connection's open
 *       transaction if there is one, and it outlives the statement. Its scan can run once: DuckDB
 *       takes the stream over when the scan starts and releases it when the scan ends, which closes
 *       the reader. The view is dropped right after the statement, so that nothing can scan a
 *       stream that is gone; when DuckDB has aborted the transaction the drop fails, but the view
 *       goes with the transaction's rollback.
 *   <li>When the statement fails before the scan starts (a binding error), DuckDB never takes the
 *       stream, and it is released here.
 *   <li>Each registration leaves a few bytes of native memory behind: DuckDB's JNI code never frees
 *       the small factory object it allocates per stream. That is why callers register a whole
 *       upload once, rather than each batch.
 * </ul>
 *
 * <p>DuckDB pulls the batches on the thread that runs the statement (the server runs DuckDB with
 * one thread), so the reader is read on the caller's thread.
 */
final class ArrowStreamView {

  private static final AtomicLong NAMES = new AtomicLong();

  private ArrowStreamView() {}

  /**
   * Registers {@code reader}'s batches as a view and runs {@code statement(view)}, where {@code
   * view} is the view's quoted name.
   *
   * @return the number of rows the statement changed, as {@link DuckDbDatabase#execute} counts them
   * @throws SQLException DuckDB's error; when the reader failed, DuckDB's message is its stack
   *     trace
   */
  static long execute(
      DuckDBConnection connection,
      ArrowReader reader,
      BufferAllocator allocator,
      UnaryOperator<String> statement)
      throws SQLException {
    String name = "__flightsql_arrow_" + NAMES.incrementAndGet();
    String view = QuerySql.quoteIdentifier(name);
    try (ArrowArrayStream stream = ArrowArrayStream.allocateNew(allocator)) {
      Data.exportArrayStream(allocator, reader, stream);
      try {
        register(connection, name, stream);
        return executeAndDrop(connection, view, statement.apply(view));
      } finally {
        if (stream.snapshot().release != 0) {
          stream.release();
        }
      }
    }
  }

  private static void register(DuckDBConnection connection, String name, ArrowArrayStream stream)
      throws SQLException {
    try {
      connection.registerArrowStream(name, stream);
    } catch (RuntimeException e) {
      throw new SQLException("DuckDB could not register the Arrow stream: " + e.getMessage(), e);
    }
  }

  private static long executeAndDrop(DuckDBConnection connection, String view, String sql)
      throws SQLException {
    long count;
    try {
      count = DuckDbDatabase.execute(connection, sql);
    } catch (SQLException e) {
      try {
        DuckDbDatabase.execute(connection, "DROP VIEW IF EXISTS " + view);
      } catch (SQLException aborted) {
        e.addSuppressed(aborted);
      }
      throw e;
    }
    DuckDbDatabase.execute(connection, "DROP VIEW IF EXISTS " + view);
    return count;
  }
}
