package io.flightsql.spark.server;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import org.apache.arrow.flight.CallStatus;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandStatementIngest;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandStatementIngest.TableDefinitionOptions;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandStatementIngest.TableDefinitionOptions.TableExistsOption;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandStatementIngest.TableDefinitionOptions.TableNotExistOption;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.types.pojo.Schema;
import org.duckdb.DuckDBConnection;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Bulk ingestion ({@code CommandStatementIngest}): a DoPut upload becomes the rows of a table that
 * the upload creates, replaces or appends to.
 *
 * <p>The rows go into DuckDB as one {@code INSERT INTO <table> BY NAME SELECT * FROM <upload>}, the
 * upload being a view over the incoming Arrow batches ({@link ArrowStreamView}): DuckDB reads each
 * batch straight from the gRPC buffers through the Arrow C data interface, as it arrives, and no
 * row is ever converted in Java. Columns are matched by name, so an upload may list a table's
 * columns in any order and leave some out (they get their default).
 *
 * <p>Everything an ingest does (create, drop, insert) happens in one transaction: its own, or the
 * client's when the command names one. When anything fails, nothing of the upload stays: its own
 * transaction is rolled back, and the client's can no longer commit, unless the ingest failed
 * before it changed anything (bad options, a table whose existence contradicts them).
 *
 * <p>Tables and their options:
 *
 * <ul>
 *   <li>{@code catalog} and {@code schema} default to DuckDB's current ones ({@code memory}, {@code
 *       main}); a catalog without a schema means that catalog's {@code main}.
 *   <li>{@code temporary} creates the table in DuckDB's {@code temp.main}, which lives on one
 *       DuckDB connection: it needs a transaction, whose connection holds the table until the
 *       transaction ends. Another catalog or schema than {@code temp} and {@code main} is refused.
 *   <li>New tables get the column types of {@link IngestTypes}; an existing table keeps its own,
 *       and DuckDB casts the upload's values to them.
 * </ul>
 */
final class BulkIngest {

  private static final Logger LOG = LoggerFactory.getLogger(BulkIngest.class);

  private static final String TEMP_CATALOG = "temp";
  private static final String DEFAULT_SCHEMA = "main";

  private BulkIngest() {}

  /** Where the rows go. */
  private record Target(String catalog, String schema, String table, boolean temporary) {
    String sql() {
      return QuerySql.qualifiedName(catalog, schema, table);
    }
  }

  /**
   * Runs the ingest on the lease's connection.
   *
   * @return the number of rows ingested
   * @throws FlightRuntimeException INVALID_ARGUMENT for bad options, ALREADY_EXISTS or NOT_FOUND
   *     when the table's existence contradicts them, or the upload's own failure (CANCELLED, ...)
   * @throws IllegalArgumentException for a column that DuckDB cannot store
   * @throws SQLException DuckDB's error (a type that does not convert, a NOT NULL violation, ...)
   */
  static long run(
      CommandStatementIngest command,
      DuckDbTransactions.Lease lease,
      FlightStream upload,
      BufferAllocator allocator,
      String peer,
      WriteSink sink)
      throws SQLException {
    long startNanos = System.nanoTime();
    TableDefinitionOptions options = checkOptions(command, lease.transactional());
    Schema schema = upload.getSchema();
    IngestTypes.check(schema);
    DuckDBConnection connection = lease.connection();
    boolean ownTransaction = !lease.transactional();
    if (ownTransaction) {
      DuckDbDatabase.execute(connection, "BEGIN TRANSACTION");
    }
    boolean writing = false;
    try {
      Target target = target(connection, command);
      boolean exists = exists(connection, target);
      String ddl = ddl(target, exists, options, schema);
      writing = true;
      if (ddl != null) {
        DuckDbDatabase.execute(connection, ddl);
      }
      long rows;
      int batches;
      try (FlightStreamReader reader = new FlightStreamReader(upload, allocator)) {
        rows = sink.discards() ? sink.drain(reader) : insert(connection, reader, allocator, target);
        batches = reader.batches();
      }
      if (ownTransaction) {
        DuckDbDatabase.execute(connection, "COMMIT");
      }
      long millis = Math.max(1, (System.nanoTime() - startNanos) / 1_000_000);
      LOG.info(
          "Ingest from {}: {} rows in {} batches {} {} ({}) in {} ms, {} rows/s",
          peer,
          rows,
          batches,
          sink.discards() ? "discarded, not stored in" : "into",
          target.sql(),
          ddl == null ? "appended" : exists ? "replaced" : "created",
          millis,
          rows * 1000 / millis);
      return rows;
    } catch (SQLException | RuntimeException e) {
      LOG.info(
          "Ingest from {} into table '{}' failed, and nothing of it stays: {}",
          peer,
          command.getTable(),
          e.getMessage());
      if (ownTransaction) {
        rollback(connection, e);
      } else if (writing) {
        lease.doom("an ingest into table '" + command.getTable() + "' failed: " + e.getMessage());
      }
      throw e;
    }
  }

