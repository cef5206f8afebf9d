package io.flightsql.spark.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.flightsql.spark.FlightSqlDataSource;
import io.flightsql.spark.client.transport.Allocators;
import io.flightsql.spark.client.transport.Warmup;
import java.io.InputStream;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.ServiceLoader;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import org.apache.spark.sql.sources.DataSourceRegister;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Guards what every other integration test relies on: the connector on this classpath is the shaded
 * jar users download, not the connector's class directory, and it works next to the unshaded Arrow,
 * Flight and gRPC that the in-process servers bring along.
 */
class ShadedJarIT {
  private static final String RELOCATED_FLIGHT_CLIENT =
      "io/flightsql/spark/shaded/org/apache/arrow/flight/FlightClient.class";

  private static final String SHADED = "io.flightsql.spark.shaded";

  /** Where Netty's Version looks for the versions of the Netty jars it runs with. */
  private static final String NETTY_VERSIONS = "META-INF/io.netty.versions.properties";

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

  /**
   * The warm-up's list names relocated classes unshaded; in the shaded jar each must be found under
   * the shaded prefix, or the warm-up would load almost nothing.
   */
  @Test
  void theWarmUpLoadsItsClassesUnderTheirShadedNames() throws Exception {
    int listed = Warmup.listedClasses().size();

    int loaded = Warmup.loadListedClasses();

    assertThat(Warmup.runtimeName("org.apache.arrow.flight.FlightClient"))
        .isEqualTo(RELOCATED_FLIGHT_CLIENT.replace('/', '.').replace(".class", ""));
    assertThat(loaded).as("classes loaded of %d listed", listed).isGreaterThan(listed * 9 / 10);
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

  /**
   * The relocated Netty must report its own version even where the context class loader also sees
   * the versions file of another, unshaded Netty, as under Spark 3.5 (Netty 4.1.96): gRPC reads
   * that version once per JVM to decide whether to install its NettyAdaptiveCumulator, which on
   * Netty 4.1.111 and later puts HTTP/2 frame bytes into gRPC messages. Under Spark 3.5 the first
   * read after a write then failed with "INTERNAL: Encountered end-of-stream mid-frame". Runs the
   * relocated classes in a class loader of their own, because that decision is made once.
   */
  @Test
  void relocatedGrpcGoesByTheRelocatedNettyVersionNotSparks(@TempDir Path dir) throws Exception {
    Path sparksNetty = dir.resolve(NETTY_VERSIONS);
    Files.createDirectories(sparksNetty.getParent());
    Files.writeString(
        sparksNetty,
        // Netty's Version skips an artifact unless all six of its entries are there.
        "netty-buffer.version=4.1.96.Final\n"
            + "netty-buffer.buildDate=2023-07-27 15\\:34\\:41 +0200\n"
            + "netty-buffer.commitDate=2023-07-27 10\\:58\\:18 +0000\n"
            + "netty-buffer.shortCommitHash=3bd421cf95\n"
            + "netty-buffer.longCommitHash=3bd421cf9525d3b3f8de2a9f649dceb14c87eccf\n"
            + "netty-buffer.repoStatus=clean\n");
    Path jar = TestPaths.shadedJar();
    Object reported;
    boolean adaptiveCumulator;
    Thread thread = Thread.currentThread();
    ClassLoader previous = thread.getContextClassLoader();
    try (URLClassLoader loader =
        new URLClassLoader(
            new URL[] {dir.toUri().toURL(), jar.toUri().toURL()},
            ClassLoader.getPlatformClassLoader())) {
      thread.setContextClassLoader(loader);
      Class<?> version = Class.forName(SHADED + ".io.netty.util.Version", true, loader);
      Object buffer = ((Map<?, ?>) version.getMethod("identify").invoke(null)).get("netty-buffer");
      reported = buffer == null ? null : version.getMethod("artifactVersion").invoke(buffer);
      Class<?> handler =
          Class.forName(SHADED + ".io.grpc.netty.GrpcHttp2ConnectionHandler", true, loader);
      Method preNetty4111 = handler.getDeclaredMethod("usingPre4_1_111_Netty");
      preNetty4111.setAccessible(true);
      adaptiveCumulator = (Boolean) preNetty4111.invoke(null);
    } finally {
      thread.setContextClassLoader(previous);
    }

    assertThat(adaptiveCumulator)
        .as(
            "gRPC installs its adaptive cumulator (the relocated Netty reports netty-buffer %s)",
            reported)
        .isFalse();
    assertThat(reported)
        .as("the netty-buffer version the relocated Netty reports")
        .isEqualTo(bundledNettyBufferVersion(jar));
  }

  /** The netty-buffer version in the relocated versions file the shaded jar carries. */
  private static String bundledNettyBufferVersion(Path jar) throws Exception {
    String name = "META-INF/" + SHADED + ".io.netty.versions.properties";
    try (JarFile file = new JarFile(jar.toFile())) {
      JarEntry entry = file.getJarEntry(name);
      assertThat(entry).as(name + " in " + jar).isNotNull();
      Properties versions = new Properties();
      try (InputStream in = file.getInputStream(entry)) {
        versions.load(in);
      }
      String buffer = versions.getProperty("netty-buffer.version");
      assertThat(buffer).as("netty-buffer.version in " + name).isNotNull();
      return buffer;
    }
  }

  private static Path codeSource(Class<?> type) throws Exception {
    URL location = type.getProtectionDomain().getCodeSource().getLocation();
    return Paths.get(location.toURI());
  }
}
