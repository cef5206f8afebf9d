package io.flightsql.spark.write;

import io.flightsql.spark.client.FlightSqlSession;
import io.flightsql.spark.client.metadata.ServerCapabilities;
import io.flightsql.spark.client.metadata.ServerTable;
import io.flightsql.spark.client.metadata.TableRef;
import io.flightsql.spark.client.upload.DoPutUpload;
import io.flightsql.spark.config.FlightSqlWriteConfig;
import io.flightsql.spark.config.FlightSqlWriteConfig.WriteMethod;
import io.flightsql.spark.dialect.Dialect;
import io.flightsql.spark.dialect.Dialects;
import io.flightsql.spark.vector.ArrowBatchBuilder;
import java.util.Locale;
import java.util.Optional;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.spark.sql.SaveMode;
import org.apache.spark.sql.types.StructType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Carries out a save mode on the driver, before any task runs: asks the server what it can do
 * (GetSqlInfo) and whether the table exists (GetTables), refuses, skips, empties, drops or creates
 * the table as the mode says, and returns the plan the tasks follow. An existing table is written
 * in its own spelling (found ignoring case unless {@code spark.sql.caseSensitive}), and the
 * DataFrame's columns are matched to its columns by name ({@link ColumnMatch}). Driver only.
 */
final class WritePlanner {
  private static final Logger LOG = LoggerFactory.getLogger(WritePlanner.class);

  private final FlightSqlWriteConfig config;
  private final StructType schema;
  private final boolean caseSensitive;
  private ColumnMatch columns;

  /**
   * @param schema the DataFrame's schema
   * @param caseSensitive Spark's {@code spark.sql.caseSensitive}: how table and column names match
   */
  WritePlanner(FlightSqlWriteConfig config, StructType schema, boolean caseSensitive) {
    this.config = config;
    this.schema = schema;
    this.caseSensitive = caseSensitive;
  }

  /**
   * How the DataFrame's columns meet the table's, once {@link #plan} found the table existing and
   * kept; empty when the write creates the table.
   */
  Optional<ColumnMatch> columns() {
    return Optional.ofNullable(columns);
  }

  /**
   * Prepares the table for {@code mode}.
   *
   * @return the plan of the write, or null when nothing is to be written (mode {@code ignore} and
   *     the table exists)
   */
  WritePlan plan(SaveMode mode) {
    try (FlightSqlSession session = FlightSqlSession.open(config.connection(), "write-plan")) {
      ServerCapabilities capabilities = session.capabilities();
      WriteMethod method = method(capabilities);
      Dialect dialect = Dialects.resolve(config.dialect(), capabilities).dialect();
      requireTransactionsForAtomic(capabilities, "Option 'atomic'");
      boolean keepsRows =
          mode == SaveMode.Append
              || (mode == SaveMode.Overwrite && (config.atomic() || config.truncate()));
      Optional<ServerTable> found =
          session.findTable(
              config.table(),
              caseSensitive,
              keepsRows,
              "SELECT * FROM " + dialect.table(config.table()) + " WHERE 1 = 0");
      boolean exists = found.isPresent();
      TableRef target = found.map(ServerTable::ref).orElse(config.table());
      boolean deleteAtCommit = false;
      switch (mode) {
        case ErrorIfExists:
          if (exists) {
            throw new IllegalStateException(
                "[flightsql] Table "
                    + config.table()
                    + " already exists on "
                    + config.uri()
                    + ", and save mode 'errorifexists' (the default) does not write to an existing"
                    + " table. Use mode 'append' to add rows, 'overwrite' to replace them, or"
                    + " 'ignore' to leave the table as it is.");
          }
          break;
        case Ignore:
          if (exists) {
            LOG.info("Table {} exists; save mode 'ignore' writes nothing", target);
            return null;
          }
          break;
        case Overwrite:
          if (exists && config.atomic()) {
            // The job's commit empties the table in the transaction that adds the new rows.
            deleteAtCommit = true;
          } else if (exists && config.truncate()) {
            columns = match(session, dialect, found.get());
            session.executeUpdate(dialect.deleteAll(target), null);
          } else if (exists) {
            session.executeUpdate(dialect.dropTable(target), null);
            exists = false;
            target = config.table();
          }
          break;
        default:
          break;
      }
      if (!exists) {
        createTable(session, method, dialect, target);
      } else if (columns == null) {
        columns = match(session, dialect, found.get());
      }
      WritePlan plan =
          new WritePlan(
              config, target, config.atomic(), capabilities, method, dialect, deleteAtCommit);
      LOG.info(
          "Writing to {} on {} with save mode {}: {}",
          target,
          config.uri(),
          mode.name().toLowerCase(Locale.ROOT),
          plan);
      return plan;
    }
  }

