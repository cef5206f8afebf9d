package io.flightsql.spark.client.transport;

import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.arrow.flight.impl.Flight;
import org.apache.arrow.flight.sql.impl.FlightSql;
import org.apache.arrow.vector.types.pojo.Schema;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Initialises, once per JVM and on a daemon thread of its own, what the first call to a server
 * needs but does not wait on: the protobuf descriptors of Flight and Flight SQL, Arrow's schema
 * class (whose static initialiser builds a Jackson object mapper, several hundred classes) and the
 * root allocator. Started by the first use of the connector, it runs while that use parses its
 * options and connects, which took about 0.14 s off the first read of a JVM in the performance
 * benchmark. Class initialisation is thread-safe, so a caller that needs one of these first simply
 * waits for it.
 *
 * <p>None of these classes' initialisers refers to another of them, so the two threads cannot wait
 * on each other.
 */
public final class Warmup {
  private static final Logger LOG = LoggerFactory.getLogger(Warmup.class);
  private static final AtomicBoolean STARTED = new AtomicBoolean();

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
    LOG.debug("Warm-up took {} ms", (System.nanoTime() - start) / 1_000_000);
  }
}
