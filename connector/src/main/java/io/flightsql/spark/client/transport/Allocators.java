package io.flightsql.spark.client.transport;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAccumulator;
import java.util.regex.Pattern;
import org.apache.arrow.memory.AllocationListener;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.memory.rounding.SegmentRoundingPolicy;

/**
 * The one Arrow root allocator of this JVM. Every user of Arrow memory takes a named child of it
 * and closes that child when done; closing a child with outstanding buffers fails loudly, which is
 * how leaks are caught.
 *
 * <p>Both are bounded by what the JVM can hold, so that an oversized record batch fails its task
 * with Arrow's {@code OutOfMemoryException} (which {@link FlightErrors} turns into a message naming
 * option {@code taskMemoryLimit}) instead of growing the process until the executor's container is
 * killed: the root by the JVM's maximum heap, which is also the JVM's default bound on direct
 * memory ({@code -XX:MaxDirectMemorySize}); each child by option {@code taskMemoryLimit}, by
 * default an eighth of that, at least 64 MiB.
 */
public final class Allocators {
  /**
   * Buffers are rounded up to a multiple of 4 KiB, not to a power of two as by Arrow's default: a
   * record batch received from the server is one buffer of the size of its message body, and
   * rounding 9 MiB up to 16 MiB would make each batch that a partition holds take up to twice its
   * size (the unsafe allocation manager allocates exactly the rounded size).
   */
  private static final RootAllocator ROOT =
      new RootAllocator(
          AllocationListener.NOOP,
          Runtime.getRuntime().maxMemory(),
          new SegmentRoundingPolicy(4096L));

  /** The least default limit of a child, for JVMs with a small heap. */
  private static final long LEAST_DEFAULT_LIMIT = 64L * 1024 * 1024;

  static {
    // Every stream receives into a child of this root, so the codecs are known before any batch.
    CompressionCodecs.load();
  }

  /** The numbers that tell one partition or task from another in a child's name. */
  private static final Pattern NUMBERS = Pattern.compile("(-\\d+)+$");

  /** The largest peak of any closed child, by kind (its name without numbers). */
  private static final Map<String, LongAccumulator> LARGEST_PEAKS = new ConcurrentHashMap<>();

  private Allocators() {}

  /** A child that may hold the default limit ({@link #defaultLimit()}). */
  public static BufferAllocator newChild(String name) {
    return newChild(name, 0);
  }

  /**
   * A child that may hold at most {@code limit} bytes (option {@code taskMemoryLimit}); 0 for the
   * default.
   */
  public static BufferAllocator newChild(String name, long limit) {
    return ROOT.newChildAllocator(name, 0, limit > 0 ? limit : defaultLimit());
  }

  /** An eighth of the JVM's maximum heap, at least 64 MiB: the default limit of a child. */
  public static long defaultLimit() {
    return Math.max(LEAST_DEFAULT_LIMIT, ROOT.getLimit() / 8);
  }

  /** Bytes currently allocated by every child; a test's leak check reads it. */
  public static long allocatedBytes() {
    return ROOT.getAllocatedMemory();
  }

  /**
   * The most bytes allocated at once since this JVM loaded the connector, for figures printed by
   * tests and benchmarks.
   */
  public static long peakBytes() {
    return ROOT.getPeakMemoryAllocation();
  }

  /**
   * Notes the peak of a child about to be closed, under its kind: its name without the numbers of
   * its partition or task, so that {@code flightsql-partition-3} counts as {@code
   * flightsql-partition} and {@code flightsql-write-0-12} as {@code flightsql-write}.
   */
  public static void noteClosing(BufferAllocator child) {
    String kind = NUMBERS.matcher(child.getName()).replaceFirst("");
    LARGEST_PEAKS
        .computeIfAbsent(kind, k -> new LongAccumulator(Math::max, 0))
        .accumulate(child.getPeakMemoryAllocation());
  }

  /**
   * The most bytes any one closed child of this kind held at once, since this JVM loaded the
   * connector or the last {@link #resetLargestPeaks()}; 0 if none closed. Kinds are the children's
   * names without numbers: {@code flightsql-partition} (a read partition), {@code flightsql-write}
   * (a write task), {@code flightsql-plan}. For figures printed by tests and benchmarks.
   */
  public static long largestPeakBytes(String kind) {
    LongAccumulator peak = LARGEST_PEAKS.get(kind);
    return peak == null ? 0 : peak.get();
  }

  /** Forgets every child's peak noted so far. */
  public static void resetLargestPeaks() {
    LARGEST_PEAKS.clear();
  }

  /** Children still open, for leak reports in tests. */
  public static int openChildren() {
    return ROOT.getChildAllocators().size();
  }
}
