package io.flightsql.spark.server;

import java.sql.SQLException;
import java.util.List;
import org.apache.arrow.flight.CallStatus;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;
import org.duckdb.DuckDBConnection;

/**
 * DoPut of a prepared statement as an update: the statement runs once per parameter row of every
 * uploaded batch, and the client gets the total count of changed rows. All of an upload's rows are
 * one atomic execution, as Flight SQL asks: one statement, or one transaction (the client's, or one
 * of its own).
 *
 * <ul>
 *   <li>Without parameters, the statement runs once, whatever was uploaded (Arrow's client sends
 *       one empty batch).
 *   <li>A plain {@code INSERT INTO t [(columns)] VALUES (?, ...)} runs as a single {@code INSERT
 *       INTO t [(columns)] SELECT * FROM <upload>}, the upload streaming into DuckDB through the
 *       Arrow C data interface like a bulk ingest: as fast, and bounded in memory.
 *   <li>Any other statement runs row by row through {@link ParameterRows}.
 *   <li>Without {@code RowStorage} ({@link WriteSink}), the rows of a plain {@code INSERT} are
 *       counted and dropped; other statements still run.
 * </ul>
 *
 * <p>Either way DuckDB converts each value to its parameter's type, so both paths accept the same
 * uploads and store the same values.
 */
final class PreparedUpdate {

  private PreparedUpdate() {}

  /**
   * @return the number of rows the executions changed
   * @throws SQLException DuckDB's error; the statement's effects are all undone
   */
  static long run(
      DuckDbPreparedStatements.Prepared prepared,
      DuckDbTransactions.Lease lease,
      FlightStream upload,
      BufferAllocator allocator,
      WriteSink sink)
      throws SQLException {
    DuckDBConnection connection = lease.connection();
    if (prepared.parameterCount() == 0) {
      while (upload.next()) {
        // Nothing to bind: the statement runs once.
      }
      return DuckDbDatabase.execute(connection, QuerySql.body(prepared.sql()));
    }
    checkParameters(upload.getSchema(), prepared.parameterCount());
    if (prepared.insertPrefix() != null) {
      try (FlightStreamReader reader = new FlightStreamReader(upload, allocator)) {
        if (sink.discards()) {
          return sink.drain(reader);
        }
        try {
          return ArrowStreamView.execute(
              connection,
              reader,
              allocator,
              view -> prepared.insertPrefix() + " SELECT * FROM " + view);
        } catch (SQLException e) {
          reader.throwUploadFailure();
          throw e;
        }
      }
    }
    if (lease.transactional()) {
      return eachRow(connection, prepared, upload, allocator);
    }
    DuckDbDatabase.execute(connection, "BEGIN TRANSACTION");
    try {
      long count = eachRow(connection, prepared, upload, allocator);
      DuckDbDatabase.execute(connection, "COMMIT");
      return count;
    } catch (SQLException | RuntimeException e) {
      try {
        DuckDbDatabase.execute(connection, "ROLLBACK");
      } catch (SQLException suppressed) {
        e.addSuppressed(suppressed);
      }
      throw e;
    }
  }

  /**
   * Checks an upload of parameter rows against a statement: one column per parameter, each of a
   * type DuckDB reads.
   *
   * @throws org.apache.arrow.flight.FlightRuntimeException INVALID_ARGUMENT naming the mismatch
   */
  static void checkParameters(Schema schema, int parameterCount) {
    if (schema.getFields().size() != parameterCount) {
      throw CallStatus.INVALID_ARGUMENT
          .withDescription(
              "The parameter batch has "
                  + schema.getFields().size()
                  + " columns, but the statement takes "
                  + parameterCount
                  + " parameters")
          .toRuntimeException();
    }
    try {
      IngestTypes.check(schema);
    } catch (IllegalArgumentException e) {
      throw CallStatus.INVALID_ARGUMENT
          .withDescription("Unsupported parameter: " + e.getMessage())
          .toRuntimeException();
    }
  }

  private static long eachRow(
      DuckDBConnection connection,
      DuckDbPreparedStatements.Prepared prepared,
      FlightStream upload,
      BufferAllocator allocator)
      throws SQLException {
    long[] changed = {0};
    try (ParameterRows rows =
        new ParameterRows(
            connection, QuerySql.body(prepared.sql()), prepared.parameterCount(), allocator)) {
      while (upload.next()) {
        VectorSchemaRoot batch = upload.getRoot();
        if (batch.getRowCount() == 0) {
          continue;
        }
        long count;
        try (BatchReader reader = new BatchReader(batch.getSchema(), List.of(batch), allocator)) {
          count = rows.load(reader);
        }
        rows.forEachRow(
            count,
            execute -> {
              execute.execute();
              changed[0] += Math.max(0, execute.getLargeUpdateCount());
            });
      }
    }
    return changed[0];
  }
}
