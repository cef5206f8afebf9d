package io.flightsql.spark.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.spark.api.java.function.VoidFunction2;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.streaming.DataStreamReader;
import org.apache.spark.sql.streaming.StreamingQuery;
import org.apache.spark.sql.streaming.StreamingQueryProgress;
import org.apache.spark.sql.streaming.Trigger;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Structured Streaming on each server: every server as a source (the contract table read as a
 * stream by its {@code id}, in micro-batches of two rows, gives the rows of its batch read), and
 * every server that takes writes as a sink (a table that grows between two runs of a streaming copy
 * with {@code Trigger.AvailableNow}, the second of which runs the first one's last epoch again, as
 * a query restarted after its driver died before recording that epoch's commit does: the copy has
 * each row once, exactly once where the server has transactions and, thanks to the mark added after
 * the rows, here too where it has none). Mixed into a {@link FlightSqlContractSuite}.
 */
interface StreamingContract {
  Duration BOUND = Duration.ofMinutes(2);

  ServerQuirks quirks();

  SparkSession spark();

  private DataStreamReader stream(String table) {
    return spark()
        .readStream()
        .format("flightsql")
        .option("uri", quirks().uri())
        .options(quirks().options())
        .option("dbtable", table)
        .option("offsetColumn", "id");
  }

  private static List<Long> rowsPerBatch(StreamingQuery query) {
    List<Long> rows = new ArrayList<>();
    for (StreamingQueryProgress progress : query.recentProgress()) {
      if (progress.numInputRows() > 0) {
        rows.add(progress.numInputRows());
      }
    }
    return rows;
  }

  private static List<String> sorted(List<Row> rows) {
    return rows.stream().map(Row::toString).sorted().collect(Collectors.toList());
  }

  @Test
  @Timeout(value = 5, unit = TimeUnit.MINUTES)
  default void readsTheContractTableAsAStreamInMicroBatches(@TempDir Path dir) throws Exception {
    List<Row> streamed = Collections.synchronizedList(new ArrayList<>());
    VoidFunction2<Dataset<Row>, Long> collect =
        (batch, epoch) -> streamed.addAll(batch.collectAsList());
    StreamingQuery query =
        stream(FlightSqlContractSuite.TABLE)
            .option("maxRowsPerTrigger", "2")
            .load()
            .writeStream()
            .foreachBatch(collect)
            .option("checkpointLocation", dir.resolve("source").toString())
            .trigger(Trigger.AvailableNow())
            .start();
    query.awaitTermination();
    assertThat(rowsPerBatch(query)).containsExactly(2L, 2L, 1L);
    List<Row> read =
        spark()
            .read()
            .format("flightsql")
            .option("uri", quirks().uri())
            .options(quirks().options())
            .option("dbtable", FlightSqlContractSuite.TABLE)
            .load()
            .collectAsList();
    assertThat(sorted(streamed)).isEqualTo(sorted(read)).hasSize(5);
  }

  @Test
  @Timeout(value = 5, unit = TimeUnit.MINUTES)
  default void copiesATableThatGrowsAndWritesAnEpochRunAgainOnce(@TempDir Path dir)
      throws Exception {
    Assumptions.assumeFalse(
        quirks().writeMethods().isEmpty(), quirks().name() + " takes no writes");
    String source = FailedWriteContract.Names.next("stream_source");
    String copy = FailedWriteContract.Names.next("stream_copy");
    for (String table : List.of(source, copy)) {
      quirks()
          .executeUpdate(
              "CREATE TABLE "
                  + table
                  + " (id "
                  + quirks().ddlType(ContractColumn.ID)
                  + ", name "
                  + quirks().ddlType(ContractColumn.NAME)
                  + ")");
    }
    insert(source, 1, 6);
    Path checkpoint = dir.resolve("copy");
    StreamingQuery first = copy(source, copy, checkpoint);
    assertThat(rowsPerBatch(first)).containsExactly(4L, 2L);

    // The second epoch's commit lost from the checkpoint, as when the driver dies just after the
    // sink committed it: the next run runs it again.
    Files.delete(checkpoint.resolve("commits/1"));
    Files.deleteIfExists(checkpoint.resolve("commits/.1.crc"));
    insert(source, 7, 9);
    StreamingQuery second = copy(source, copy, checkpoint);
    assertThat(rowsPerBatch(second)).containsExactly(2L, 3L);

    List<String> expected = new ArrayList<>();
    for (int i = 1; i <= 9; i++) {
      expected.add(i + "|n" + i);
    }
    assertThat(
            FlightSqlUpdates.rows(
                quirks().uri(), "SELECT id, name FROM " + copy + " ORDER BY id", BOUND))
        .as("each row once")
        .isEqualTo(expected);
    assertThat(
            FlightSqlUpdates.tablesStartingWith(
                quirks().uri(), quirks().reportedName(copy) + "_flightsql_", BOUND))
        .as("staging tables left")
        .isEmpty();
  }

  private void insert(String table, int from, int to) {
    for (int i = from; i <= to; i++) {
      quirks().executeUpdate("INSERT INTO " + table + " VALUES (" + i + ", 'n" + i + "')");
    }
  }

  private StreamingQuery copy(String source, String copy, Path checkpoint) throws Exception {
    StreamingQuery query =
        stream(source)
            .option("maxRowsPerTrigger", "4")
            .load()
            .writeStream()
            .format("flightsql")
            .option("uri", quirks().uri())
            .options(quirks().options())
            .option("dbtable", quirks().reportedName(copy))
            .option("checkpointLocation", checkpoint.toString())
            .trigger(Trigger.AvailableNow())
            .start();
    query.awaitTermination();
    return query;
  }
}
