package io.flightsql.spark.servers;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import org.opentest4j.AssertionFailedError;

/**
 * A Python virtualenv that the integration tests need, such as one with PySpark 3.5.9 for {@code
 * spark-submit}: made once in {@code ~/.cache/spark-flightsql/<name>} with exactly the packages
 * asked for, and reused while it still holds them. The first run downloads the packages (about 400
 * MB per PySpark) into pip's cache {@code ~/.cache/spark-flightsql/pip}, where pip also keeps the
 * wheel it builds from PySpark's source archive, so a virtualenv made again later installs from the
 * cache without the network.
 *
 * <p>Without {@code python3} the test that asks is skipped, except in CI, where it fails ({@link
 * RequiredTool}).
 */
public final class PythonVirtualenv {
  /** Lists the packages installed, one a line; a virtualenv without it is made again. */
  private static final String MARKER = "spark-flightsql-requirements.txt";

  private static final ConcurrentMap<Path, Object> LOCKS = new ConcurrentHashMap<>();

  /** The virtualenvs this JVM installed the wheel into. */
  private static final Set<Path> WHEEL_INSTALLED = ConcurrentHashMap.newKeySet();

  private final Path home;

  private PythonVirtualenv(Path home) {
    this.home = home;
  }

  /** A virtualenv with PySpark of this exact version and nothing else. */
  public static PythonVirtualenv pyspark(String version) throws IOException, InterruptedException {
    return of("pyspark-" + version, List.of("pyspark==" + version));
  }

  /**
   * The virtualenv {@code ~/.cache/spark-flightsql/<name>} with these requirements (pip's form,
   * such as {@code pandas==2.3.3}): reused when it was made with the same list, made now otherwise.
   * Virtualenvs of different names may be made at the same time.
   */
  public static PythonVirtualenv of(String name, List<String> requirements)
      throws IOException, InterruptedException {
    return at(ServerPaths.userCache().resolve(name), requirements);
  }

  /**
   * The virtualenv of a user who ran {@code pip install} of the built spark-flightsql wheel beside
   * these requirements: {@code target/<name>}, of this build alone (builds of other worktrees
   * install their own wheel), made again after {@code mvn clean} or when the requirements change;
   * the wheel is installed into it once per test JVM, in place of the one before.
   */
  public static PythonVirtualenv withWheel(String name, List<String> requirements, Path wheel)
      throws IOException, InterruptedException {
    Path home = ServerPaths.buildDir().resolve(name);
    synchronized (LOCKS.computeIfAbsent(home, key -> new Object())) {
      PythonVirtualenv venv = makeOrReuse(home, requirements);
      if (WHEEL_INSTALLED.add(home)) {
        venv.installWheel(wheel);
      }
      return venv;
    }
  }

  private static PythonVirtualenv at(Path home, List<String> requirements)
      throws IOException, InterruptedException {
    // Tests that run at the same time (the matrix's cells) may ask for the same virtualenv.
    synchronized (LOCKS.computeIfAbsent(home, key -> new Object())) {
      return makeOrReuse(home, requirements);
    }
  }

  private static PythonVirtualenv makeOrReuse(Path home, List<String> requirements)
      throws IOException, InterruptedException {
    String name = home.getFileName().toString();
    PythonVirtualenv venv = new PythonVirtualenv(home);
    String wanted = String.join("\n", requirements) + "\n";
    Path marker = home.resolve(MARKER);
    if (Files.isExecutable(venv.python())
        && Files.isRegularFile(marker)
        && Files.readString(marker, StandardCharsets.UTF_8).equals(wanted)) {
      return venv;
    }
    Path python =
        RequiredTool.PYTHON3.require("creates the PySpark virtualenvs of the tests in " + home);
    Files.createDirectories(home.getParent());
    Path logs = ServerPaths.buildDir().resolve("venv");
    ExternalCommand.Result create =
        ExternalCommand.run(
            "venv " + name,
            List.of(python.toString(), "-m", "venv", "--clear", home.toString()),
            Map.of(),
            logs.resolve(name + "-create.log"),
            // A hang guard, not an expected time: on two cores shared with the matrix's other
            // cells, each making its own virtualenv, ensurepip took over two minutes.
            Duration.ofMinutes(10));
    if (create.exitCode() != 0) {
      throw new AssertionFailedError("python3 -m venv " + home + " failed:\n" + create.tail(30));
    }
    System.out.println("Installing " + requirements + " into " + home + " (once)");
    List<String> install = new ArrayList<>();
    install.add(home.resolve("bin/pip").toString());
    install.add("install");
    install.add("--disable-pip-version-check");
    install.add("--progress-bar");
    install.add("off");
    install.add("--cache-dir");
    install.add(pipCache().toString());
    install.addAll(requirements);
    ExternalCommand.Result installed =
        ExternalCommand.run(
            "pip " + name,
            install,
            Map.of(),
            logs.resolve(name + "-install.log"),
            Duration.ofMinutes(20));
    if (installed.exitCode() != 0) {
      throw new AssertionFailedError(
          "pip install " + requirements + " into " + home + " failed:\n" + installed.tail(30));
    }
    Files.writeString(marker, wanted, StandardCharsets.UTF_8);
    return venv;
  }

