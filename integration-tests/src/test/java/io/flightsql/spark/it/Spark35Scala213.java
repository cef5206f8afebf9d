package io.flightsql.spark.it;

import static org.junit.jupiter.api.Assertions.fail;

import io.flightsql.spark.servers.PythonVirtualenv;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.stream.Stream;

/**
 * A Spark home of Spark 3.5 built for Scala 2.13, which pip does not ship (PyPI's PySpark 3.5 is
 * the Scala 2.12 build): its {@code jars/} are Maven Central's {@code spark-sql_2.13} and what it
 * depends on, as resolved by the module {@code compat/spark-3.5-scala-2.13} (the class path file
 * that Failsafe passes as {@code flightsql.spark35Scala213Classpath}), and its {@code bin/} is pip
 * PySpark 3.5's. With {@code SPARK_HOME} pointing here, that PySpark's {@code spark-submit} runs
 * its own Python on the Scala 2.13 JVM side, since both are Spark 3.5.
 */
final class Spark35Scala213 {
  private Spark35Scala213() {}

  /** Makes (again) {@code target/spark-3.5-scala-2.13} from the class path file and the venv. */
  static synchronized Path sparkHome(PythonVirtualenv pyspark35) throws IOException {
    String configured = System.getProperty("flightsql.spark35Scala213Classpath");
    if (configured == null) {
      fail("System property 'flightsql.spark35Scala213Classpath' is not set; run through Maven");
    }
    Path classpathFile = Paths.get(configured);
    if (!Files.isRegularFile(classpathFile)) {
      fail(
          classpathFile
              + " does not exist: build the module compat/spark-3.5-scala-2.13 first (mvn -pl"
              + " integration-tests -am verify does)");
    }
    String classpath = Files.readString(classpathFile, StandardCharsets.UTF_8).strip();
    Path home = TestPaths.buildDir().resolve("spark-3.5-scala-2.13");
    deleteTree(home);
    Path jars = Files.createDirectories(home.resolve("jars"));
    for (String entry : classpath.split(java.io.File.pathSeparator)) {
      Path jar = Paths.get(entry);
      Files.createSymbolicLink(jars.resolve(jar.getFileName()), jar);
    }
    Files.createSymbolicLink(home.resolve("bin"), pysparkPackage(pyspark35).resolve("bin"));
    return home;
  }

  private static Path pysparkPackage(PythonVirtualenv venv) throws IOException {
    try (Stream<Path> pythons = Files.list(venv.home().resolve("lib"))) {
      for (Path python : pythons.toList()) {
        Path pyspark = python.resolve("site-packages/pyspark");
        if (Files.isDirectory(pyspark.resolve("bin"))) {
          return pyspark;
        }
      }
    }
    return fail("No site-packages/pyspark/bin in " + venv.home());
  }

  private static void deleteTree(Path dir) throws IOException {
    if (!Files.exists(dir, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(dir)) {
      for (Path path : paths.sorted((a, b) -> b.getNameCount() - a.getNameCount()).toList()) {
        Files.delete(path);
      }
    }
  }
}
