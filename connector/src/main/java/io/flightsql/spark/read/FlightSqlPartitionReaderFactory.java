package io.flightsql.spark.read;

import io.flightsql.spark.config.FlightSqlReadConfig;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.connector.read.PartitionReader;
import org.apache.spark.sql.connector.read.PartitionReaderFactory;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.vectorized.ColumnarBatch;

/**
 * Makes the columnar reader of each partition. Built on the driver, Serializable, used on
 * executors. Reads are always columnar.
 */
final class FlightSqlPartitionReaderFactory implements PartitionReaderFactory {
  private static final long serialVersionUID = 1L;

  private final StructType schema;
  private final FlightSqlReadConfig config;

  /** Whether each partition is an aggregate without GROUP BY, which must read one row. */
  private final boolean oneRow;

  FlightSqlPartitionReaderFactory(StructType schema, FlightSqlReadConfig config, boolean oneRow) {
    this.schema = schema;
    this.config = config;
    this.oneRow = oneRow;
  }

  @Override
  public boolean supportColumnarReads(InputPartition partition) {
    return true;
  }

  @Override
  public PartitionReader<ColumnarBatch> createColumnarReader(InputPartition partition) {
    return new FlightSqlPartitionReader(
        (FlightSqlInputPartition) partition, schema, config, oneRow);
  }

  @Override
  public PartitionReader<InternalRow> createReader(InputPartition partition) {
    throw new UnsupportedOperationException("spark-flightsql reads are columnar only");
  }
}
