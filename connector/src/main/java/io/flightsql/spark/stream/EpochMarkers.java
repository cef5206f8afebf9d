package io.flightsql.spark.stream;

import io.flightsql.spark.client.EndpointCursor;
import io.flightsql.spark.client.FlightSqlSession;
import io.flightsql.spark.client.PlanningCancellation;
import io.flightsql.spark.client.metadata.NameLookup;
import io.flightsql.spark.client.metadata.ServerTable;
import io.flightsql.spark.client.metadata.TableRef;
import io.flightsql.spark.client.transport.SessionState;
import io.flightsql.spark.config.FlightSqlWriteConfig;
import io.flightsql.spark.dialect.Dialect;
import io.flightsql.spark.dialect.Dialects;
import io.flightsql.spark.write.CommitGuard;
import java.util.Optional;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The marks that make a streaming write exactly once, as Delta's {@code txnAppId}/{@code
 * txnVersion} do: a small table on the server (option {@code markerTable}) with a row {@code
 * (query_id, epoch_id, table_name)} for each epoch a streaming query committed, its last {@link
 * #KEPT} epochs kept. An epoch's commit adds its rows and its mark in the same transaction; an
 * epoch that Spark runs again (after a failure, or in a query restarted from its checkpoint after
 * its driver died) finds a mark at or past it and writes nothing. The marks live on the server, not
 * in the driver's memory, so they survive the driver. Where the server has no transactions the mark
 * is added just after the rows, which leaves a window in which a crash writes an epoch twice: at
 * least once.
 *
 * <p>Statements are written by the write's dialect, the query id and table name as its string
 * literals. Driver only.
 */
final class EpochMarkers {
  private static final Logger LOG = LoggerFactory.getLogger(EpochMarkers.class);

  private static final String QUERY_ID = "query_id";
  private static final String EPOCH_ID = "epoch_id";
  private static final String TABLE_NAME = "table_name";

  /** How many epochs of marks a query keeps: Spark runs again at most its last epoch. */
  static final long KEPT = 100;

  private static final StructType COLUMNS =
      new StructType(
          new StructField[] {
            DataTypes.createStructField(QUERY_ID, DataTypes.StringType, false),
            DataTypes.createStructField(EPOCH_ID, DataTypes.LongType, false),
            DataTypes.createStructField(TABLE_NAME, DataTypes.StringType, true)
          });

  private final FlightSqlWriteConfig config;
  private final Dialect dialect;
  private final TableRef table;
  private final String queryId;
  private final String target;

  private EpochMarkers(
      FlightSqlWriteConfig config, Dialect dialect, TableRef table, String queryId, String target) {
    this.config = config;
    this.dialect = dialect;
    this.table = table;
    this.queryId = queryId;
    this.target = target;
  }

  /**
   * The marks of query {@code queryId} in {@code markerTable}, created now when it does not exist.
   *
   * @param target the table the query writes, as option {@code dbtable} names it, recorded with its
   *     marks for whoever reads them
   */
  static EpochMarkers open(
      FlightSqlWriteConfig config,
      Dialect dialect,
      TableRef markerTable,
      String queryId,
      TableRef target) {
    try (FlightSqlSession session = FlightSqlSession.open(config.connection(), "stream-markers")) {
      Optional<ServerTable> found =
          session.findTable(
              markerTable,
              NameLookup.of(
                  false,
                  Dialects.resolve(config.dialect(), session.capabilities()).currentSchemaQuery()),
              false,
              "SELECT * FROM " + dialect.table(markerTable) + " WHERE 1 = 0");
      TableRef table;
      if (found.isPresent()) {
        table = found.get().ref();
      } else {
        session.executeUpdate(dialect.createTable(markerTable, COLUMNS), null);
        LOG.info("Created {} on {} for the marks of streaming writes", markerTable, config.uri());
        table = markerTable;
      }
      return new EpochMarkers(config, dialect, table, queryId, plainName(target));
    }
  }

  /** {@code catalog.schema.name}, as given, without quotes: for whoever reads the marks. */
  private static String plainName(TableRef table) {
    StringBuilder name = new StringBuilder();
    for (String part : new String[] {table.catalog(), table.schema(), table.name()}) {
      if (part != null) {
        name.append(name.length() > 0 ? "." : "").append(part);
      }
    }
    return name.toString();
  }

  /** The table of the marks, in the server's spelling. */
  TableRef table() {
    return table;
  }

  /** The guard of one epoch's commit. */
  CommitGuard epoch(long epochId) {
    return new EpochGuard(epochId);
  }

  /**
   * The last epoch the query committed, or null when it committed none: the largest of its marks,
   * of which there are at most about {@link #KEPT}.
   */
  Long lastCommitted() {
    String query =
        "SELECT "
            + dialect.quoted(EPOCH_ID)
            + " FROM "
            + dialect.table(table)
            + " WHERE "
            + dialect.quoted(QUERY_ID)
            + " = "
            + text(queryId);
    Long last = null;
    try (EndpointCursor cursor =
        EndpointCursor.overQuery(
            config.connection(), SessionState.empty(), 0, query, null, PlanningCancellation.NONE)) {
      while (cursor.next()) {
        VectorSchemaRoot root = cursor.root();
        FieldVector epochs = root.getFieldVectors().get(0);
        for (int i = 0; i < root.getRowCount(); i++) {
          Object value = epochs.getObject(i);
          if (value != null) {
            long epoch = ((Number) value).longValue();
            last = last == null ? epoch : Math.max(last, epoch);
          }
        }
      }
    }
    return last;
  }

  private String text(String value) {
    return literal(value, DataTypes.StringType);
  }

  private String literal(Object value, DataType type) {
    return dialect
        .literal(value, type)
        .orElseThrow(
            () ->
                new IllegalStateException(
                    "Dialect '" + dialect.name() + "' cannot write the value " + value));
  }

  /**
   * Deletes the query's marks more than {@link #KEPT} epochs old, outside any transaction: a
   * transaction left open by a killed driver may hold the same rows, and the commit of an epoch
   * must not wait for it or conflict with it. A failure only leaves the rows for a later epoch.
   */
  private void prune(FlightSqlSession session, long epochId) {
    try {
      session.executeUpdateBounded(
          "DELETE FROM "
              + dialect.table(table)
              + " WHERE "
              + dialect.quoted(QUERY_ID)
              + " = "
              + text(queryId)
              + " AND "
              + dialect.quoted(EPOCH_ID)
              + " < "
              + literal(epochId - KEPT, DataTypes.LongType));
    } catch (RuntimeException e) {
      LOG.info(
          "Old marks of streaming query {} in {} stay for now: {}", queryId, table, e.getMessage());
    }
  }

  /** The guard of one epoch: asks for the mark before the commit, adds it with the rows. */
  private final class EpochGuard implements CommitGuard {
    private final long epochId;

    EpochGuard(long epochId) {
      this.epochId = epochId;
    }

    @Override
    public boolean committedBefore(FlightSqlSession session) {
      Long last = lastCommitted();
      if (last != null && last >= epochId) {
        LOG.info(
            "Epoch {} of streaming query {} was committed to {} before (the marks in {} reach"
                + " epoch {}): it writes nothing",
            epochId,
            queryId,
            target,
            table,
            last);
        return true;
      }
      if (epochId > 0 && epochId % KEPT == 0) {
        prune(session, epochId);
      }
      return false;
    }

    /**
     * Adds the epoch's mark, a row of its own: rows are only ever added (and old ones deleted
     * apart), so that a commit never updates a row that a transaction left open by a killed driver
     * may hold.
     */
    @Override
    public void record(FlightSqlSession session, byte[] transaction) {
      session.executeUpdate(
          "INSERT INTO "
              + dialect.table(table)
              + " ("
              + dialect.quoted(QUERY_ID)
              + ", "
              + dialect.quoted(EPOCH_ID)
              + ", "
              + dialect.quoted(TABLE_NAME)
              + ") VALUES ("
              + text(queryId)
              + ", "
              + literal(epochId, DataTypes.LongType)
              + ", "
              + text(target)
              + ")",
          transaction);
    }
  }
}
