package io.flightsql.spark.read;

import io.flightsql.spark.client.EndpointCursor;
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
 * them against the planned schema, and each new batch only re-points them and sets the row count.
 * It reports the rows, Arrow bytes and record batches received, the time spent waiting for the
 * server and the time Spark spent consuming batches, as Spark custom metrics.
 */
final class FlightSqlPartitionReader implements PartitionReader<ColumnarBatch> {
  private static final Logger LOG = LoggerFactory.getLogger(FlightSqlPartitionReader.class);

  private final FlightSqlInputPartition partition;
  private final FlightSqlReadConfig config;
  private final StructType schema;
  private final EndpointCursor cursor;

  private VectorSchemaRoot boundRoot;
  private ArrowBackedColumnVector[] columns;
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

  FlightSqlPartitionReader(
      FlightSqlInputPartition partition, StructType schema, FlightSqlReadConfig config) {
    this.partition = partition;
    this.config = config;
    this.schema = schema;
    this.cursor =
        partition.isQuery()
            ? EndpointCursor.overQuery(
                config.connection(),
                partition.session(),
                partition.index(),
                partition.query(),
                config.queryTimeout().orElse(null),
                SparkPlanningCancellation.current())
            : EndpointCursor.overEndpoint(
                config.connection(),
                partition.session(),
                partition.endpointFor(taskAction()),
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
      if (!cursor.next()) {
        return false;
      }
      load(cursor.root(), cursor.dictionaries());
      handedOutAt = System.nanoTime();
      return true;
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

  private void load(VectorSchemaRoot root, DictionaryProvider dictionaries) {
    if (root != boundRoot) {
      bind(root, dictionaries);
      streams++;
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

  /** Builds the column vectors for a stream's vectors, after checking they are what was planned. */
  private void bind(VectorSchemaRoot root, DictionaryProvider dictionaries) {
    List<Field> fields = root.getSchema().getFields();
    if (fields.size() != schema.size()) {
      throw schemaMismatch(
          "it has " + fields.size() + " columns where " + schema.size() + " were planned");
    }
    ColumnVector[] vectors = new ColumnVector[fields.size()];
    ArrowBackedColumnVector[] arrowColumns = new ArrowBackedColumnVector[fields.size()];
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
    return FlightErrors.problem(
        "The stream of "
            + cursor.describe()
            + " does not match the schema planned for the query: "
            + detail
            + ". The server's result changed between planning and reading, or does not have the"
            + " types it announced for the query: "
            + partition.query(),
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
    cursor.close();
  }
}
