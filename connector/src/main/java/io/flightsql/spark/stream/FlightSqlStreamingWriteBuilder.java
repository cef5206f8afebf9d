package io.flightsql.spark.stream;

import io.flightsql.spark.config.FlightSqlWriteConfig;
import io.flightsql.spark.config.StreamWriteSettings;
import java.util.Map;
import org.apache.spark.sql.connector.write.LogicalWriteInfo;
import org.apache.spark.sql.connector.write.SupportsTruncate;
import org.apache.spark.sql.connector.write.Write;
import org.apache.spark.sql.connector.write.WriteBuilder;
import org.apache.spark.sql.internal.SQLConf;

/**
 * Builds the streaming write of {@code df.writeStream.format("flightsql")}: in output mode append,
 * each micro-batch's rows appended to option {@code dbtable} ({@link FlightSqlStreamingWrite}).
 * Output mode complete reaches {@link #truncate()}, and is refused when the write is built, with
 * what works instead; output mode update Spark refuses itself, since this builder does not declare
 * that an update may be written as an append. Driver only; not Serializable.
 */
public final class FlightSqlStreamingWriteBuilder implements WriteBuilder, SupportsTruncate {
  private final Map<String, String> options;
  private final LogicalWriteInfo info;
  private boolean complete;

  /**
   * @param options the write's options, every source merged
   * @param info the query's id and its rows' schema
   */
  public FlightSqlStreamingWriteBuilder(Map<String, String> options, LogicalWriteInfo info) {
    this.options = options;
    this.info = info;
  }

  /** Spark's way to ask for output mode complete: refused by {@link #build()}. */
  @Override
  public WriteBuilder truncate() {
    complete = true;
    return this;
  }

  /**
   * Plans the write: checks the rows against the table (or that it can be created), chooses exactly
   * or at least once, and creates the marker table where needed.
   *
   * @throws IllegalArgumentException for output mode complete, and for options that cannot be met
   */
  @Override
  public Write build() {
    FlightSqlWriteConfig config = FlightSqlWriteConfig.from(options);
    if (complete) {
      throw new IllegalArgumentException(
          "Output mode 'complete' is not supported by the flightsql streaming sink: it would have"
              + " to replace every row of "
              + config.table()
              + " at each trigger, and the sink appends each micro-batch's rows. Use output mode"
              + " 'append' (with a watermark, for an aggregation), or write each micro-batch with"
              + " foreachBatch and df.write.format(\"flightsql\").mode(\"overwrite\"). Output mode"
              + " 'update' is refused too. See docs/streaming.md.");
    }
    return new FlightSqlStreamingWrite(
        config,
        StreamWriteSettings.from(options),
        info.queryId(),
        info.schema(),
        SQLConf.get().caseSensitiveAnalysis());
  }
}
