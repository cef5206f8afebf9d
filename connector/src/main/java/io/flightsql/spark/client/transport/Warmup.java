package io.flightsql.spark.client.transport;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.impl.Flight;
import org.apache.arrow.flight.sql.impl.FlightSql;
import org.apache.arrow.vector.types.pojo.Schema;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Initialises, once per JVM and on a daemon thread of its own, what the first call to a server
 * needs but does not wait on: the protobuf descriptors of Flight and Flight SQL, Arrow's schema
 * class (whose static initialiser builds a Jackson object mapper, several hundred classes) and the
 * root allocator; then it loads, without initialising them, the classes that a JVM's first read and
 * write load ({@value #CLASS_LIST}, in the order a first read loaded them: Arrow, gRPC, Netty and
 * protobuf as shaded in the jar, the connector's own, and Spark's data source V2 classes). Class
 * initialisation and loading are thread-safe, so a caller that needs one of these first simply
 * waits for it, or finds it done.
 *
 * <p>Started by the first use of the connector, it runs while that use parses its options and
 * connects; started by {@link io.flightsql.spark.FlightSqlPlugin} when Spark starts, it runs while
 * Spark does, and the first read finds most of its classes loaded. A class of the list that is
 * missing (another Spark version) is skipped.
 *
 * <p>None of the initialised classes' initialisers refers to another of them, so the two threads
 * cannot wait on each other; loading a class runs none of its code.
 */
public final class Warmup {
  private static final Logger LOG = LoggerFactory.getLogger(Warmup.class);
  private static final AtomicBoolean STARTED = new AtomicBoolean();

  /**
   * The classes to load, one name per line in load order, written by {@code
   * io.flightsql.spark.examples.WarmupClassList} (see its javadoc). Names of relocated packages are
   * written unshaded, so that the list serves the connector's classes as tests load them too.
   */
  static final String CLASS_LIST = "warmup-classes.txt";

  /** The names listed in {@link #CLASS_LIST}, in order; empty where the list is missing. */
  public static List<String> listedClasses() throws IOException {
    List<String> names = new ArrayList<>();
    try (InputStream in = Warmup.class.getResourceAsStream(CLASS_LIST)) {
      if (in == null) {
        return names;
      }
      BufferedReader lines = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
      for (String line = lines.readLine(); line != null; line = lines.readLine()) {
        String name = line.trim();
        if (!name.isEmpty() && !name.startsWith("#")) {
          names.add(name);
        }
      }
    }
    return names;
  }

  /** The prefix that shading puts before the relocated packages' names: empty in tests. */
  private static final String SHADED_PREFIX = shadedPrefix();

  /**
   * The relocated packages (the shade plugin's relocations), written with ':' for '.': the shade
   * plugin rewrites string constants that name a relocated package, which would hide them here.
   */
  private static final List<String> RELOCATED =
      dotted(
          "org:apache:arrow:",
          "io:grpc:",
          "io:netty:",
          "io:perfmark:",
          "com:google:",
          "com:fasterxml:jackson:",
          "org:apache:commons:");

  private Warmup() {}

  /** Starts the warm-up unless it already ran in this JVM; returns at once. */
  public static void start() {
    if (!STARTED.compareAndSet(false, true)) {
      return;
    }
    Thread thread = new Thread(Warmup::run, "flightsql-warmup");
    thread.setDaemon(true);
    thread.start();
  }

  private static void run() {
    long start = System.nanoTime();
    try {
      Flight.getDescriptor();
      FlightSql.getDescriptor();
      new Schema(List.of());
      Allocators.allocatedBytes();
    } catch (RuntimeException | LinkageError e) {
      // Whatever failed here fails again, and is reported, where it is really used.
      LOG.debug("Warm-up failed: {}", e.toString());
      return;
    }
    int loaded = loadListedClasses();
    LOG.debug(
        "Warm-up took {} ms, {} classes loaded", (System.nanoTime() - start) / 1_000_000, loaded);
  }

  /**
   * Loads the classes of {@link #CLASS_LIST}; returns how many it found. System property {@code
   * flightsql.warmup.classes=false} turns it off, for the program that writes the list (which must
   * see what a first read loads, not what the list made it load).
   */
  public static int loadListedClasses() {
    if ("false".equals(System.getProperty("flightsql.warmup.classes"))) {
      return 0;
    }
    ClassLoader loader = Warmup.class.getClassLoader();
    int loaded = 0;
    try {
      for (String name : listedClasses()) {
        try {
          Class.forName(runtimeName(name), false, loader);
          loaded++;
        } catch (ClassNotFoundException | LinkageError e) {
          // Not in this Spark, or not loadable here: whoever needs it reports it.
        }
      }
    } catch (IOException | RuntimeException e) {
      LOG.debug("Warm-up stopped loading classes: {}", e.toString());
    }
    return loaded;
  }

  /** A listed class's name as this jar knows it: relocated packages get the shaded prefix. */
  public static String runtimeName(String listed) {
    if (!SHADED_PREFIX.isEmpty()) {
      for (String root : RELOCATED) {
        if (listed.startsWith(root)) {
          return SHADED_PREFIX + listed;
        }
      }
    }
    return listed;
  }

  /** The shaded prefix, told by the name of a relocated class as this jar holds it. */
  private static String shadedPrefix() {
    String name = FlightClient.class.getName();
    String unshaded = "org:apache:arrow:flight:FlightClient".replace(':', '.');
    return name.endsWith(unshaded) ? name.substring(0, name.length() - unshaded.length()) : "";
  }

  private static List<String> dotted(String... names) {
    String[] dotted = new String[names.length];
    for (int i = 0; i < names.length; i++) {
      dotted[i] = names[i].replace(':', '.');
    }
    return List.of(dotted);
  }
}
