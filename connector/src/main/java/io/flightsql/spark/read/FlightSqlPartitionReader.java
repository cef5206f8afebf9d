package io.flightsql.spark.read;

import io.flightsql.spark.client.FlightSqlSession;
import io.flightsql.spark.client.transport.FlightErrors;
import io.flightsql.spark.client.transport.FlightSqlConnectorException;
import io.flightsql.spark.client.transport.FlightUri;
import io.flightsql.spark.client.transport.InsecureLocationException;
import io.flightsql.spark.client.transport.Retries;
import io.flightsql.spark.client.transport.StreamSchemas;
import io.flightsql.spark.client.transport.StreamWatch;
import io.flightsql.spark.client.transport.Warmup;
import io.flightsql.spark.config.FlightSqlReadConfig;
import io.flightsql.spark.metrics.BatchesReceivedMetric;
import io.flightsql.spark.metrics.BytesReceivedMetric;
import io.flightsql.spark.metrics.RowsReceivedMetric;
import io.flightsql.spark.metrics.ServerWaitTimeMetric;
import io.flightsql.spark.metrics.SparkTimeMetric;
import io.flightsql.spark.types.ArrowToSpark;
import io.flightsql.spark.vector.ArrowBackedColumnVector;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import org.apache.arrow.flight.FlightEndpoint;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.flight.Ticket;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.dictionary.DictionaryProvider;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.spark.sql.connector.metric.CustomTaskMetric;
import org.apache.spark.sql.connector.read.PartitionReader;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Streams a partition into Spark as ColumnarBatches. Runs on an executor. A server endpoint is one
 * stream (DoGet of its ticket); a client-side partition runs its own query (GetFlightInfo) and
 * reads each of its endpoints in turn, one stream open at a time, each closed once read. The column
 * vectors are built when a stream's vectors first appear (each stream has its own vectors and
 * dictionaries) and each new Arrow record batch only re-points them and sets the row count. Owns
 * the session (and so the allocator) of the partition, released in {@link #close()}. Reports the
 * rows, Arrow bytes and record batches received, the time spent waiting for the server and the time
 * Spark spent consuming batches, as Spark custom metrics. An endpoint that expires is renewed or
 * its query run again before it is read ({@link EndpointExpiry}).
 */
final class FlightSqlPartitionReader implements PartitionReader<ColumnarBatch> {
  private static final Logger LOG = LoggerFactory.getLogger(FlightSqlPartitionReader.class);

  private final FlightSqlInputPartition partition;
  private final FlightSqlReadConfig config;
  private final StructType schema;
  private final FlightSqlSession session;

  /** The endpoints of a client-side partition's query not opened yet. */
  private final Deque<FlightEndpoint> pending = new ArrayDeque<>();

  /** The open stream, or null once every stream is read. */
  private FlightStream stream;

  /** Where {@link #stream} comes from, for error messages. */
  private FlightUri streamTarget;

  /** The servers and ticket of {@link #stream}, to open it again once after UNAVAILABLE. */
  private List<FlightUri> streamTargets;

  private Ticket streamTicket;

  /** Record batches of {@link #stream} handed to Spark; a stream is retried only before any. */
  private int streamBatches;

  /** Whether this partition has used its one retry of a DoGet that failed with UNAVAILABLE. */
  private boolean retried;

  /** Which endpoint of a client-side partition's query {@link #stream} reads, from 1. */
  private int endpointNumber;

  private int queryEndpoints;

  private int streams;
  private VectorSchemaRoot boundRoot;
  private ArrowBackedColumnVector[] columns;
  private ColumnarBatch batch;
  private long rows;
  private long bytes;
  private int batches;

  /** Nanoseconds spent waiting for the server: planning, opening streams, waiting for batches. */
  private long serverWaitNanos;

  /** Nanoseconds Spark spent between receiving a batch and asking for the next. */
  private long sparkNanos;

  /** When the last batch was handed to Spark (System.nanoTime), or 0 when none is out. */
  private long handedOutAt;

  FlightSqlPartitionReader(
      FlightSqlInputPartition partition, StructType schema, FlightSqlReadConfig config) {
    this.partition = partition;
    this.config = config;
    this.schema = schema;
    Warmup.start();
    this.session =
        FlightSqlSession.open(
            config.connection(), "partition-" + partition.index(), partition.session());
    long start = System.nanoTime();
    try {
      if (partition.isQuery()) {
        FlightInfo info = plan();
        pending.addAll(info.getEndpoints());
        queryEndpoints = pending.size();
        LOG.debug("Partition {}: its query has {} endpoint(s)", partition.index(), pending.size());
        openNextEndpoint();
      } else {
        streamTargets = partition.targets();
        streamTicket = new Ticket(partition.ticket());
        this.streamTarget = streamTargets.get(0);
        this.stream = openWithRetry();
        streams = 1;
      }
    } catch (RuntimeException e) {
      closeSession(e);
      throw e;
    } finally {
      serverWaitNanos += System.nanoTime() - start;
    }
  }

  /** Plans the partition's query, bounded by option queryTimeout and cancelled with the task. */
  private FlightInfo plan() {
    return session.plan(
        partition.query(), config.queryTimeout().orElse(null), SparkPlanningCancellation.current());
  }

  /** Opens the next endpoint of a client-side partition's query; none left leaves no stream. */
  private void openNextEndpoint() {
    FlightEndpoint endpoint = pending.poll();
    if (endpoint == null) {
      return;
    }
    streamTargets = session.targets(endpoint);
    streamTicket = endpoint.getTicket();
    streamTarget = streamTargets.get(0);
    endpointNumber++;
    stream = openWithRetry();
    streams++;
  }

  /**
   * Opens the current stream; after UNAVAILABLE from every location (a server restarting between
   * planning and reading), once more after a pause.
   */
  private FlightStream openWithRetry() {
    streamBatches = 0;
    try {
      try {
        return openStream(streamTargets);
      } catch (FlightSqlConnectorException e) {
        if (!mayRetry(e)) {
          throw e;
        }
        try {
          return openStream(streamTargets);
        } catch (FlightSqlConnectorException second) {
          second.addSuppressed(e);
          throw second;
        }
      }
    } catch (FlightSqlConnectorException e) {
      throw namingThePartition(e);
    }
  }

  /**
   * The client, which opens the stream, knows no partition: a stream that stayed silent from the
   * start is reported again naming this one.
   */
  private FlightSqlConnectorException namingThePartition(FlightSqlConnectorException e) {
    if (!"TIMED_OUT".equals(e.statusCode())
        || !String.valueOf(e.serverMessage()).contains("'streamIdleTimeout'")) {
      return e;
    }
    FlightSqlConnectorException named =
        StreamWatch.idle(
            "DoGet",
            streamTarget,
            "waiting for the first message of " + describe(),
            config.connection().streamIdleTimeoutMillis(),
            e.getCause());
    for (Throwable suppressed : e.getSuppressed()) {
      named.addSuppressed(suppressed);
    }
    return named;
  }

  /** {@code partition 3 (endpoint 4 of 8)}, for messages. */
  private String describe() {
    return "partition "
        + partition.index()
        + (partition.isQuery()
            ? " (endpoint " + endpointNumber + " of " + queryEndpoints + " of its query)"
            : " (endpoint " + (partition.index() + 1) + " of " + partition.endpointCount() + ")");
  }

  /**
   * Whether a DoGet that failed may be tried again now: UNAVAILABLE, before any batch of the stream
   * reached Spark, and the partition's one retry not used yet. Waits before saying yes.
   */
  private boolean mayRetry(RuntimeException e) {
    if (retried || streamBatches > 0 || !FlightErrors.isUnavailable(e)) {
      return false;
    }
    retried = true;
    LOG.warn(
        "Partition {}: DoGet failed with UNAVAILABLE before any batch reached Spark; trying once"
            + " more: {}",
        partition.index(),
        e.getMessage());
    return Retries.pauseBeforeStreamRetry(streamTarget);
  }

  /**
   * Opens the stream again after it failed with UNAVAILABLE before its first batch, starting with
   * the endpoint's other locations.
   */
  private void reopenAfterUnavailable(RuntimeException failure) {
    FlightStream failed = stream;
    stream = null;
    boundRoot = null;
    try {
      failed.close();
    } catch (Exception e) {
      failure.addSuppressed(e);
    }
    List<FlightUri> order = new ArrayList<>(streamTargets);
    if (order.remove(streamTarget)) {
      order.add(streamTarget);
    }
    streamTargets = order;
    streamTarget = order.get(0);
    try {
      stream = openStream(order);
    } catch (FlightSqlConnectorException second) {
      second.addSuppressed(failure);
      throw second;
    }
  }

  private FlightStream openStream(List<FlightUri> targets) {
    if (partition.isQuery()) {
      return session.stream(targets, streamTicket);
    }
    EndpointExpiry.Decision expiry =
        EndpointExpiry.decide(partition, session, System.currentTimeMillis());
    if (expiry.action() == EndpointExpiry.Action.RUN_AGAIN) {
      return reexecute(null);
    }
    if (expiry.action() == EndpointExpiry.Action.RENEWED) {
      streamTargets = session.targets(expiry.renewed());
      streamTicket = expiry.renewed().getTicket();
      streamTarget = streamTargets.get(0);
      return session.stream(streamTargets, streamTicket);
    }
    try {
      return session.stream(targets, streamTicket);
    } catch (FlightSqlConnectorException e) {
      if (!mayBeSpentTicket(e)) {
        throw e;
      }
      long now = System.currentTimeMillis();
      if (partition.endpointCount() != 1
          && partition.expiresAtMillis() > 0
          && now >= partition.expiresAtMillis()) {
        FlightSqlConnectorException expired =
            EndpointExpiry.expired(partition, now, "the server refused its ticket");
        expired.addSuppressed(e);
        throw expired;
      }
      if (partition.endpointCount() != 1 && !partition.reproducible()) {
        throw new FlightSqlConnectorException(
            e.getMessage()
                + ". If Spark read this partition before (a retried task, a second action on the"
                + " same DataFrame, or the sampling pass of a sort), the server may allow each"
                + " ticket to be read only once, and the query's "
                + partition.endpointCount()
                + " endpoints cannot be planned again with the same rows: cache() the DataFrame"
                + " after reading it, end the query with ORDER BY (on a server that keeps its"
                + " endpoints in order), or read it as one endpoint",
            e.statusCode(),
            e.serverMessage(),
            e.getCause());
      }
      return reexecute(e);
    }
  }

  /**
   * Whether a failed DoGet may be the server refusing a ticket that was already read. Flight leaves
   * it to each server whether a ticket without an expiration time can be read twice, and some
   * (Arrow's own Java example) drop a statement after its first read; Spark reads a partition again
   * when it retries a task or samples the input of a sort.
   */
  private static boolean mayBeSpentTicket(FlightSqlConnectorException e) {
    return !(e instanceof InsecureLocationException) && !FlightErrors.isAboutTheCall(e);
  }

  /**
   * Runs the query again and reads its one endpoint, or, for a {@link
   * FlightSqlInputPartition#reproducible()} query, the endpoint in this partition's place. Safe
   * only then: with a single endpoint the whole result is that endpoint, whatever ticket it comes
   * with; an ordered query whose server keeps its endpoints in order splits the same rows the same
   * way. No batch of this partition has reached Spark yet, so nothing is read twice.
   *
   * @param first the failure to read the planned ticket; null when it expired unread
   */
  private FlightStream reexecute(FlightSqlConnectorException first) {
    if (first != null) {
      LOG.info(
          "Partition {}: the ticket could not be read ({}); running the query again",
          partition.index(),
          first.getMessage());
    }
    try {
      FlightInfo info = plan();
      int count = info.getEndpoints().size();
      boolean same =
          count == 1
              ? partition.endpointCount() == 1
              : partition.reproducible() && info.getOrdered() && count == partition.endpointCount();
      if (!same) {
        throw first != null
            ? first
            : EndpointExpiry.expired(
                partition,
                System.currentTimeMillis(),
                "the query run again has " + count + " endpoints");
      }
      FlightEndpoint endpoint = info.getEndpoints().get(count == 1 ? 0 : partition.index());
      streamTargets = session.targets(endpoint);
      streamTicket = endpoint.getTicket();
      streamTarget = streamTargets.get(0);
      return session.stream(streamTargets, streamTicket);
    } catch (FlightSqlConnectorException second) {
      if (first != null && second != first) {
        second.addSuppressed(first);
      }
      throw second;
    }
  }

  @Override
  public boolean next() {
    countSparkTime();
    long start = System.nanoTime();
    try {
      while (stream != null) {
        FlightStream current = stream;
        boolean more;
        try (StreamWatch watch =
            StreamWatch.start(
                config.connection().streamIdleTimeoutMillis(),
                () -> current.cancel("option 'streamIdleTimeout' passed", null))) {
          try {
            more = current.next();
          } catch (RuntimeException e) {
            if (watch.fired()) {
              throw idle(watch, e);
            }
            if (mayRetry(e)) {
              reopenAfterUnavailable(e);
              continue;
            }
            throw FlightErrors.rpcFailed("DoGet", streamTarget, e);
          }
          if (watch.fired()) {
            throw idle(watch, null);
          }
        }
        if (more) {
          load(stream.getRoot());
          streamBatches++;
          handedOutAt = System.nanoTime();
          return true;
        }
        closeStream();
        openNextEndpoint();
      }
      return false;
    } finally {
      // The batch's binding to Spark's vectors is counted as waiting too: it is a few pointers.
      serverWaitNanos += (handedOutAt > start ? handedOutAt : System.nanoTime()) - start;
    }
  }

  /** Adds the time since the last batch went to Spark to Spark's time. */
  private void countSparkTime() {
    if (handedOutAt != 0) {
      sparkNanos += System.nanoTime() - handedOutAt;
      handedOutAt = 0;
    }
  }

  private FlightSqlConnectorException idle(StreamWatch watch, RuntimeException cause) {
    String what =
        "reading " + describe() + " after " + streamBatches + " record batch(es) of its stream";
    return StreamWatch.idle("DoGet", streamTarget, what, watch.timeoutMillis(), cause);
  }

  private void load(VectorSchemaRoot root) {
    if (root != boundRoot) {
      bind(root);
    }
    List<FieldVector> vectors = root.getFieldVectors();
    long batchBytes = 0;
    for (int i = 0; i < columns.length; i++) {
      FieldVector vector = vectors.get(i);
      columns[i].load(vector);
      batchBytes += vector.getBufferSize();
    }
    int count = root.getRowCount();
    batch.setNumRows(count);
    rows += count;
    bytes += batchBytes;
    batches++;
    LOG.debug("Partition {}: batch {} with {} rows", partition.index(), batches, count);
  }

  /** Closes a stream that was read to its end. */
  private void closeStream() {
    FlightStream done = stream;
    stream = null;
    boundRoot = null;
    try {
      done.close();
    } catch (Exception e) {
      throw new IllegalStateException("Closing the Flight stream failed: " + e, e);
    }
  }

  @Override
  public CustomTaskMetric[] currentMetricsValues() {
    return new CustomTaskMetric[] {
      RowsReceivedMetric.of(rows),
      BytesReceivedMetric.of(bytes),
      BatchesReceivedMetric.of(batches),
      ServerWaitTimeMetric.of(serverWaitNanos),
      SparkTimeMetric.of(sparkNanos)
    };
  }

  /**
   * Builds the column vectors for the stream's vectors, after checking they are what was planned.
   */
  private void bind(VectorSchemaRoot root) {
    List<Field> fields = root.getSchema().getFields();
    if (fields.size() != schema.size()) {
      throw schemaMismatch(
          "it has " + fields.size() + " columns where " + schema.size() + " were planned");
    }
    ColumnVector[] vectors = new ColumnVector[fields.size()];
    ArrowBackedColumnVector[] arrowColumns = new ArrowBackedColumnVector[fields.size()];
    DictionaryProvider dictionaries = stream.getDictionaryProvider();
    for (int i = 0; i < fields.size(); i++) {
      // The root's fields of dictionary-encoded columns carry the index type; the mapping reads
      // the value type, as the schema message has it.
      Field field = StreamSchemas.valueField(fields.get(i), dictionaries);
      DataType planned = schema.fields()[i].dataType();
      DataType actual = ArrowToSpark.toSparkType(field, config.typeOptions());
      if (!planned.equals(actual)) {
        throw schemaMismatch(
            "column "
                + (i + 1)
                + " ('"
                + field.getName()
                + "') is "
                + actual.simpleString()
                + " where "
                + planned.simpleString()
                + " was planned");
      }
      arrowColumns[i] =
          ArrowBackedColumnVector.create(
              field, planned, field.getName(), config.typeOptions(), dictionaries);
      vectors[i] = arrowColumns[i];
    }
    columns = arrowColumns;
    batch = new ColumnarBatch(vectors);
    boundRoot = root;
  }

  private FlightSqlConnectorException schemaMismatch(String detail) {
    return new FlightSqlConnectorException(
        "[flightsql] The stream of partition "
            + partition.index()
            + " does not match the schema planned for the query: "
            + detail
            + ". The server's result changed between planning and reading, or does not have the"
            + " types it announced for the query: "
            + partition.query(),
        "UNKNOWN",
        detail,
        null);
  }

  @Override
  public ColumnarBatch get() {
    return batch;
  }

  /**
   * Releases the stream, then the session and its allocator. When Spark kills a task (e.g. because
   * another task of the job failed) it interrupts the thread that then runs this; the stream's
   * drain would be cut short and leak its buffers, so the interrupt is set aside while closing and
   * restored afterwards.
   */
  @Override
  public void close() {
    countSparkTime();
    LOG.debug(
        "Partition {} read {} rows ({} bytes) in {} batches from {} stream(s)",
        partition.index(),
        rows,
        bytes,
        batches,
        streams);
    boolean interrupted = Thread.interrupted();
    try {
      RuntimeException failure = null;
      try {
        if (stream != null) {
          stream.close();
          stream = null;
        }
      } catch (Exception e) {
        failure = new IllegalStateException("Closing the Flight stream failed: " + e, e);
      }
      closeSession(failure);
      if (failure != null) {
        throw failure;
      }
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  private void closeSession(RuntimeException primary) {
    try {
      session.close();
    } catch (RuntimeException e) {
      if (primary != null) {
        primary.addSuppressed(e);
      } else {
        throw e;
      }
    }
  }
}