  /**
   * The plan of an append to, or overwrite of, a table a catalog found: its rows are kept, or with
   * {@code overwrite} replaced, atomically where the server has transactions (the job's commit
   * deletes the old rows in the transaction that adds the new ones), else deleted now.
   *
   * @param known what the server can do, when the caller already asked; null to ask
   */
  WritePlan planExisting(TableRef target, boolean overwrite, ServerCapabilities known) {
    try (FlightSqlSession session = FlightSqlSession.open(config.connection(), "write-plan")) {
      ServerCapabilities capabilities = known != null ? known : session.capabilities();
      WriteMethod method = method(capabilities);
      Dialect dialect = Dialects.resolve(config.dialect(), capabilities).dialect();
      requireTransactionsForAtomic(capabilities, "Option 'atomic'");
      boolean atomic = config.atomic() || (overwrite && capabilities.transactions());
      if (overwrite && !atomic) {
        LOG.info(
            "{} has no transactions: the rows of {} are deleted before the new ones are written",
            config.uri(),
            target);
        session.executeUpdate(dialect.deleteAll(target), null);
      }
      WritePlan plan =
          new WritePlan(config, target, atomic, capabilities, method, dialect, overwrite && atomic);
      LOG.info(
          "Writing to {} on {} ({}): {}",
          target,
          config.uri(),
          overwrite ? "overwrite" : "append",
          plan);
      return plan;
    }
  }

  private void requireTransactionsForAtomic(ServerCapabilities capabilities, String what) {
    if (config.atomic() && !capabilities.transactions()) {
      throw new IllegalArgumentException(
          what
              + " needs a server with transactions, and "
              + config.uri()
              + " reports none (GetSqlInfo FLIGHT_SQL_SERVER_TRANSACTION). Write without"
              + " 'atomic': a task that fails rolls back where the server allows it, but a"
              + " retried task may leave its rows twice; see docs/writing.md.");
    }
  }

  /**
   * Matches the DataFrame's columns to the table's: the columns GetTables gave, else those of a
   * query that returns no row.
   */
  private ColumnMatch match(FlightSqlSession session, Dialect dialect, ServerTable table) {
    Schema tableColumns =
        table
            .columns()
            .orElseGet(
                () ->
                    session.resultSchema(
                        "SELECT * FROM " + dialect.table(table.ref()) + " WHERE 1 = 0"));
    return ColumnMatch.of(schema, tableColumns, config.table().toString(), caseSensitive);
  }

  private WriteMethod method(ServerCapabilities capabilities) {
    if (config.method() != WriteMethod.AUTO) {
      if (config.method() == WriteMethod.INGEST
          && Boolean.FALSE.equals(capabilities.bulkIngestion())) {
        throw new IllegalArgumentException(
            "Option 'writeMethod' is 'ingest', but "
                + config.uri()
                + " reports no bulk ingestion (GetSqlInfo FLIGHT_SQL_SERVER_BULK_INGESTION); use"
                + " 'prepared' or 'auto'");
      }
      return config.method();
    }
    return Boolean.TRUE.equals(capabilities.bulkIngestion())
        ? WriteMethod.INGEST
        : WriteMethod.PREPARED;
  }

  /**
   * Creates the table: by ingesting no rows with the DataFrame's Arrow schema where the server
   * ingests (so the server chooses the column types), else with the dialect's CREATE TABLE.
   */
  private void createTable(
      FlightSqlSession session, WriteMethod method, Dialect dialect, TableRef table) {
    if (method == WriteMethod.INGEST) {
      try (ArrowBatchBuilder empty = ArrowBatchBuilder.create(schema, session.allocator());
          DoPutUpload upload =
              session.ingest(empty.root(), table, DoPutUpload.IngestMode.CREATE, null)) {
        upload.finish();
      }
    } else {
      session.executeUpdate(dialect.createTable(table, schema), null);
    }
    LOG.info("Created table {} on {}", table, config.uri());
  }
}
