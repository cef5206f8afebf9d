package io.flightsql.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.flightsql.spark.client.transport.Allocators;
import io.flightsql.spark.testing.ArrowLeakCheckExtension;
import io.flightsql.spark.testing.EmbeddedServerExtension;
import io.flightsql.spark.testing.HandBuiltFlightSqlServer;
import io.flightsql.spark.testing.SparkSessionExtension;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A record batch larger than a read can hold fails its task with a message naming the option that
 * bounds it and the batch's size, instead of the executor growing until it is killed: a batch over
 * option {@code maxInboundMessageSize} (gRPC refuses the message) and one over option {@code
 * taskMemoryLimit} (the task's Arrow allocator refuses it), and a row a write task cannot hold.
 * Each leaves no Arrow memory behind, and the next read or write in the same Spark session works.
 * The servers are real Flight servers: one sending one 4 MiB record batch, and the embedded DuckDB
 * one for writes.
 */
@ExtendWith(ArrowLeakCheckExtension.class)
class MemoryLimitsTest {
  private static final int ROWS = 512 * 1024;
  private static final long BODY_BYTES = ROWS * 8L;
  private static final int ONE_MIB = 1024 * 1024;

  @RegisterExtension
  @Order(1)
  static final EmbeddedServerExtension duckDb =
      EmbeddedServerExtension.duckDb(server -> server.port(0).lineitemRows(0));

  @RegisterExtension
  @Order(2)
  static final SparkSessionExtension spark = SparkSessionExtension.local();

  private static HandBuiltFlightSqlServer server;

  @BeforeAll
  static void start() {
    server = HandBuiltFlightSqlServer.start();
    Schema schema = new Schema(List.of(Field.notNullable("id", new ArrowType.Int(64, true))));
    try (BufferAllocator allocator = new RootAllocator();
        VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator)) {
      BigIntVector id = (BigIntVector) root.getVector(0);
      id.allocateNew(ROWS);
      for (int i = 0; i < ROWS; i++) {
        id.set(i, i);
      }
      root.setRowCount(ROWS);
      server.dataset("big", schema).batch(root).register();
    }
  }

  @AfterAll
  static void stop() {
    if (server != null) {
      server.close();
    }
  }

  private static List<Row> read(Map<String, String> options) {
    return spark
        .session()
        .read()
        .format("flightsql")
        .option("uri", server.uri())
        .option("query", "big")
        .options(options)
        .load()
        .collectAsList();
  }

  @Test
  void aBatchOverMaxInboundMessageSizeFailsTheTaskNamingTheOptionAndTheSize() {
    assertThatThrownBy(() -> read(Map.of("maxInboundMessageSize", String.valueOf(ONE_MIB))))
        .hasMessageContaining(
            "[flightsql] DoGet failed for " + server.uri() + ": RESOURCE_EXHAUSTED")
        .hasMessageMatching(
            "(?s).*A record batch of \\d+ bytes is larger than option 'maxInboundMessageSize'"
                + " \\(1048576 bytes\\): raise the option.*");
    assertThat(read(Map.of())).hasSize(ROWS);
  }

  @Test
  void aBatchOverTaskMemoryLimitFailsTheTaskNamingTheOptionAndTheSize() {
    assertThatThrownBy(() -> read(Map.of("taskMemoryLimit", String.valueOf(ONE_MIB))))
        .hasMessageContaining(
            "[flightsql] DoGet failed for " + server.uri() + ": RESOURCE_EXHAUSTED")
        .hasMessageMatching("(?s).*a record batch needs \\d+ bytes of Arrow memory.*")
        .satisfies(
            e -> {
              Matcher needed = Pattern.compile("needs (\\d+) bytes").matcher(e.getMessage());
              assertThat(needed.find()).isTrue();
              // The batch's values and validity bitmap, in one buffer.
              assertThat(Long.parseLong(needed.group(1)))
                  .isBetween(BODY_BYTES, BODY_BYTES + ONE_MIB);
            })
        .hasMessageContaining("of its limit of 1048576 bytes (option 'taskMemoryLimit')")
        .hasMessageContaining("Raise option 'taskMemoryLimit'");
    assertThat(read(Map.of())).hasSize(ROWS);
  }

  @Test
  void aRowOverTaskMemoryLimitFailsTheWriteTaskNamingTheOption() {
    Dataset<Row> wide = spark.session().sql("SELECT 1 AS id, repeat('x', 4194304) AS s");
    assertThatThrownBy(
            () ->
                wide.write()
                    .format("flightsql")
                    .option("uri", duckDb.uri())
                    .option("dbtable", "wide_rows")
                    .option("taskMemoryLimit", String.valueOf(ONE_MIB))
                    .mode("append")
                    .save())
        .hasMessageContaining(
            "[flightsql] Building a record batch to send failed for "
                + duckDb.uri()
                + ": RESOURCE_EXHAUSTED: a record batch needs")
        .hasMessageContaining("of its limit of 1048576 bytes (option 'taskMemoryLimit')");

    wide.write()
        .format("flightsql")
        .option("uri", duckDb.uri())
        .option("dbtable", "wide_rows")
        .mode("append")
        .save();
    assertThat(
            spark
                .session()
                .read()
                .format("flightsql")
                .option("uri", duckDb.uri())
                .option("query", "SELECT length(s) AS n FROM wide_rows")
                .load()
                .collectAsList())
        .extracting(r -> r.getLong(0))
        .containsExactly(4194304L);
  }

  @Test
  void theDefaultLimitOfATaskIsAnEighthOfTheHeapAndAtLeast64MiB() {
    assertThat(Allocators.defaultLimit())
        .isEqualTo(Math.max(64L * ONE_MIB, Runtime.getRuntime().maxMemory() / 8));
  }
}
