package io.flightsql.spark.write;

import java.io.IOException;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.connector.metric.CustomTaskMetric;
import org.apache.spark.sql.connector.write.DataWriter;
import org.apache.spark.sql.connector.write.WriterCommitMessage;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.StructType;

/**
 * A task's writer that hands each row on with its columns in the table's order: for rows whose
 * DataFrame cannot be reordered before the write, as a streaming query's epoch cannot. One row copy
 * of references per row, no copy of the values. Runs on an executor; not Serializable.
 */
final class ReorderedRows implements DataWriter<InternalRow> {
  private final DataWriter<InternalRow> writer;
  private final int[] positions;
  private final DataType[] types;

  /**
   * @param positions for each column of {@code written}, its position in the rows given
   * @param written the columns the writer takes, in its order
   */
  ReorderedRows(DataWriter<InternalRow> writer, int[] positions, StructType written) {
    this.writer = writer;
    this.positions = positions;
    this.types = new DataType[positions.length];
    for (int i = 0; i < types.length; i++) {
      types[i] = written.fields()[i].dataType();
    }
  }

  @Override
  public void write(InternalRow row) throws IOException {
    Object[] values = new Object[positions.length];
    for (int i = 0; i < values.length; i++) {
      values[i] = row.isNullAt(positions[i]) ? null : row.get(positions[i], types[i]);
    }
    writer.write(new GenericInternalRow(values));
  }

  @Override
  public WriterCommitMessage commit() throws IOException {
    return writer.commit();
  }

  @Override
  public void abort() throws IOException {
    writer.abort();
  }

  @Override
  public void close() throws IOException {
    writer.close();
  }

  @Override
  public CustomTaskMetric[] currentMetricsValues() {
    return writer.currentMetricsValues();
  }
}
