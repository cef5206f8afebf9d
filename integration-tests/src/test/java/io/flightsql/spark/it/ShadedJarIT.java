package io.flightsql.spark.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.flightsql.spark.FlightSqlDataSource;
import io.flightsql.spark.client.Allocators;
import java.net.URL;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.ServiceLoader;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import org.apache.spark.sql.sources.DataSourceRegister;
import org.junit.jupiter.api.Test;

/**
 * Guards what every other integration test relies on: the connector on this classpath is the shaded
 * jar users download, not the connector's class directory, and it works next to the unshaded Arrow,
 * Flight and gRPC that the in-process servers bring along.
 */
class ShadedJarIT {
  private static final String RELOCATED_FLIGHT_CLIENT =
      "io/flightsql/spark/shaded/org/apache/arrow/flight/FlightClient.class";

  @Test
  void connectorClassesComeFromTheShadedJar() throws Exception {
    Path jar = codeSource(FlightSqlDataSource.class);

    assertThat(jar.getFileName().toString()).endsWith(".jar");
    List<String> escaped = new ArrayList<>();
    try (JarFile file = new JarFile(jar.toFile())) {
      assertThat(file.getEntry(RELOCATED_FLIGHT_CLIENT)).as(RELOCATED_FLIGHT_CLIENT).isNotNull();
      for (JarEntry entry : file.stream().toList()) {
        String name = entry.getName();
        if (name.endsWith(".class") && !name.startsWith("io/flightsql/spark/")) {
          escaped.add(name);
        }
      }
    }
    assertThat(escaped).as("classes outside io/flightsql/spark/ in " + jar).isEmpty();
  }

  @Test
  void relocatedAndUnshadedArrowLoadSideBySide() throws Exception {
    Class<?> relocated =
        Class.forName(RELOCATED_FLIGHT_CLIENT.replace('/', '.').replace(".class", ""));
    Class<?> unshaded = Class.forName("org.apache.arrow.flight.FlightClient");

    assertThat(codeSource(relocated)).isEqualTo(codeSource(FlightSqlDataSource.class));
    assertThat(codeSource(unshaded))
        .as("the unshaded Flight client the servers use")
        .isNotEqualTo(codeSource(FlightSqlDataSource.class));
    // Creates the connector's relocated root allocator, whose memory manager must be found among
    // the relocated classes even though unshaded Arrow memory managers are on the classpath too.
    assertThat(Allocators.allocatedBytes()).isZero();
  }

  @Test
  void sparkFindsTheConnectorByItsShortName() {
    List<String> flightsql = new ArrayList<>();
    for (DataSourceRegister source : ServiceLoader.load(DataSourceRegister.class)) {
      if (source.shortName().equals("flightsql")) {
        flightsql.add(source.getClass().getName());
      }
    }

    assertThat(flightsql).containsExactly(FlightSqlDataSource.class.getName());
  }

  private static Path codeSource(Class<?> type) throws Exception {
    URL location = type.getProtectionDomain().getCodeSource().getLocation();
    return Paths.get(location.toURI());
  }
}
