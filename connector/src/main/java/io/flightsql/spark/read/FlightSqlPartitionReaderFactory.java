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

  FlightSqlPartitionReaderFactory(StructType schema, FlightSqlReadConfig config) {
    this.schema = schema;
    this.config = config;
  }

  @Override
  public boolean supportColumnarReads(InputPartition partition) {
    return true;
  }

  @Override
  public PartitionReader<ColumnarBatch> createColumnarReader(InputPartition partition) {
    return new FlightSqlPartitionReader((FlightSqlInputPartition) partition, schema, config);
  }

  @Override
  public PartitionReader<InternalRow> createReader(InputPartition partition) {
    throw new UnsupportedOperationException("spark-flightsql reads are columnar only");
  }
}
