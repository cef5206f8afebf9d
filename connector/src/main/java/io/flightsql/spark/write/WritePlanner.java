package io.flightsql.spark.write;

import io.flightsql.spark.client.DoPutUpload;
import io.flightsql.spark.client.FlightSqlSession;
import io.flightsql.spark.client.ServerCapabilities;
import io.flightsql.spark.config.FlightSqlWriteConfig;
import io.flightsql.spark.config.FlightSqlWriteConfig.WriteMethod;
import io.flightsql.spark.sql.SqlDialect;
import io.flightsql.spark.vector.ArrowBatchBuilder;
import java.util.Locale;
import org.apache.spark.sql.SaveMode;
import org.apache.spark.sql.types.StructType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Carries out a save mode on the driver, before any task runs: asks the server what it can do
 * (GetSqlInfo) and whether the table exists (GetTables), refuses, skips, empties, drops or creates
 * the table as the mode says, and returns the plan the tasks follow. Driver only.
 */
final class WritePlanner {
  private static final Logger LOG = LoggerFactory.getLogger(WritePlanner.class);

  private final FlightSqlWriteConfig config;
  private final StructType schema;

  WritePlanner(FlightSqlWriteConfig config, StructType schema) {
    this.config = config;
    this.schema = schema;
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
      SqlDialect dialect =
          config
              .dialect()
              .map(SqlDialect::fromOptionValue)
              .orElseGet(() -> SqlDialect.forServerName(capabilities.serverName()));
      if (config.atomic() && !capabilities.transactions()) {
        throw new IllegalArgumentException(
            "Option 'atomic' needs a server with transactions, and "
                + config.uri()
                + " reports none (GetSqlInfo FLIGHT_SQL_SERVER_TRANSACTION). Write without"
                + " 'atomic': a task that fails rolls back where the server allows it, but a"
                + " retried task may leave its rows twice; see docs/writing.md.");
      }
      String quote = capabilities.identifierQuote();
      boolean exists = session.tableExists(config.table());
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
            LOG.info("Table {} exists; save mode 'ignore' writes nothing", config.table());
            return null;
          }
          break;
        case Overwrite:
          if (exists && config.atomic()) {
            // The job's commit empties the table in the transaction that adds the new rows.
            deleteAtCommit = true;
          } else if (exists && config.truncate()) {
            session.executeUpdate(dialect.deleteAll(config.table(), quote), null);
          } else if (exists) {
            session.executeUpdate(dialect.dropTable(config.table(), quote), null);
            exists = false;
          }
          break;
        default:
          break;
      }
      if (!exists) {
        createTable(session, method, dialect, quote);
      }
      WritePlan plan = new WritePlan(config, capabilities, method, dialect, deleteAtCommit);
      LOG.info(
          "Writing to {} on {} with save mode {}: {}",
          config.table(),
          config.uri(),
          mode.name().toLowerCase(Locale.ROOT),
          plan);
      return plan;
    }
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
      FlightSqlSession session, WriteMethod method, SqlDialect dialect, String quote) {
    if (method == WriteMethod.INGEST) {
      try (ArrowBatchBuilder empty = ArrowBatchBuilder.create(schema, session.allocator());
          DoPutUpload upload =
              session.ingest(empty.root(), config.table(), DoPutUpload.IngestMode.CREATE, null)) {
        upload.finish();
      }
    } else {
      session.executeUpdate(dialect.createTable(config.table(), schema, quote), null);
    }
    LOG.info("Created table {} on {}", config.table(), config.uri());
  }
}
