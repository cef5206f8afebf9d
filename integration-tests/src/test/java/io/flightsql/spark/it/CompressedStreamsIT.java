package io.flightsql.spark.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.flightsql.spark.server.RecordBatchCodecs;
import io.flightsql.spark.servers.FreePorts;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The shaded jar against a server this project did not write that compresses its record batches: a
 * small Flight SQL server on pyarrow, that is Arrow C++, with {@code
 * IpcWriteOptions(compression="zstd"|"lz4")} ({@code src/test/python/compressing_flight_sql_server
 * .py}). Reads of its ZSTD and LZ4_FRAME streams give every value it holds; uploads written with
 * option {@code compression} are read by Arrow C++ into the very rows Spark sent. Every test ends
 * with a check that the connector holds no Arrow memory.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
@ExtendWith(ArrowLeakCheckExtension.class)
class CompressedStreamsIT {
  private static final int ROWS = 100_000;

  @RegisterExtension
  @Order(1)
  static final PyArrowServerExtension SERVER = new PyArrowServerExtension(ROWS);

  @RegisterExtension
  @Order(2)
  static final SparkSessionExtension spark = SparkSessionExtension.local();

  @ParameterizedTest(name = "{0}")
  @CsvSource({"zstd, ZSTD", "lz4, LZ4_FRAME", "plain, NONE"})
  void readsEveryValueOfACompressedStream(String prefix, String codec) {
    String table = prefix + "_people";
    assertThat(
            RecordBatchCodecs.of(
                FreePorts.LOOPBACK, SERVER.port(), table.getBytes(StandardCharsets.UTF_8)))
        .as("the codec of each record batch the server sends")
        .hasSize(ROWS / 10_000)
        .containsOnly(codec);

    List<Row> rows = new ArrayList<>(read(table).collectAsList());
    rows.sort(Comparator.comparingLong(row -> row.getLong(0)));
    assertThat(rows).hasSize(ROWS);
    for (int i = 0; i < ROWS; i++) {
      assertThat(values(rows.get(i))).as("row %d of %s", i, table).isEqualTo(expected(i));
    }
  }

  @ParameterizedTest(name = "compression={0}")
  @CsvSource({"zstd, zstd", "lz4, lz4", "none, plain"})
  void uploadsAreReadByArrowCppAsSparkSentThem(String compression, String prefix) {
    String table = prefix + "_uploads";
    Dataset<Row> data =
        spark
            .session()
            .sql(
                "SELECT id,"
                    + " IF(id % 9 = 0, NULL, concat('row ', CAST(id % 300 AS STRING), ' ✓')) AS name,"
                    + " CAST(id * 0.25 AS DECIMAL(14, 2)) AS amount,"
                    + " timestamp_seconds(1700000000 + id * 7) AS seen"
                    + " FROM range(0, 50000, 1, 2)");
    data.write()
        .format("flightsql")
        .option("uri", SERVER.uri())
        .option("dbtable", table)
        .option("writeMethod", "ingest")
        // The test server takes ingestion and runs no SQL statement, which staging needs.
        .option("atomic", "false")
        .option("compression", compression)
        .mode("append")
        .save();

    assertSameRows(sorted(read(table)), sorted(data));
  }

  /**
   * With the default {@code atomic}, a write to a server that runs no SQL statement cannot stage
   * its rows: the task fails saying so and naming the option that writes directly, and the table
   * gets no row.
   */
  @org.junit.jupiter.api.Test
  void aStagedWriteToAServerWithoutStatementsSaysToSetAtomicFalse() {
    String table = "plain_uploads";
    long before = read(table).count();
    assertThatThrownBy(
            () ->
                spark
                    .session()
                    .sql(
                        "SELECT id, CAST(NULL AS STRING) AS name, CAST(0 AS DECIMAL(14, 2)) AS"
                            + " amount, timestamp_seconds(0) AS seen FROM range(0, 10, 1, 1)")
                    .write()
                    .format("flightsql")
                    .option("uri", SERVER.uri())
                    .option("dbtable", table)
                    .option("writeMethod", "ingest")
                    .mode("append")
                    .save())
        .hasMessageContaining(
            "[flightsql] DoPut(CommandStatementUpdate) failed for " + SERVER.uri())
        .hasMessageContaining("UNIMPLEMENTED: the server runs no SQL statement")
        .hasMessageContaining("Set option 'atomic' to false to write into the table directly");
    assertThat(read(table).count()).as("rows in the table").isEqualTo(before);
  }

  /** Equal lists, or a failure that shows the sizes and the first row that differs. */
  private static void assertSameRows(List<String> actual, List<String> expected) {
    int same = 0;
    while (same < Math.min(actual.size(), expected.size())
        && actual.get(same).equals(expected.get(same))) {
      same++;
    }
    assertThat(same == actual.size() && same == expected.size())
        .as(
            "%d rows read back, %d written; first difference at %d: %s instead of %s",
            actual.size(),
            expected.size(),
            same,
            same < actual.size() ? actual.get(same) : "nothing",
            same < expected.size() ? expected.get(same) : "nothing")
        .isTrue();
  }

  private static Dataset<Row> read(String table) {
    return spark
        .session()
        .read()
        .format("flightsql")
        .option("uri", SERVER.uri())
        .option("dbtable", table)
        .load();
  }

  /** Row {@code i} of the server's {@code *_people} tables, as {@code people()} makes it. */
  private static List<Object> expected(int i) {
    return Arrays.asList(
        (long) i,
        i % 7 == 0 ? null : "name " + (i % 100) + " é✓",
        i / 4.0,
        i % 3 == 0,
        LocalDate.of(2020, 1, 1).plusDays(i % 1000),
        Instant.EPOCH.plusNanos((1_600_000_000_000_000L + i * 1_000_001L) * 1_000L),
        BigDecimal.valueOf(i * 125L, 2),
        i % 4 == 0 ? null : Arrays.asList(i % 5, null));
  }

  /** A row's values, with lists as Java lists. */
  private static List<Object> values(Row row) {
    List<Object> values = new ArrayList<>();
    for (int i = 0; i < row.length(); i++) {
      if (!row.isNullAt(i)
          && row.schema().fields()[i].dataType() instanceof org.apache.spark.sql.types.ArrayType) {
        values.add(new ArrayList<>(row.getList(i)));
      } else {
        values.add(row.get(i));
      }
    }
    return values;
  }

  private static List<String> sorted(Dataset<Row> df) {
    List<String> rows = new ArrayList<>();
    for (Row row : df.collectAsList()) {
      rows.add(values(row).toString());
    }
    rows.sort(null);
    return rows;
  }
}
