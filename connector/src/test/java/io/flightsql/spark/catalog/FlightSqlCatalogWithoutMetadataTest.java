package io.flightsql.spark.catalog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.flightsql.spark.testing.ArrowLeakCheckExtension;
import io.flightsql.spark.testing.HandBuiltFlightSqlServer;
import io.flightsql.spark.testing.SparkSessionExtension;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The catalog over a server that answers queries only (the hand-built server: GetSqlInfo,
 * GetCatalogs, GetDbSchemas and GetTables all UNIMPLEMENTED): no namespaces, a clear error for SHOW
 * TABLES, and tables still described and read by name through a query that returns no row.
 */
@ExtendWith(ArrowLeakCheckExtension.class)
class FlightSqlCatalogWithoutMetadataTest {
  private static final Schema IDS =
      new Schema(
          List.of(new Field("id", FieldType.notNullable(new ArrowType.Int(32, true)), null)));

  @RegisterExtension static final SparkSessionExtension spark = SparkSessionExtension.local();

  private static HandBuiltFlightSqlServer server;

  @BeforeAll
  static void start() {
    server = HandBuiltFlightSqlServer.start();
    try (BufferAllocator allocator = new RootAllocator();
        VectorSchemaRoot root = VectorSchemaRoot.create(IDS, allocator)) {
      server.dataset("SELECT * FROM \"numbers\" WHERE 1 = 0", IDS).register();
      root.allocateNew();
      IntVector ids = (IntVector) root.getVector(0);
      ids.setSafe(0, 7);
      ids.setSafe(1, 8);
      root.setRowCount(2);
      server.dataset("SELECT * FROM \"numbers\"", IDS).batch(root).register();
      server.dataset("SELECT \"id\" FROM \"numbers\"", IDS).batch(root).register();
    }
    SparkSession session = spark.session();
    session.conf().set("spark.sql.catalog.bare", "io.flightsql.spark.FlightSqlCatalog");
    session.conf().set("spark.sql.catalog.bare.uri", server.uri());
  }

  @AfterAll
  static void stop() {
    if (server != null) {
      server.close();
    }
  }

  @Test
  void namespacesAreNoneAndShowTablesSaysWhy() {
    assertThat(spark.session().sql("SHOW NAMESPACES IN bare").collectAsList()).isEmpty();
    assertThatThrownBy(() -> spark.session().sql("SHOW TABLES IN bare").collect())
        .hasMessageContaining("does not list its tables (GetTables is UNIMPLEMENTED)")
        .hasMessageContaining("Tables can still be read by name");
  }

  @Test
  void aTableIsDescribedAndReadByNameThroughAProbeQuery() {
    List<String> described = new ArrayList<>();
    for (Row row : spark.session().sql("DESCRIBE TABLE bare.numbers").collectAsList()) {
      described.add(row.getString(0) + " " + row.getString(1));
    }
    assertThat(described).startsWith("id int");
    List<Integer> ids = new ArrayList<>();
    for (Row row : spark.session().sql("SELECT * FROM bare.numbers").collectAsList()) {
      ids.add(row.getInt(0));
    }
    assertThat(ids).containsExactly(7, 8);
    assertThatThrownBy(() -> spark.session().sql("SELECT * FROM bare.missing").collect())
        .hasMessageContaining("missing");
  }
}
