package io.flightsql.spark.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.flightsql.spark.client.metadata.TableRef;
import io.flightsql.spark.client.upload.UploadCompression;
import io.flightsql.spark.config.FlightSqlWriteConfig.Atomic;
import io.flightsql.spark.config.FlightSqlWriteConfig.WriteMethod;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class FlightSqlWriteConfigTest {
  private static Map<String, String> options(String... keyValues) {
    Map<String, String> map = new HashMap<>();
    map.put("uri", "grpc://127.0.0.1:31337");
    for (int i = 0; i < keyValues.length; i += 2) {
      map.put(keyValues[i], keyValues[i + 1]);
    }
    return map;
  }

  @Test
  void defaults() {
    FlightSqlWriteConfig config = FlightSqlWriteConfig.from(options("dbtable", "sales"));
    assertThat(config.table()).isEqualTo(new TableRef(null, null, "sales"));
    assertThat(config.method()).isEqualTo(WriteMethod.AUTO);
    assertThat(config.batchRows()).isEqualTo(65536);
    assertThat(config.batchBytes()).isEqualTo(3_145_728L);
    assertThat(config.truncate()).isFalse();
    assertThat(config.atomic()).isEqualTo(Atomic.AUTO);
    assertThat(config.compression()).isEqualTo(UploadCompression.NONE);
    assertThat(config.dialect()).isEmpty();
  }

  @Test
  void compressionIsOneOfTheCodecsInAnyCase() {
    FlightSqlWriteConfig zstd =
        FlightSqlWriteConfig.from(options("dbtable", "t", "compression", "ZSTD"));
    assertThat(zstd.compression()).isEqualTo(UploadCompression.ZSTD);
    assertThat(zstd.toString()).contains(", compression=zstd,");
    assertThat(
            FlightSqlWriteConfig.from(options("dbtable", "t", "compression", "lz4")).compression())
        .isEqualTo(UploadCompression.LZ4);
    assertThatThrownBy(
            () -> FlightSqlWriteConfig.from(options("dbtable", "t", "compression", "gzip")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "Invalid value 'gzip' for option 'compression': expected `none`, `zstd` or `lz4`");
  }

  @Test
  void tableNamesAreDottedAndOptionallyQuoted() {
    assertThat(
            FlightSqlWriteConfig.from(options("dbtable", "main.\"odd \"\"name\".t", "catalog", "c"))
                .table())
        .isEqualTo(new TableRef("main", "odd \"name", "t"));
    assertThat(FlightSqlWriteConfig.from(options("dbtable", "cat.sch.t")).table())
        .isEqualTo(new TableRef("cat", "sch", "t"))
        .hasToString("\"cat\".\"sch\".\"t\"");
    assertThat(FlightSqlWriteConfig.from(options("dbtable", "t", "schema", "s")).table())
        .isEqualTo(new TableRef(null, "s", "t"));
    assertThatThrownBy(() -> FlightSqlWriteConfig.from(options("dbtable", "a..b")))
        .hasMessage(
            "Invalid value 'a..b' for option 'dbtable': expected a table name, optionally"
                + " qualified and quoted in the server's dialect (an empty name part in 'a..b')");
  }

  @Test
  void errorsNameTheOptionAndWhatItExpects() {
    assertThatThrownBy(() -> FlightSqlWriteConfig.from(options()))
        .hasMessageStartingWith("Option 'dbtable' is required to write");
    assertThatThrownBy(() -> FlightSqlWriteConfig.from(options("query", "SELECT 1")))
        .hasMessage(
            "Option 'query' cannot be used to write; name the table to write with 'dbtable'");
    assertThatThrownBy(() -> FlightSqlWriteConfig.from(options("dbtable", "t", "batchSize", "0")))
        .hasMessage(
            "Invalid value '0' for option 'batchSize': expected a positive number of rows (at most 2147483647)");
    assertThatThrownBy(() -> FlightSqlWriteConfig.from(options("dbtable", "t", "atomic", "yes")))
        .hasMessage("Invalid value 'yes' for option 'atomic': expected `auto`, `true` or `false`");
    assertThat(FlightSqlWriteConfig.from(options("dbtable", "t", "atomic", "TRUE")).atomic())
        .isEqualTo(Atomic.TRUE);
    assertThat(FlightSqlWriteConfig.from(options("dbtable", "t", "atomic", "false")).atomic())
        .isEqualTo(Atomic.FALSE);
    assertThatThrownBy(
            () -> FlightSqlWriteConfig.from(options("dbtable", "t", "writeMethod", "copy")))
        .hasMessage(
            "Invalid value 'copy' for option 'writeMethod': expected `auto`, `ingest` or `prepared`");
    assertThat(FlightSqlWriteConfig.from(options("dbtable", "t", "dialect", "SQLite")).dialect())
        .contains("sqlite");
  }
}
