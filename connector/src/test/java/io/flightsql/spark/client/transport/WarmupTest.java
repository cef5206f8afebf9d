package io.flightsql.spark.client.transport;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The warm-up's class list is the one {@code WarmupClassList} wrote, and it loads here, where the
 * connector's classes are not shaded: a list that names classes this build does not have (written
 * by another build, or mangled by the shade plugin) would load few of them.
 */
class WarmupTest {
  @Test
  void theListNamesTheClassesOfAFirstReadAndWrite() throws Exception {
    List<String> listed = Warmup.listedClasses();

    assertThat(listed).hasSizeGreaterThan(1_000);
    assertThat(listed)
        .contains(
            "io.flightsql.spark.FlightSqlDataSource",
            "io.flightsql.spark.read.FlightSqlPartitionReader",
            "io.flightsql.spark.write.FlightSqlDataWriter",
            "org.apache.arrow.flight.FlightClient",
            "io.grpc.netty.NettyChannelBuilder");
    assertThat(listed).noneMatch(name -> name.startsWith("io.flightsql.spark.shaded."));
  }

  @Test
  void unshadedClassesKeepTheirNames() {
    assertThat(Warmup.runtimeName("org.apache.arrow.flight.FlightClient"))
        .isEqualTo("org.apache.arrow.flight.FlightClient");
    assertThat(Warmup.runtimeName("org.apache.spark.sql.execution.ColumnarToRowExec"))
        .isEqualTo("org.apache.spark.sql.execution.ColumnarToRowExec");
  }

  @Test
  void nearlyEveryListedClassLoads() throws Exception {
    int listed = Warmup.listedClasses().size();

    int loaded = Warmup.loadListedClasses();

    assertThat(loaded).as("classes loaded of %d listed", listed).isGreaterThan(listed * 9 / 10);
  }
}
