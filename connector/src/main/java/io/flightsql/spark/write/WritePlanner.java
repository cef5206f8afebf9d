package io.flightsql.spark.write;

import io.flightsql.spark.client.FlightSqlSession;
import io.flightsql.spark.client.metadata.NameLookup;
import io.flightsql.spark.client.metadata.ServerCapabilities;
import io.flightsql.spark.client.metadata.ServerTable;
import io.flightsql.spark.client.metadata.TableRef;
import io.flightsql.spark.client.transport.FlightErrors;
import io.flightsql.spark.config.FlightSqlWriteConfig;
import io.flightsql.spark.config.FlightSqlWriteConfig.Atomic;
import io.flightsql.spark.config.FlightSqlWriteConfig.WriteMethod;
import io.flightsql.spark.dialect.Dialect;
import io.flightsql.spark.dialect.Dialects;
import io.flightsql.spark.dialect.ResolvedDialect;
import io.flightsql.spark.types.UnsupportedSparkTypeException;
import io.flightsql.spark.write.WritePlan.Commit;
import io.flightsql.spark.write.WritePlan.TableChange;
import java.util.Locale;
import java.util.Optional;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.spark.sql.SaveMode;
import org.apache.spark.sql.types.StructType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Decides a write on the driver, before any task runs: asks the server what it can do (GetSqlInfo)
 * and whether the table exists (GetTables), refuses or skips as the save mode says, and chooses
 * what becomes of the table and who makes the rows visible ({@link WritePlan}). With option {@code
 * atomic} {@code auto} or {@code true} nothing on the server changes until the job's commit; with
 * {@code false} (or where no staging table can be made) the table is emptied, dropped or created
 * when the job starts ({@link JobStart}), as the mode says: planning a write changes nothing. An
 * existing table is written in its own spelling (found ignoring case unless {@code
 * spark.sql.caseSensitive}), and the DataFrame's columns are matched to its columns by name ({@link
 * ColumnMatch}). Driver only.
 */
final class WritePlanner {
  private static final Logger LOG = LoggerFactory.getLogger(WritePlanner.class);

  private final FlightSqlWriteConfig config;
  private final StructType schema;
  private final boolean caseSensitive;
  private ColumnMatch columns;
  private String jobId;

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
   * Names the staging tables of the plans made from now on after {@code jobId} (letters, digits and
   * underscores) rather than after a random id: a streaming write's epochs share one, so that a
   * restarted query finds what a killed one left.
   */
  WritePlanner withJobId(String jobId) {
    this.jobId = jobId;
    return this;
  }

  /**
   * How the DataFrame's columns meet the table's, once {@link #plan} found the table existing and
   * kept; empty when the write creates the table.
   */
  Optional<ColumnMatch> columns() {
    return Optional.ofNullable(columns);
  }

  /**
   * Plans a DataFrame's write with save mode {@code mode}.
   *
   * @return the plan, or empty when nothing is to be written (mode {@code ignore} and the table
   *     exists)
   * @throws IllegalStateException for mode {@code errorifexists} and an existing table
   */
  Optional<WritePlan> plan(SaveMode mode) {
    try (FlightSqlSession session = FlightSqlSession.open(config.connection(), "write-plan")) {
      ServerCapabilities capabilities = session.capabilities();
      WriteMethod method = method(capabilities);
      ResolvedDialect resolved = Dialects.resolve(config.dialect(), capabilities);
      Dialect dialect = resolved.dialect();
      requireTransactionsForAtomic(capabilities);
      boolean keepsDefinition =
          mode == SaveMode.Append || (mode == SaveMode.Overwrite && config.truncate());
      Optional<ServerTable> found =
          session.findTable(
              config.table(),
              NameLookup.of(caseSensitive, resolved.currentSchemaQuery()),
              keepsDefinition,
              "SELECT * FROM " + dialect.table(config.table()) + " WHERE 1 = 0");
      if (found.isPresent() && mode == SaveMode.ErrorIfExists) {
        throw new IllegalStateException(
            FlightErrors.message(
                "Table "
                    + config.table()
                    + " already exists on "
                    + config.uri()
                    + ", and save mode 'errorifexists' (the default) does not write to an existing"
                    + " table. Use mode 'append' to add rows, 'overwrite' to replace them, or"
                    + " 'ignore' to leave the table as it is."));
      }
      if (found.isPresent() && mode == SaveMode.Ignore) {
        LOG.info("Table {} exists; save mode 'ignore' writes nothing", found.get().ref());
        return Optional.empty();
      }
      TableChange change;
      if (!found.isPresent()) {
        change = TableChange.CREATE;
      } else if (mode == SaveMode.Overwrite) {
        change = config.truncate() ? TableChange.DELETE_ROWS : TableChange.REPLACE;
      } else {
        change = TableChange.NONE;
      }
      StructType rows = schema;
      if (change == TableChange.NONE || change == TableChange.DELETE_ROWS) {
        columns = match(session, dialect, found.get());
        rows = columns.written(schema);
      }
      // A replaced table keeps its name as the server spells it: dbtable=orders replaces Derby's
      // ORDERS, which unquoted SQL then still finds.
      TableRef target = found.map(ServerTable::ref).orElse(config.table());
      WritePlan plan = plan(session, capabilities, method, dialect, target, rows, change);
      LOG.info(
          "Writing to {} on {} with save mode {}: {}",
          target,
          config.uri(),
          mode.name().toLowerCase(Locale.ROOT),
          plan);
      return Optional.of(plan);
    }
  }

