package io.flightsql.spark.it;

import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.streaming.StreamingQuery;
import org.apache.spark.sql.streaming.StreamingQueryListener;
import org.apache.spark.sql.streaming.Trigger;

/**
 * A streaming copy from one Flight SQL table to another, as a program of its own, so that a test
 * can kill it (SIGKILL) mid-stream and start it again from its checkpoint: {@code --uri}, {@code
 * --source}, {@code --sink}, {@code --offset-column}, {@code --checkpoint}, {@code
 * --max-rows-per-trigger}, and {@code --available-now} to end once it has copied what there was
 * when it started (otherwise it runs until killed). It prints {@code STARTED <query id>} once the
 * query runs and {@code BATCH <id> <rows>} after each micro-batch, and any other option {@code
 * --option.<name> <value>} goes to both the read and the write. Local Spark, two threads.
 */
public final class StreamingCopyApp {
  private StreamingCopyApp() {}

  public static void main(String[] args) throws Exception {
    Map<String, String> given = new LinkedHashMap<>();
    boolean availableNow = false;
    for (int i = 0; i < args.length; i++) {
      if (args[i].equals("--available-now")) {
        availableNow = true;
      } else {
        given.put(args[i].substring(2), args[++i]);
      }
    }
    SparkSession spark =
        SparkSession.builder()
            .master("local[2]")
            .appName("flightsql-streaming-copy")
            .config("spark.ui.enabled", "false")
            .config("spark.sql.shuffle.partitions", "2")
            .getOrCreate();
    spark
        .streams()
        .addListener(
            new StreamingQueryListener() {
              @Override
              public void onQueryStarted(QueryStartedEvent event) {}

              @Override
              public void onQueryProgress(QueryProgressEvent event) {
                System.out.println(
                    "BATCH " + event.progress().batchId() + " " + event.progress().numInputRows());
                System.out.flush();
              }

              @Override
              public void onQueryTerminated(QueryTerminatedEvent event) {}
            });
    Map<String, String> options = new LinkedHashMap<>();
    given.forEach(
        (name, value) -> {
          if (name.startsWith("option.")) {
            options.put(name.substring("option.".length()), value);
          }
        });
    Dataset<Row> rows =
        spark
            .readStream()
            .format("flightsql")
            .option("uri", given.get("uri"))
            .option("dbtable", given.get("source"))
            .option("offsetColumn", given.get("offset-column"))
            .option("maxRowsPerTrigger", given.getOrDefault("max-rows-per-trigger", "1000"))
            .options(options)
            .load();
    StreamingQuery query =
        rows.writeStream()
            .format("flightsql")
            .option("uri", given.get("uri"))
            .option("dbtable", given.get("sink"))
            .option("checkpointLocation", given.get("checkpoint"))
            .options(options)
            .trigger(availableNow ? Trigger.AvailableNow() : Trigger.ProcessingTime(0))
            .start();
    System.out.println("STARTED " + query.id());
    System.out.flush();
    query.awaitTermination();
    spark.stop();
  }
}
