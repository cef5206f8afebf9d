package io.flightsql.spark.client.transport;

import java.util.IdentityHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.OutOfMemoryException;

/**
 * What to tell a user whose record batch did not fit: in the Arrow memory of its task or JVM
 * ({@link Allocators}, option {@code taskMemoryLimit}), or in a gRPC message (option {@code
 * maxInboundMessageSize}). For {@link FlightErrors}.
 */
final class MemoryLimits {
  /** Arrow's words: "Unable to allocate buffer of size 4194304 (rounded from ...) due to ...". */
  private static final Pattern ARROW_SIZE = Pattern.compile("buffer of size (\\d+)");

  /** grpc-java's words: "gRPC message exceeds maximum size 1048576: 4194404". */
  private static final Pattern GRPC_SIZE = Pattern.compile("exceeds maximum size (\\d+): (\\d+)");

  private MemoryLimits() {}

  /** The allocator limit that {@code t} or one of its causes hit, or null. */
  static OutOfMemoryException outOfMemory(Throwable t) {
    Map<Throwable, Boolean> seen = new IdentityHashMap<>();
    for (Throwable c = t; c != null && seen.put(c, Boolean.TRUE) == null; c = c.getCause()) {
      if (c instanceof OutOfMemoryException) {
        return (OutOfMemoryException) c;
      }
    }
    return null;
  }

  /** What happened: the size asked for, the allocator that refused it, its limit and holdings. */
  static String detail(OutOfMemoryException e) {
    Matcher size = ARROW_SIZE.matcher(String.valueOf(e.getMessage()));
    String asked = size.find() ? size.group(1) + " bytes" : "more memory";
    BufferAllocator failed = failedAllocator(e);
    if (failed == null) {
      return "a record batch needs " + asked + " of Arrow memory, over its limit";
    }
    return "a record batch needs "
        + asked
        + " of Arrow memory, and "
        + (failed.getParentAllocator() == null
            ? "this JVM's Arrow memory (all its tasks together)"
            : "the task's ('" + failed.getName() + "')")
        + " holds "
        + failed.getAllocatedMemory()
        + " bytes of its limit of "
        + failed.getLimit()
        + (failed.getParentAllocator() == null
            ? " bytes, the JVM's maximum heap"
            : " bytes (option 'taskMemoryLimit')");
  }

  /** What to do about {@link #detail}. */
  static String fix(OutOfMemoryException e) {
    BufferAllocator failed = failedAllocator(e);
    if (failed != null && failed.getParentAllocator() == null) {
      return "Give executors more memory (spark.executor.memory), run fewer tasks on each at once"
          + " (spark.executor.cores), or lower option 'taskMemoryLimit' so that each task fails"
          + " alone, or have the server send smaller record batches";
    }
    return "Raise option 'taskMemoryLimit' (a read holds up to three record batches at once, a"
        + " write the one it fills, up to option 'batchBytes'; the memory is off the JVM's heap,"
        + " so the executor's container needs room for it: spark.executor.memoryOverhead), or"
        + " have the server send smaller record batches";
  }

  /** The hint for a message over option {@code maxInboundMessageSize}; empty for other text. */
  static String oversizedMessage(String grpcMessage) {
    Matcher sizes = GRPC_SIZE.matcher(grpcMessage);
    if (!sizes.find()) {
      return "";
    }
    return "A record batch of "
        + sizes.group(2)
        + " bytes is larger than option 'maxInboundMessageSize' ("
        + sizes.group(1)
        + " bytes): raise the option, within what a task may hold (option 'taskMemoryLimit'),"
        + " or have the server send smaller record batches";
  }

  private static BufferAllocator failedAllocator(OutOfMemoryException e) {
    return e.getOutcomeDetails().map(d -> d.getFailedAllocator()).orElse(null);
  }
}
