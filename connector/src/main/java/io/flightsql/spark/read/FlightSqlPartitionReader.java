package io.flightsql.spark.read;

import io.flightsql.spark.client.EndpointCursor;
import io.flightsql.spark.client.PlannedEndpoint;
import io.flightsql.spark.client.transport.FlightErrors;
import io.flightsql.spark.client.transport.FlightSqlConnectorException;
import io.flightsql.spark.client.transport.StreamSchemas;
import io.flightsql.spark.config.FlightSqlReadConfig;
import io.flightsql.spark.metrics.ActionReads;
import io.flightsql.spark.metrics.BatchesReceivedMetric;
import io.flightsql.spark.metrics.BytesReceivedMetric;
import io.flightsql.spark.metrics.RowsReceivedMetric;
import io.flightsql.spark.metrics.ServerWaitTimeMetric;
import io.flightsql.spark.metrics.SparkTimeMetric;
import io.flightsql.spark.types.ArrowToSpark;
import io.flightsql.spark.vector.ArrowBackedColumnVector;
import io.flightsql.spark.vector.BatchChecks;
import io.flightsql.spark.vector.MalformedBatchException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.dictionary.DictionaryProvider;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.spark.TaskContext;
import org.apache.spark.sql.connector.metric.CustomTaskMetric;
import org.apache.spark.sql.connector.read.PartitionReader;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Hands a partition to Spark as ColumnarBatches. Runs on an executor; not Serializable. The Arrow
 * record batches come from an {@link EndpointCursor}, which owns the streams, their session and
 * allocator, and everything that can happen to an endpoint (locations, the retry, expiry, a ticket
 * the server no longer takes). This reader binds each batch: the column vectors are built when a
 * stream's vectors first appear (each stream has its own vectors and dictionaries), after checking
 * them against the planned schema, and each new batch is checked ({@link BatchChecks}: a server's
 * buffers are input, and the columns read them by address) before it re-points them and sets the
 * row count. It reports the rows, Arrow bytes and record batches received, the time spent waiting
 * for the server and the time Spark spent consuming batches, as Spark custom metrics.
 */
final class FlightSqlPartitionReader implements PartitionReader<ColumnarBatch> {
  private static final Logger LOG = LoggerFactory.getLogger(FlightSqlPartitionReader.class);

  private final FlightSqlInputPartition partition;
  private final FlightSqlReadConfig config;
  private final StructType schema;

  /** The cursor of the endpoint read now: the partition's, then each of its following ones. */
  private EndpointCursor cursor;

  /** The following endpoints of the partition not opened yet. */
  private final Deque<PlannedEndpoint> following;

  /** Whether the partition is an aggregate without GROUP BY, whose rows must be exactly one. */
  private final boolean oneRow;

  private VectorSchemaRoot boundRoot;
  private ArrowBackedColumnVector[] columns;

  /** The checks of the bound stream's batches; null only where a benchmark turned them off. */
  private BatchChecks checks;

  private ColumnarBatch batch;
  private int streams;
  private long rows;
  private long bytes;
  private int batches;

  /** Nanoseconds spent waiting for the server: planning, opening streams, waiting for batches. */
  private long serverWaitNanos;

  /** Nanoseconds Spark spent between receiving a batch and asking for the next. */
  private long sparkNanos;

  /** When the last batch was handed to Spark (System.nanoTime), or 0 when none is out. */
  private long handedOutAt;

  /**
   * @param oneRow whether the partition reads the whole answer to an aggregate without GROUP BY,
   *     which is one row: the read fails, naming the query, when the server sends another number
   */
  FlightSqlPartitionReader(
      FlightSqlInputPartition partition,
      StructType schema,
      FlightSqlReadConfig config,
      boolean oneRow) {
    this.partition = partition;
    this.oneRow = oneRow;
    this.config = config;
    this.schema = schema;
    this.following = new ArrayDeque<>(partition.isQuery() ? List.of() : partition.following());
    this.cursor =
        partition.isQuery()
            ? EndpointCursor.overQuery(
                config.connection(),
                partition.session(),
                partition.index(),
                partition.query(),
                config.queryTimeout().orElse(null),
                SparkPlanningCancellation.current())
            : endpointCursor(partition.endpointFor(taskAction()));
  }

  private EndpointCursor endpointCursor(PlannedEndpoint endpoint) {
    return EndpointCursor.overEndpoint(
        config.connection(),
        partition.session(),
        endpoint,
        config.queryTimeout().orElse(null),
        SparkPlanningCancellation.current());
  }

