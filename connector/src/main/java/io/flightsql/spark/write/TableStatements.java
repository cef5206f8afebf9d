package io.flightsql.spark.write;

import io.flightsql.spark.client.FlightSqlSession;
import io.flightsql.spark.client.metadata.ServerCapabilities;
import io.flightsql.spark.client.metadata.TableRef;
import io.flightsql.spark.client.transport.FlightSqlConnectorException;
import io.flightsql.spark.client.upload.DoPutUpload;
import io.flightsql.spark.client.upload.IngestMode;
import io.flightsql.spark.config.FlightSqlWriteConfig.WriteMethod;
import io.flightsql.spark.dialect.Dialect;
import io.flightsql.spark.vector.ArrowBatchBuilder;
import org.apache.spark.sql.types.StructType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How a write creates a table for its rows, on the driver (the table written) and on executors (a
 * staging table): by ingesting no rows with the rows' Arrow schema where the write ingests, so that
 * the server chooses the column types, else with the dialect's {@code CREATE TABLE}.
 */
final class TableStatements {
  private static final Logger LOG = LoggerFactory.getLogger(TableStatements.class);

  private TableStatements() {}

  /**
   * Creates {@code table} for rows of {@code rows}' schema, inside {@code transaction} when not
   * null. Ingestion joins a transaction only where the server says it can; where the server refuses
   * to create a table by ingestion (UNIMPLEMENTED, as Arrow's Derby example does), the dialect's
   * {@code CREATE TABLE} is used instead.
   */
  static void create(
      FlightSqlSession session,
      WriteMethod method,
      Dialect dialect,
      TableRef table,
      StructType rows,
      byte[] transaction) {
    if (createsByIngest(method, session.capabilities(), transaction != null)) {
      try {
        try (ArrowBatchBuilder empty = ArrowBatchBuilder.create(rows, session.allocator());
            DoPutUpload upload =
                session.ingest(empty.root(), table, IngestMode.CREATE, transaction)) {
          upload.finish();
        }
        LOG.info("Created table {} on {} by ingestion", table, session.server());
        return;
      } catch (FlightSqlConnectorException e) {
        if (!"UNIMPLEMENTED".equals(e.statusCode())) {
          throw e;
        }
        LOG.info(
            "{} does not create tables by ingestion ({}); creating {} with CREATE TABLE",
            session.server(),
            e.serverMessage(),
            table);
      }
    }
    session.executeUpdate(dialect.createTable(table, rows), transaction);
    LOG.info("Created table {} on {}", table, session.server());
  }

  /**
   * Fails, naming the column, when the job's commit could not create {@code table}: where it would
   * use the dialect's {@code CREATE TABLE} and the dialect has no type for a column.
   */
  static void requireCreatable(
      WriteMethod method,
      ServerCapabilities capabilities,
      WritePlan.Commit commit,
      Dialect dialect,
      TableRef table,
      StructType rows) {
    if (!createsByIngest(method, capabilities, commit == WritePlan.Commit.TRANSACTION)) {
      dialect.createTable(table, rows);
    }
  }

  private static boolean createsByIngest(
      WriteMethod method, ServerCapabilities capabilities, boolean inTransaction) {
    return method == WriteMethod.INGEST && (!inTransaction || capabilities.ingestTransactions());
  }
}
