package io.flightsql.spark.it;

import io.flightsql.spark.servers.ServerPaths;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;

/**
 * Where the tests find the build and put what they write. Failsafe passes the locations as system
 * properties (see this module's pom); the defaults serve a run from an IDE whose working directory
 * is this module.
 */
final class TestPaths {
  private TestPaths() {}

  /** This module's {@code target/} directory: logs, databases and other files the tests write. */
  static Path buildDir() {
    Path dir = Paths.get(System.getProperty("flightsql.buildDir", "target")).toAbsolutePath();
    try {
      return Files.createDirectories(dir);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot create " + dir, e);
    }
  }

  /** The repository's root directory. */
  static Path repoRoot() {
    return Paths.get(System.getProperty("flightsql.repoRoot", "..")).toAbsolutePath().normalize();
  }

  /** The connector's shaded jar, as built by the {@code connector} module. */
  static Path shadedJar() {
    String configured = System.getProperty("flightsql.shadedJar");
    if (configured == null) {
      throw new IllegalStateException(
          "System property 'flightsql.shadedJar' is not set; run the integration tests through"
              + " Maven (mvn -pl integration-tests -am verify), which sets it");
    }
    Path jar = Paths.get(configured).toAbsolutePath().normalize();
    if (!Files.isRegularFile(jar)) {
      throw new IllegalStateException(
          "The connector's shaded jar "
              + jar
              + " does not exist; build it first (mvn -pl connector -am package -DskipTests)");
    }
    return jar;
  }

  /** Deletes {@code dir} and everything under it, if it exists. */
  static void deleteTree(Path dir) throws IOException {
    ServerPaths.deleteTree(dir);
  }

  /**
   * The spark-flightsql wheel, as built by the {@code python} module into {@code
   * python/target/dist}: the one {@code spark_flightsql-*.whl} there.
   */
  static Path wheel() {
    String configured = System.getProperty("flightsql.wheelDir");
    if (configured == null) {
      throw new IllegalStateException(
          "System property 'flightsql.wheelDir' is not set; run the integration tests through"
              + " Maven (mvn -pl integration-tests -am verify), which sets it");
    }
    Path dir = Paths.get(configured).toAbsolutePath().normalize();
    List<Path> wheels = new ArrayList<>();
    if (Files.isDirectory(dir)) {
      try (DirectoryStream<Path> found = Files.newDirectoryStream(dir, "spark_flightsql-*.whl")) {
        found.forEach(wheels::add);
      } catch (IOException e) {
        throw new UncheckedIOException("Cannot list " + dir, e);
      }
    }
    if (wheels.size() != 1) {
      throw new IllegalStateException(
          "Expected one spark_flightsql wheel in "
              + dir
              + ", found "
              + wheels
              + "; build it first (mvn -pl python -am package -DskipTests, with python3 on the"
              + " PATH)");
    }
    return wheels.get(0);
  }

  /** The per-user cache of what the tests download or build once ({@link ServerPaths}). */
  static Path userCache() {
    return ServerPaths.userCache();
  }
}
