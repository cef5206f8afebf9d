package io.flightsql.spark.stream;

import io.flightsql.spark.config.StreamOptions;
import io.flightsql.spark.config.StreamReadSettings;
import java.time.ZoneId;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.connector.read.PartitionReaderFactory;
import org.apache.spark.sql.connector.read.streaming.CompositeReadLimit;
import org.apache.spark.sql.connector.read.streaming.MicroBatchStream;
import org.apache.spark.sql.connector.read.streaming.Offset;
import org.apache.spark.sql.connector.read.streaming.ReadLimit;
import org.apache.spark.sql.connector.read.streaming.ReadMaxRows;
import org.apache.spark.sql.connector.read.streaming.SupportsAdmissionControl;
import org.apache.spark.sql.connector.read.streaming.SupportsTriggerAvailableNow;
import org.apache.spark.sql.internal.SQLConf;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A source's new rows as a Structured Streaming micro-batch stream ({@code
 * spark.readStream.format("flightsql")}). Its offsets are high-water marks of option {@code
 * offsetColumn} ({@link FlightSqlOffset}, kept by Spark in the query's checkpoint): a micro-batch
 * from mark {@code s} to mark {@code e} is the batch read of the source with {@code offsetColumn >
 * s AND offsetColumn <= e} in its WHERE clause, in the read's dialect, split as a batch read is
 * (one partition per endpoint, or the client-side partitions of {@code partitionColumn} and {@code
 * predicates}). Because Spark plans a batch's marks before it reads it, and the marks are in the
 * checkpoint, a batch run again after a failure reads the same rows.
 *
 * <p>Admission control ({@code maxRowsPerTrigger}) ends a batch before the first value whose rows
 * would pass the limit, found with one query ({@link OffsetQueries#following}), so a group of rows
 * sharing a value is never split between batches; {@code Trigger.AvailableNow} reads up to the mark
 * taken when the query starts; {@code offsetLag} keeps the newest values for a later batch. The
 * queries that find marks run on the driver, bounded as a batch read's planning and reading are.
 * Driver only; not Serializable (its partitions and reader factory are).
 */
public final class FlightSqlMicroBatchStream
    implements MicroBatchStream, SupportsAdmissionControl, SupportsTriggerAvailableNow {
  private static final Logger LOG = LoggerFactory.getLogger(FlightSqlMicroBatchStream.class);

  private final SourceReads reads;
  private final String checkpointLocation;
  private final StreamReadSettings settings;
  private final OffsetColumn column;
  private final OffsetQueries queries;

  /** Option {@code offsetLag} as an amount of the column's values, or null for none. */
  private final Object lag;

  private FlightSqlOffset initial;

  /** With {@code Trigger.AvailableNow}: where the query stops, taken when it started. */
  private FlightSqlOffset availableNow;

  /**
   * The last micro-batch planned, by its two offsets' JSON, and its partitions: Spark may plan a
   * batch's scan more than once (copies of the physical plan), and each planning runs the batch's
   * query on the server.
   */
  private String plannedRange;

  private InputPartition[] plannedPartitions;

  private FlightSqlMicroBatchStream(
      SourceReads reads, String checkpointLocation, OffsetColumn column) {
    this.reads = reads;
    this.checkpointLocation = checkpointLocation;
    this.settings = reads.config().stream();
    this.column = column;
    this.queries = new OffsetQueries(reads, column);
    this.lag = settings.offsetLag().map(column::parseLag).orElse(null);
  }

  /**
   * The stream of the source {@code reads} reads, its offsets kept under {@code
   * checkpointLocation}.
   *
   * @throws IllegalArgumentException naming the option at fault: {@code offsetColumn} missing or
   *     not a column of an ordered type, {@code startingOffsets} or {@code offsetLag} not a value
   *     of the column
   */
  public static FlightSqlMicroBatchStream open(SourceReads reads, String checkpointLocation) {
    String name =
        reads.config().stream()
            .offsetColumn()
            .orElseThrow(
                () ->
                    new IllegalArgumentException(
                        "Option '"
                            + StreamOptions.OFFSET_COLUMN.name()
                            + "' is required to read "
                            + reads.config().displayName()
                            + " as a stream: expected "
                            + StreamOptions.OFFSET_COLUMN.form()
                            + ". See docs/streaming.md."));
    FlightSqlMicroBatchStream stream =
        new FlightSqlMicroBatchStream(
            reads, checkpointLocation, OffsetColumn.of(reads.schema(), name));
    String start = stream.settings.startingOffsets();
    if (!start.equalsIgnoreCase(StreamOptions.EARLIEST)
        && !start.equalsIgnoreCase(StreamOptions.LATEST)) {
      stream.column.parseStart(start, sessionZone());
    }
    LOG.info(
        "Streaming read of {} on {} by {} ({})",
        reads.config().displayName(),
        reads.config().uri(),
        stream.column,
        stream.settings);
    return stream;
  }

  private static ZoneId sessionZone() {
    return ZoneId.of(SQLConf.get().sessionLocalTimeZone());
  }

  @Override
  public synchronized Offset initialOffset() {
    if (initial == null) {
      String start = settings.startingOffsets();
      if (start.equalsIgnoreCase(StreamOptions.EARLIEST)) {
        initial = FlightSqlOffset.of(column, null);
      } else if (start.equalsIgnoreCase(StreamOptions.LATEST)) {
        initial =
            InitialOffsets.keptOrFirst(
                checkpointLocation, () -> FlightSqlOffset.of(column, queries.newest(null, null)));
        // A mark kept by an earlier run of another offset column fails here, not mid-way.
        initial.value(column);
      } else {
        initial = FlightSqlOffset.of(column, column.parseStart(start, sessionZone()));
      }
      LOG.info("Stream of {} starts after {}", reads.config().displayName(), describe(initial));
    }
    return initial;
  }

  @Override
  public Offset deserializeOffset(String json) {
    FlightSqlOffset offset = FlightSqlOffset.parse(json);
    offset.value(column);
    return offset;
  }

  @Override
  public ReadLimit getDefaultReadLimit() {
    return settings.maxRowsPerTrigger().map(ReadLimit::maxRows).orElse(ReadLimit.allAvailable());
  }

  @Override
  public void prepareForTriggerAvailableNow() {
    Object mark = queries.newest(null, null);
    if (mark != null && lag != null) {
      mark = column.minus(mark, lag);
    }
    availableNow = FlightSqlOffset.of(column, mark);
    LOG.info(
        "Trigger.AvailableNow: the stream of {} reads up to {}",
        reads.config().displayName(),
        describe(availableNow));
  }

  /** Spark asks sources with admission control for {@link #latestOffset(Offset, ReadLimit)}. */
  @Override
  public Offset latestOffset() {
    throw new UnsupportedOperationException(
        "latestOffset(Offset, ReadLimit) is to be called instead of this method");
  }

  /**
   * The end of the next micro-batch: the newest mark after {@code startOffset} that {@code limit},
   * {@code Trigger.AvailableNow}'s mark and {@code offsetLag} allow; {@code startOffset} itself
   * when there are no new rows.
   */
  @Override
  public Offset latestOffset(Offset startOffset, ReadLimit limit) {
    FlightSqlOffset start = (FlightSqlOffset) startOffset;
    Object from = start.value(column);
    Object upTo = null;
    if (availableNow != null) {
      upTo = availableNow.value(column);
      if (upTo == null || (from != null && column.compare(upTo, from) <= 0)) {
        return start;
      }
    }
    if (lag != null && availableNow == null) {
      // Trigger.AvailableNow's mark was taken less the lag already.
      Object newest = queries.newest(from, upTo);
      Object lagged = newest == null ? null : column.minus(newest, lag);
      if (lagged == null || (from != null && column.compare(lagged, from) <= 0)) {
        return start;
      }
      upTo = lagged;
    }
    Object end = end(from, upTo, maxRows(limit));
    if (end == null || (from != null && column.compare(end, from) <= 0)) {
      return start;
    }
    return FlightSqlOffset.of(column, end);
  }

  /** The last value of the next batch, or null when there is no row to read. */
  private Object end(Object from, Object upTo, int maxRows) {
    if (maxRows <= 0) {
      return queries.newest(from, upTo);
    }
    Object following = queries.following(from, upTo, maxRows);
    if (following == null) {
      // No more rows than the limit: all of them.
      return queries.newest(from, upTo);
    }
    Object end = column.predecessor(following);
    boolean emptyBelow =
        end == null
            || (from != null
                ? column.compare(end, from) <= 0
                : column.compare(queries.oldest(null, upTo), following) == 0);
    if (emptyBelow) {
      // The first value's rows alone are more than the limit: they are read whole, never split.
      LOG.warn(
          "{} rows or more of {} share the value {} of {}, more than option '{}' ({}): the next"
              + " micro-batch reads them all",
          maxRows + 1,
          reads.config().displayName(),
          column.text(following),
          column.name(),
          StreamOptions.MAX_ROWS_PER_TRIGGER.name(),
          maxRows);
      return following;
    }
    return end;
  }

  /** The most rows {@code limit} admits, or 0 for no limit. */
  private static int maxRows(ReadLimit limit) {
    if (limit instanceof ReadMaxRows) {
      return (int) Math.min(Integer.MAX_VALUE - 1, ((ReadMaxRows) limit).maxRows());
    }
    if (limit instanceof CompositeReadLimit) {
      int most = 0;
      for (ReadLimit part : ((CompositeReadLimit) limit).getReadLimits()) {
        int rows = maxRows(part);
        most = most == 0 ? rows : rows == 0 ? most : Math.min(most, rows);
      }
      return most;
    }
    return 0;
  }

  @Override
  public synchronized InputPartition[] planInputPartitions(Offset start, Offset end) {
    String range = start.json() + " " + end.json();
    if (range.equals(plannedRange)) {
      return plannedPartitions.clone();
    }
    Object from = ((FlightSqlOffset) start).value(column);
    Object to = ((FlightSqlOffset) end).value(column);
    if (to == null || (from != null && column.compare(to, from) <= 0)) {
      return new InputPartition[0];
    }
    InputPartition[] partitions = reads.partitions(queries.rows(from, to));
    plannedRange = range;
    plannedPartitions = partitions.clone();
    LOG.debug(
        "Micro-batch of {}: {} in ({}, {}], {} partition(s)",
        reads.config().displayName(),
        column.name(),
        from == null ? "-inf" : column.text(from),
        column.text(to),
        partitions.length);
    return partitions;
  }

  @Override
  public PartitionReaderFactory createReaderFactory() {
    return reads.readerFactory();
  }

  @Override
  public void commit(Offset end) {
    // Nothing to release: the server keeps the rows, the checkpoint the marks.
  }

  @Override
  public void stop() {
    // Every query of the stream opens and closes its own session.
  }

  private static String describe(FlightSqlOffset offset) {
    return offset.text() == null ? "no row (every row is new)" : offset.text();
  }

  @Override
  public String toString() {
    return "FlightSqlMicroBatchStream[" + reads.config().displayName() + " by " + column + "]";
  }
}
