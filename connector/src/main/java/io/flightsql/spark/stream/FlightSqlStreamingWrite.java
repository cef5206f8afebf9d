package io.flightsql.spark.stream;

import com.google.common.cache.Cache;
import com.google.common.cache.CacheBuilder;
import com.google.common.util.concurrent.UncheckedExecutionException;
import io.flightsql.spark.config.FlightSqlWriteConfig;
import io.flightsql.spark.config.StreamOptions;
import io.flightsql.spark.config.StreamOptions.ExactlyOnce;
import io.flightsql.spark.config.StreamWriteSettings;
import io.flightsql.spark.metrics.BytesSentMetric;
import io.flightsql.spark.metrics.RowsWrittenMetric;
import io.flightsql.spark.metrics.ServerWaitTimeMetric;
import io.flightsql.spark.write.CommitGuard;
import io.flightsql.spark.write.EpochWrite;
import java.util.Locale;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.spark.SparkContext;
import org.apache.spark.sql.connector.metric.CustomMetric;
import org.apache.spark.sql.connector.write.PhysicalWriteInfo;
import org.apache.spark.sql.connector.write.Write;
import org.apache.spark.sql.connector.write.WriterCommitMessage;
import org.apache.spark.sql.connector.write.streaming.StreamingDataWriterFactory;
import org.apache.spark.sql.connector.write.streaming.StreamingWrite;
import org.apache.spark.sql.types.StructType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A streaming query's writes to one table, epoch by epoch (one micro-batch each). Each epoch is
 * written as the batch write appends a DataFrame ({@link EpochWrite}): its tasks stage their rows,
 * and its commit moves the rows of the tasks Spark committed into the table. Spark may commit an
 * epoch again, after a failure or when a query restarted from its checkpoint runs its last epoch
 * again; where the server has transactions the commit is then idempotent: the epoch's rows and its
 * mark ({@link EpochMarkers}) commit in one transaction, and an epoch whose mark is there writes
 * nothing. Exactly once, end to end, with a source whose offsets replay (this connector's). Where
 * the server has none it is at least once, and the query's log says so when it starts; option
 * {@code exactlyOnce=true} refuses instead.
 *
 * <p>Spark builds a new write for each micro-batch. What a run of the query sets up once (dropping
 * the staging tables a killed run of the query left, which are named after its id; finding or
 * creating the marker table) is kept per run. Driver only; not Serializable (its writer factories
 * are).
 */
final class FlightSqlStreamingWrite implements Write, StreamingWrite {
  private static final Logger LOG = LoggerFactory.getLogger(FlightSqlStreamingWrite.class);

  /** Spark's local property naming the job group, which a streaming query sets to its run's id. */
  private static final String JOB_GROUP = "spark.jobGroup.id";

  /**
   * What each run of a query set up, by query id and run: Spark builds a new write for every
   * micro-batch, and the run's set-up (dropping what a killed run left, the marker table) is done
   * once. Kept an hour after its last use; a run that outlives that sets up again, harmlessly.
   */
  private static final Cache<String, SinkRun> RUNS =
      CacheBuilder.newBuilder().maximumSize(1000).expireAfterAccess(1, TimeUnit.HOURS).build();

  private final FlightSqlWriteConfig config;
  private final StreamWriteSettings settings;
  private final String queryId;
  private final StructType schema;
  private final boolean caseSensitive;
  private final String run;
  private final String queryJobs;
  private final String jobId;

  /** The epoch being written: Spark makes its factory, runs its tasks, then commits it. */
  private EpochWrite current;

  private SinkRun setUp;

  FlightSqlStreamingWrite(
      FlightSqlWriteConfig config,
      StreamWriteSettings settings,
      String queryId,
      StructType schema,
      boolean caseSensitive) {
    this.config = config;
    this.settings = settings;
    this.queryId = queryId;
    this.schema = schema;
    this.caseSensitive = caseSensitive;
    String group = SparkContext.getOrCreate().getLocalProperty(JOB_GROUP);
    this.run = group != null ? group : UUID.randomUUID().toString();
    this.queryJobs = "s" + hex(queryId, 8);
    // The staging tables of every epoch of this run share one job id, so that each epoch's commit
    // finds what its failed tasks left, and the next run finds what a killed one left.
    this.jobId = queryJobs + hex(run, 4);
  }

  private static String hex(String uuid, int digits) {
    String hex = uuid.replace("-", "").toLowerCase(Locale.ROOT);
    return hex.length() >= digits && hex.matches("[0-9a-f]+")
        ? hex.substring(0, digits)
        : Integer.toHexString(uuid.hashCode() & 0xffff);
  }

  /** Sets up this run, once: drops what an earlier run of the query left, finds the marks. */
  private SinkRun setUp(EpochWrite first) {
    first.dropStagingTablesOfJobs(queryJobs);
    String atLeastOnce = atLeastOnceBecause(first);
    ExactlyOnce wanted = settings.exactlyOnce();
    if (atLeastOnce != null && wanted == ExactlyOnce.TRUE) {
      throw new IllegalArgumentException(
          "Option '"
              + StreamOptions.EXACTLY_ONCE.name()
              + "' is 'true', and the streaming write to "
              + first.target()
              + " cannot be exactly once: "
              + atLeastOnce
              + ". Set it to 'auto' to write at least once. See docs/streaming.md.");
    }
    EpochMarkers markers = null;
    String guarantee = "at least once";
    if (wanted != ExactlyOnce.FALSE && first.staged()) {
      markers =
          EpochMarkers.open(
              config, first.dialect(), settings.markerTable(), queryId, config.table());
      if (atLeastOnce == null) {
        guarantee = "exactly once";
      }
    }
    if (atLeastOnce != null && wanted == ExactlyOnce.AUTO) {
      LOG.warn(
          "Streaming query {} writes to {} on {} at least once, not exactly once: {}. An epoch"
              + " that Spark runs again after a failure may be written twice. Option '{}' set to"
              + " 'true' refuses such a sink; see docs/streaming.md.",
          queryId,
          first.target(),
          config.uri(),
          atLeastOnce,
          StreamOptions.EXACTLY_ONCE.name());
    }
    LOG.info(
        "Streaming query {} writes to {} on {} {}{}",
        queryId,
        first.target(),
        config.uri(),
        guarantee,
        markers == null ? "" : ", its marks in " + markers.table());
    return new SinkRun(markers);
  }

  /** Why the write cannot be exactly once, or null when it can. */
  private static String atLeastOnceBecause(EpochWrite write) {
    if (!write.staged()) {
      return "its tasks write into the table directly (option 'atomic' is 'false'), before Spark"
          + " commits the epoch";
    }
    if (!write.inOneTransaction()) {
      return write.server()
          + " reports no transactions (GetSqlInfo FLIGHT_SQL_SERVER_TRANSACTION), so an epoch's"
          + " rows and its mark cannot commit together";
    }
    return null;
  }

  @Override
  public String description() {
    return "FlightSqlStreamingWrite[" + config.table() + "]";
  }

  @Override
  public StreamingWrite toStreaming() {
    return this;
  }

  @Override
  public CustomMetric[] supportedCustomMetrics() {
    return new CustomMetric[] {
      new RowsWrittenMetric(), new BytesSentMetric(), new ServerWaitTimeMetric()
    };
  }

  /**
   * Plans the epoch (the first one may have created the table since the last), and the run at its
   * first epoch.
   */
  @Override
  public synchronized StreamingDataWriterFactory createStreamingWriterFactory(
      PhysicalWriteInfo info) {
    EpochWrite epoch = EpochWrite.plan(config, schema, caseSensitive, jobId);
    try {
      setUp = RUNS.get(queryId + "/" + run, () -> setUp(epoch));
    } catch (ExecutionException | UncheckedExecutionException e) {
      Throwable cause = e.getCause();
      throw cause instanceof RuntimeException
          ? (RuntimeException) cause
          : new IllegalStateException(cause);
    }
    current = epoch;
    return new FlightSqlStreamingWriterFactory(epoch.writerFactory());
  }

  @Override
  public synchronized void commit(long epochId, WriterCommitMessage[] messages) {
    EpochWrite epoch = planned(epochId);
    try {
      epoch.commit(
          messages, setUp.markers == null ? CommitGuard.NONE : setUp.markers.epoch(epochId));
    } finally {
      current = null;
    }
    LOG.debug("Epoch {} of streaming query {} committed to {}", epochId, queryId, epoch.target());
  }

  @Override
  public synchronized void abort(long epochId, WriterCommitMessage[] messages) {
    EpochWrite epoch = planned(epochId);
    try {
      epoch.abort(messages);
    } finally {
      current = null;
    }
  }

  private EpochWrite planned(long epochId) {
    if (current == null) {
      throw new IllegalStateException(
          "Epoch " + epochId + " of streaming query " + queryId + " ends without having started");
    }
    return current;
  }

  @Override
  public String toString() {
    return description();
  }

  /** What a run of the query set up: the marks of its epochs, or null for none. */
  private static final class SinkRun {
    private final EpochMarkers markers;

    SinkRun(EpochMarkers markers) {
      this.markers = markers;
    }
  }
}
