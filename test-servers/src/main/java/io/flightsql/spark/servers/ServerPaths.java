package io.flightsql.spark.servers;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * Where the servers' launchers keep what they build once and what they write each run: the user
 * cache for Go binaries and virtualenvs, shared by every build on the machine, and the build
 * directory for logs and databases. The integration tests' Failsafe names the build directory with
 * system property {@code flightsql.buildDir}; a benchmark run by {@code exec:exec} from its module
 * uses that module's {@code target/}.
 */
public final class ServerPaths {
  private ServerPaths() {}

  /** The build's {@code target/} directory, created if missing. */
  public static Path buildDir() {
    Path dir = Paths.get(System.getProperty("flightsql.buildDir", "target")).toAbsolutePath();
    try {
      return Files.createDirectories(dir);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot create " + dir, e);
    }
  }

  /**
   * A per-user cache for what is downloaded or built once: Go binaries, virtualenvs. It is {@code
   * $HOME/.cache/spark-flightsql}; the JVM's {@code user.home} comes from the password database
   * instead, which ignores a HOME set for the build.
   */
  public static Path userCache() {
    String home = System.getenv("HOME");
    if (home == null || home.isBlank()) {
      home = System.getProperty("user.home");
    }
    return Paths.get(home, ".cache", "spark-flightsql");
  }

  /** Deletes {@code dir} and everything under it, if it exists. */
  public static void deleteTree(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(dir)) {
      for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(path);
      }
    }
  }
}