  /**
   * Installs the spark-flightsql wheel ({@code wheel}) as a user does, with pip, in place of the
   * one installed before; its requirements (none but PySpark, which the virtualenv has) are not
   * touched.
   */
  private void installWheel(Path wheel) throws IOException, InterruptedException {
    String name = home.getFileName().toString();
    ExternalCommand.Result installed =
        ExternalCommand.run(
            "pip wheel " + name,
            List.of(
                bin("pip").toString(),
                "install",
                "--disable-pip-version-check",
                "--progress-bar",
                "off",
                "--no-deps",
                "--force-reinstall",
                wheel.toString()),
            Map.of(),
            ServerPaths.buildDir().resolve("venv").resolve(name + "-wheel.log"),
            Duration.ofMinutes(2));
    if (installed.exitCode() != 0) {
      throw new AssertionFailedError(
          "pip install " + wheel + " into " + home + " failed:\n" + installed.tail(30));
    }
  }

  /** pip's download and wheel cache, shared by every virtualenv of the tests. */
  public static Path pipCache() {
    return ServerPaths.userCache().resolve("pip");
  }

  public Path home() {
    return home;
  }

  public Path python() {
    return bin("python");
  }

  /** A program of the virtualenv, such as {@code spark-submit} or {@code spark-class}. */
  public Path bin(String program) {
    return home.resolve("bin").resolve(program);
  }

  /**
   * The environment for PySpark's programs from this virtualenv: this JVM's Java, the virtualenv's
   * Python for the driver and the workers, and Spark bound to the loopback interface.
   */
  public Map<String, String> sparkEnvironment() {
    Map<String, String> environment = new LinkedHashMap<>();
    environment.put("JAVA_HOME", System.getProperty("java.home"));
    environment.put("PYSPARK_PYTHON", python().toString());
    environment.put("PYSPARK_DRIVER_PYTHON", python().toString());
    environment.put("SPARK_LOCAL_IP", FreePorts.LOOPBACK);
    environment.put("PATH", home.resolve("bin") + ":" + System.getenv().getOrDefault("PATH", ""));
    environment.put("VIRTUAL_ENV", home.toString());
    environment.put("SPARK_CONF_DIR", sparkConfDir().toString());
    return environment;
  }

  /**
   * Spark's configuration for every Spark the tests start from a virtualenv: PySpark's driver
   * connects to a socket of its JVM for each {@code collect()}, which the JVM closes after {@code
   * spark.python.authenticate.socketTimeout} (15 s by default) without a connection; on two cores
   * busy with several Spark processes the Python side took longer ({@code [CANNOT_OPEN_SOCKET]}).
   * The driver's JVM compiles with C1 only, as the build's test JVMs do: a quarter less CPU for a
   * cell of the version matrix.
   */
  private static synchronized Path sparkConfDir() {
    Path dir = ServerPaths.buildDir().resolve("spark-conf");
    try {
      Files.createDirectories(dir);
      Files.writeString(
          dir.resolve("spark-defaults.conf"),
          "spark.python.authenticate.socketTimeout 300s\n"
              + "spark.driver.defaultJavaOptions -XX:TieredStopAtLevel=1\n",
          StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("Writing " + dir, e);
    }
    return dir;
  }
}
