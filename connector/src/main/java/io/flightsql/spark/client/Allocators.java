package io.flightsql.spark.client;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;

/**
 * The one Arrow root allocator of this JVM. Every user of Arrow memory takes a named child of it
 * and closes that child when done; closing a child with outstanding buffers fails loudly, which is
 * how leaks are caught.
 */
public final class Allocators {
  private static final RootAllocator ROOT = new RootAllocator(Long.MAX_VALUE);

  private Allocators() {}

  public static BufferAllocator newChild(String name) {
    return ROOT.newChildAllocator(name, 0, Long.MAX_VALUE);
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

  /** Children still open, for leak reports in tests. */
  public static int openChildren() {
    return ROOT.getChildAllocators().size();
  }
}
