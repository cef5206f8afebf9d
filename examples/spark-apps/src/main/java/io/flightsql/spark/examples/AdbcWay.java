package io.flightsql.spark.examples;

import io.flightsql.spark.examples.WriteLimit.Kind;
import io.flightsql.spark.examples.WriteLimit.Way;
import java.io.IOException;
import java.util.Locale;

/**
 * ADBC's ingest from Python ({@link AdbcIngest}) as a way of {@link WriteLimit}, of the rows of the
 * raw client's batches: a way marked not measured, with the reason, when its process cannot start
 * (no Python, no virtualenv), so that the other figures stand.
 */
record AdbcWay(AdbcIngest ingest, String failure) implements AutoCloseable {
  static final String NAME = "adbc_ingest (Python)";

  static AdbcWay start(String uri, PrebuiltBatches batches) {
    try {
      return new AdbcWay(AdbcIngest.start(uri, batches.rows(), batches.firstBatchRows()), null);
    } catch (Exception | AssertionError e) {
      System.err.println("ADBC's ingest cannot run; it is left out of the figures: " + e);
      return new AdbcWay(null, e.toString());
    }
  }

  Way way(String table, long rows) {
    Way way =
        Way.selfTimed(
            NAME,
            Kind.TRANSPORT,
            rows,
            () -> {
              if (ingest == null) {
                throw new IllegalStateException("not started: " + failure);
              }
              return ingest.ingest(table);
            });
    if (ingest == null) {
      way.timings().skip(failure);
    }
    return way;
  }

  /** The Arrow buffer bytes of the Python process's batches, as text. */
  String bytes() {
    return ingest == null ? "n/a" : String.format(Locale.ROOT, "%,d bytes", ingest.bytes());
  }

  @Override
  public void close() throws IOException {
    if (ingest != null) {
      ingest.close();
    }
  }
}