  /** The Spark action the task runs for, or null outside any. */
  private static String taskAction() {
    TaskContext task = TaskContext.get();
    return task == null ? null : task.getLocalProperty(ActionReads.EXECUTION_ID);
  }

  @Override
  public boolean next() {
    countSparkTime();
    long start = System.nanoTime();
    try {
      while (!cursor.next()) {
        if (!following.isEmpty()) {
          cursor.close();
          // Closed: close() must not close it again if the next one fails to open.
          cursor = null;
          cursor = endpointCursor(following.poll());
          continue;
        }
        if (oneRow && rows != 1) {
          throw notOneRow(rows, "the server answered", partition.query());
        }
        return false;
      }
      load(cursor.root(), cursor.dictionaries());
      handedOutAt = System.nanoTime();
      return true;
    } finally {
      // The batch's checks and binding to Spark's vectors are counted as waiting too: they read
      // the offsets and indices once, and re-point a few addresses.
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

  private void load(VectorSchemaRoot root, DictionaryProvider dictionaries) {
    if (root != boundRoot) {
      bind(root, dictionaries);
      streams++;
    }
    List<FieldVector> vectors = root.getFieldVectors();
    if (checks != null) {
      try {
        checks.check(vectors);
      } catch (MalformedBatchException e) {
        throw cursor.malformedBatch(e.getMessage(), e);
      }
    }
    long batchBytes = 0;
    for (int i = 0; i < columns.length; i++) {
      FieldVector vector = vectors.get(i);
      columns[i].load(vector);
      batchBytes += vector.getBufferSize();
    }
    int count = root.getRowCount();
    batch.setNumRows(count);
    rows += count;
    if (oneRow && rows > 1) {
      throw notOneRow(rows, "the server answered", partition.query());
    }
    bytes += batchBytes;
    batches++;
    LOG.debug("Partition {}: batch {} with {} rows", partition.index(), batches, count);
  }

  /** Builds the column vectors for a stream's vectors, after checking they are what was planned. */
  private void bind(VectorSchemaRoot root, DictionaryProvider dictionaries) {
    List<Field> fields = root.getSchema().getFields();
    if (fields.size() != schema.size()) {
      throw schemaMismatch(
          "it has " + fields.size() + " columns where " + schema.size() + " were planned");
    }
    ColumnVector[] vectors = new ColumnVector[fields.size()];
    ArrowBackedColumnVector[] arrowColumns = new ArrowBackedColumnVector[fields.size()];
    List<Field> valueFields = new ArrayList<>();
    for (int i = 0; i < fields.size(); i++) {
      // The root's fields of dictionary-encoded columns carry the index type; the mapping reads
      // the value type, as the schema message has it.
      Field field = StreamSchemas.valueField(fields.get(i), dictionaries);
      valueFields.add(field);
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
    checks = BatchChecks.skippedForBenchmark() ? null : new BatchChecks(valueFields, dictionaries);
    batch = new ColumnarBatch(vectors);
    boundRoot = root;
  }

  private FlightSqlConnectorException schemaMismatch(String detail) {
    return FlightErrors.problem(
        "The stream of "
            + cursor.describe()
            + " from "
            + cursor.server()
            + " does not match the schema planned for the query: "
            + detail
            + ". The server's result changed between planning and reading, or does not have the"
            + " types it announced for the query: "
            + partition.query(),
        "UNKNOWN",
        detail);
  }

  /**
   * The failure of a read whose aggregate without GROUP BY came back with {@code rows} rows (at
   * least that many, when more than one), where SQL and Spark give exactly one: shown as it is, the
   * answer would be an empty result or extra rows.
   */
  static FlightSqlConnectorException notOneRow(long rows, String what, String sql) {
    String detail = rows + (rows > 1 ? " or more rows" : " rows");
    return FlightErrors.problem(
        "An aggregate without GROUP BY has exactly one row, but "
            + what
            + " its pushed query with "
            + detail
            + ": "
            + sql
            + ". Set option 'pushDownAggregate' to false to have Spark compute it",
        "UNKNOWN",
        detail);
  }

  @Override
  public ColumnarBatch get() {
    return batch;
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

  /** Releases the cursor: its stream, then its session and allocator. */
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
    boundRoot = null;
    if (cursor != null) {
      cursor.close();
    }
  }
}