  private static TableDefinitionOptions checkOptions(
      CommandStatementIngest command, boolean inTransaction) {
    if (command.getTable().isEmpty()) {
      throw invalid("The ingest names no table");
    }
    TableDefinitionOptions options = command.getTableDefinitionOptions();
    if (options.getIfNotExist() != TableNotExistOption.TABLE_NOT_EXIST_OPTION_CREATE
        && options.getIfNotExist() != TableNotExistOption.TABLE_NOT_EXIST_OPTION_FAIL) {
      throw invalid(
          "Invalid table_definition_options.if_not_exist "
              + options.getIfNotExist()
              + ": expected TABLE_NOT_EXIST_OPTION_CREATE or TABLE_NOT_EXIST_OPTION_FAIL");
    }
    if (options.getIfExists() != TableExistsOption.TABLE_EXISTS_OPTION_FAIL
        && options.getIfExists() != TableExistsOption.TABLE_EXISTS_OPTION_APPEND
        && options.getIfExists() != TableExistsOption.TABLE_EXISTS_OPTION_REPLACE) {
      throw invalid(
          "Invalid table_definition_options.if_exists "
              + options.getIfExists()
              + ": expected TABLE_EXISTS_OPTION_FAIL, TABLE_EXISTS_OPTION_APPEND or"
              + " TABLE_EXISTS_OPTION_REPLACE");
    }
    if (!command.getOptionsMap().isEmpty()) {
      throw invalid(
          "Unknown ingest options "
              + command.getOptionsMap().keySet()
              + ": this server takes no backend-specific options");
    }
    if (command.getTemporary()) {
      if (!inTransaction) {
        throw invalid(
            "A temporary table needs a transaction: DuckDB keeps it on one connection, the"
                + " transaction's, until the transaction ends; without one it would be gone as soon"
                + " as the ingest returns");
      }
      if (command.hasCatalog() && !command.getCatalog().equalsIgnoreCase(TEMP_CATALOG)
          || command.hasSchema() && !command.getSchema().equalsIgnoreCase(DEFAULT_SCHEMA)) {
        throw invalid(
            "A temporary table lives in DuckDB's catalog 'temp', schema 'main'; leave catalog and"
                + " schema unset or set them to those");
      }
    }
    return options;
  }

  private static Target target(DuckDBConnection connection, CommandStatementIngest command)
      throws SQLException {
    if (command.getTemporary()) {
      return new Target(TEMP_CATALOG, DEFAULT_SCHEMA, command.getTable(), true);
    }
    String catalog =
        command.hasCatalog()
            ? command.getCatalog()
            : DuckDbDatabase.queryString(connection, "SELECT current_database()");
    String schema;
    if (command.hasSchema()) {
      schema = command.getSchema();
    } else if (command.hasCatalog()) {
      schema = DEFAULT_SCHEMA;
    } else {
      schema = DuckDbDatabase.queryString(connection, "SELECT current_schema()");
    }
    return new Target(catalog, schema, command.getTable(), false);
  }

  /** Whether the table exists; DuckDB matches names without regard to case, so this does too. */
  private static boolean exists(DuckDBConnection connection, Target target) throws SQLException {
    try (PreparedStatement statement =
        connection.prepareStatement(
            "SELECT count(*) FROM duckdb_tables() WHERE lower(database_name) = lower(?)"
                + " AND lower(schema_name) = lower(?) AND lower(table_name) = lower(?)")) {
      statement.setString(1, target.catalog());
      statement.setString(2, target.schema());
      statement.setString(3, target.table());
      try (ResultSet rows = statement.executeQuery()) {
        rows.next();
        return rows.getLong(1) > 0;
      }
    }
  }

  /** The statement that prepares the table, null when the rows go into the table as it is. */
  private static String ddl(
      Target target, boolean exists, TableDefinitionOptions options, Schema schema) {
    if (exists) {
      return switch (options.getIfExists()) {
        case TABLE_EXISTS_OPTION_APPEND -> null;
        case TABLE_EXISTS_OPTION_REPLACE -> create(target, schema, true);
        default ->
            throw CallStatus.ALREADY_EXISTS
                .withDescription(
                    "Table "
                        + target.sql()
                        + " already exists and if_exists is FAIL; use APPEND or REPLACE to write"
                        + " into it")
                .toRuntimeException();
      };
    }
    if (options.getIfNotExist() == TableNotExistOption.TABLE_NOT_EXIST_OPTION_FAIL) {
      throw CallStatus.NOT_FOUND
          .withDescription(
              "Table "
                  + target.sql()
                  + " does not exist and if_not_exist is FAIL; use CREATE to create it")
          .toRuntimeException();
    }
    return create(target, schema, false);
  }

  private static String create(Target target, Schema schema, boolean replace) {
    // DuckDB takes no catalog in CREATE TEMP TABLE: temporary tables always go to temp.main.
    String name = target.temporary() ? QuerySql.quoteIdentifier(target.table()) : target.sql();
    return "CREATE "
        + (replace ? "OR REPLACE " : "")
        + (target.temporary() ? "TEMP " : "")
        + "TABLE "
        + name
        + " ("
        + IngestTypes.columnDefinitions(schema)
        + ")";
  }

  private static long insert(
      DuckDBConnection connection,
      FlightStreamReader reader,
      BufferAllocator allocator,
      Target target)
      throws SQLException {
    try {
      return ArrowStreamView.execute(
          connection,
          reader,
          allocator,
          view -> "INSERT INTO " + target.sql() + " BY NAME SELECT * FROM " + view);
    } catch (SQLException e) {
      reader.throwUploadFailure();
      throw e;
    }
  }

  private static void rollback(DuckDBConnection connection, Exception failure) {
    try {
      DuckDbDatabase.execute(connection, "ROLLBACK");
    } catch (SQLException e) {
      failure.addSuppressed(e);
    }
  }

  private static FlightRuntimeException invalid(String message) {
    return CallStatus.INVALID_ARGUMENT.withDescription(message).toRuntimeException();
  }
}
