package io.flightsql.spark.read;

import java.util.OptionalLong;
import org.apache.spark.sql.connector.read.Statistics;
import org.apache.spark.sql.types.StructType;

/**
 * A read's statistics as Spark's optimizer takes them: the rows and bytes the server gave with the
 * planned query. Where it gave rows only, the bytes are what Spark itself estimates for a relation
 * of that many rows ({@code EstimationUtils.getSizePerRow}: 8 bytes a row, plus each column's
 * default size, 20 for a string), which long strings exceed. Nothing is reported that no server
 * figure stands behind. Driver only; not Serializable.
 */
final class ScanStatistics implements Statistics {
  /** Spark's estimate of a row's overhead, as in its size of a row of known columns. */
  private static final long ROW_OVERHEAD = 8;

  private final OptionalLong rows;
  private final OptionalLong bytes;

  private ScanStatistics(OptionalLong rows, OptionalLong bytes) {
    this.rows = rows;
    this.bytes = bytes;
  }

  /** The statistics of a read of {@code schema} of which the server said {@code figures}. */
  static ScanStatistics of(ScanPlan.ReadFigures figures, StructType schema) {
    OptionalLong bytes = figures.bytes();
    if (!bytes.isPresent() && figures.rows().isPresent()) {
      long rows = figures.rows().getAsLong();
      long width = ROW_OVERHEAD + schema.defaultSize();
      bytes = OptionalLong.of(rows > Long.MAX_VALUE / width ? Long.MAX_VALUE : rows * width);
    }
    return new ScanStatistics(figures.rows(), bytes);
  }

  @Override
  public OptionalLong sizeInBytes() {
    return bytes;
  }

  @Override
  public OptionalLong numRows() {
    return rows;
  }

  @Override
  public String toString() {
    return "ScanStatistics{rows=" + rows + ", bytes=" + bytes + "}";
  }
}
