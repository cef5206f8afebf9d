package io.flightsql.spark.vector;

import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.complex.RunEndEncodedVector;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.vectorized.ColumnVector;

/**
 * A run-end-encoded column: value i of the values child covers the rows up to run end i. Rows are
 * usually read in order, so the run of the last access is tried first.
 */
final class RunEndColumn extends IndirectColumn {
  private final ArrowBackedColumnVector values;
  private final int runEndBits;
  private long runEnds;
  private int runs;
  private int lastRun;

  RunEndColumn(DataType type, ArrowBackedColumnVector values, int runEndBits) {
    super(type);
    this.values = values;
    this.runEndBits = runEndBits;
  }

  @Override
  void loadBuffers(FieldVector vector) {
    RunEndEncodedVector ree = (RunEndEncodedVector) vector;
    valueCount = ree.getValueCount();
    nullCount = 0;
    validity = 0L;
    FieldVector ends = ree.getRunEndsVector();
    runs = ends.getValueCount();
    runEnds = runs > 0 ? ends.getDataBufferAddress() : 0L;
    lastRun = 0;
    values.load(ree.getValuesVector());
  }

  private long runEnd(int run) {
    return readIndex(runEnds, runEndBits, true, run);
  }

  @Override
  ColumnVector target(int rowId) {
    return values;
  }

  @Override
  int targetRow(int rowId) {
    int run = lastRun;
    if (!(rowId < runEnd(run) && (run == 0 || rowId >= runEnd(run - 1)))) {
      int low = 0;
      int high = runs - 1;
      while (low < high) {
        int mid = (low + high) >>> 1;
        if (runEnd(mid) <= rowId) {
          low = mid + 1;
        } else {
          high = mid;
        }
      }
      run = low;
      lastRun = run;
    }
    return run;
  }
}