  /**
   * Plans the write of a table a catalog found ({@code INSERT INTO}, {@code INSERT OVERWRITE}): its
   * rows are kept, or with {@code overwrite} deleted, its definition kept. Spark has already
   * matched {@link #schema} to the table's columns.
   *
   * @param known what the server can do, when the caller already asked; null to ask
   */
  WritePlan planExisting(TableRef target, boolean overwrite, ServerCapabilities known) {
    try (FlightSqlSession session = FlightSqlSession.open(config.connection(), "write-plan")) {
      ServerCapabilities capabilities = known != null ? known : session.capabilities();
      WriteMethod method = method(capabilities);
      Dialect dialect = Dialects.resolve(config.dialect(), capabilities).dialect();
      requireTransactionsForAtomic(capabilities);
      TableChange change = overwrite ? TableChange.DELETE_ROWS : TableChange.NONE;
      WritePlan plan = plan(session, capabilities, method, dialect, target, schema, change);
      LOG.info(
          "Writing to {} on {} ({}): {}",
          target,
          config.uri(),
          overwrite ? "overwrite" : "append",
          plan);
      return plan;
    }
  }

  /**
   * Chooses who makes the rows visible. Nothing changes on the server here: where the tasks make
   * the rows visible, the table change waits for the job's start ({@link JobStart}).
   */
  private WritePlan plan(
      FlightSqlSession session,
      ServerCapabilities capabilities,
      WriteMethod method,
      Dialect dialect,
      TableRef target,
      StructType rows,
      TableChange change) {
    UnsupportedSparkTypeException noStagingDdl = null;
    try {
      dialect.createTable(target.withName(target.name() + "_flightsql_staging"), rows);
    } catch (UnsupportedSparkTypeException e) {
      noStagingDdl = e;
    }
    boolean stagingPossible = noStagingDdl == null || method == WriteMethod.INGEST;
    Commit commit;
    if (config.atomic() == Atomic.FALSE) {
      commit = Commit.TASKS;
    } else if (!stagingPossible) {
      if (config.atomic() == Atomic.TRUE) {
        throw new IllegalArgumentException(
            "Option 'atomic' is 'true', which needs a staging table for each task's rows, and"
                + " none can be created: "
                + firstSentence(noStagingDdl.getMessage())
                + ". Cast the column, choose another 'dialect', or set option 'atomic' to 'auto'"
                + " or 'false' to write into the table directly.");
      }
      ServerWarnings.once(
          config.uri(),
          "no-staging",
          "Writing to {} on {} without staging tables ({}): tasks write into the table directly,"
              + " so a failed job keeps the rows of the tasks that finished. Set option 'atomic'"
              + " to 'false' to choose this yourself; see docs/writing.md.",
          target,
          config.uri(),
          firstSentence(noStagingDdl.getMessage()));
      commit = Commit.TASKS;
    } else {
      commit = capabilities.transactions() ? Commit.TRANSACTION : Commit.STATEMENTS;
    }
    if (commit != Commit.TASKS && (change == TableChange.CREATE || change == TableChange.REPLACE)) {
      // The commit creates the table: a type the dialect cannot create fails here, before any
      // task runs, not after every task wrote its rows.
      TableStatements.requireCreatable(method, capabilities, commit, dialect, target, rows);
    }
    WritePlan plan =
        new WritePlan(
            jobId,
            config,
            target,
            capabilities,
            method,
            dialect,
            rows,
            change,
            commit,
            noStagingDdl == null);
    if (commit == Commit.STATEMENTS) {
      ServerWarnings.once(
          config.uri(),
          "no-transactions-" + change,
          "{} reports no transactions: the commit of a write to {} {}. A failed task or job"
              + " leaves the table as it was; a failure during that commit {}. Option 'atomic'"
              + " set to 'true' refuses such servers; see docs/writing.md.",
          config.uri(),
          target,
          JobCommitter.statementsDescription(plan),
          JobCommitter.statementsRisk(plan));
    }
    return plan;
  }

  /**
   * What a dialect's refusal says of the column, without its advice on creating the table, which
   * does not fit a staging table.
   */
  private static String firstSentence(String message) {
    int end = message.indexOf(". ");
    return end < 0 ? message : message.substring(0, end);
  }

  private void requireTransactionsForAtomic(ServerCapabilities capabilities) {
    if (config.atomic() == Atomic.TRUE && !capabilities.transactions()) {
      throw new IllegalArgumentException(
          "Option 'atomic' is 'true', which needs a server with transactions, and "
              + config.uri()
              + " reports none (GetSqlInfo FLIGHT_SQL_SERVER_TRANSACTION). Use 'auto' (the"
              + " default), whose commit renames or copies the staged rows with statements that"
              + " are not one transaction, or 'false'; see docs/writing.md.");
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
}
