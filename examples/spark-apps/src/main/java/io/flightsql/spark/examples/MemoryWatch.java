package io.flightsql.spark.examples;

import com.sun.management.GarbageCollectionNotificationInfo;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.MemoryUsage;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import java.util.stream.Collectors;
import javax.management.ListenerNotFoundException;
import javax.management.Notification;
import javax.management.NotificationEmitter;
import javax.management.NotificationListener;
import javax.management.openmbean.CompositeData;

/**
 * Watches the memory of this JVM while something runs: the most off-heap Arrow memory allocated at
 * once (sampled), the most heap in use (sampled, garbage included), and the most heap still in use
 * right after a garbage collection, which is what the running work really keeps alive.
 */
final class MemoryWatch {

  /**
   * The peaks seen between {@link #start} and {@link #stop}.
   *
   * @param arrowBytes the most Arrow bytes allocated at once, sampled
   * @param heapUsed the most heap in use, sampled; includes garbage not yet collected
   * @param heapAfterGc the most heap in use at the end of a collection, or -1 if none ran
   * @param collections the garbage collections that ended meanwhile
   */
  record Peaks(long arrowBytes, long heapUsed, long heapAfterGc, int collections) {}

  private static final long SAMPLE_MILLIS = 10;

  private final LongSupplier arrowBytes;
  private final AtomicLong maxArrow = new AtomicLong();
  private final AtomicLong maxHeap = new AtomicLong();
  private final AtomicLong maxAfterGc = new AtomicLong(-1);
  private final AtomicInteger collections = new AtomicInteger();
  private final Set<String> heapPools;
  private final NotificationListener gcListener = this::collected;
  private final List<NotificationEmitter> emitters = new ArrayList<>();
  private final Thread sampler;
  private volatile boolean running = true;

  private MemoryWatch(LongSupplier arrowBytes) {
    this.arrowBytes = arrowBytes;
    this.heapPools =
        ManagementFactory.getMemoryPoolMXBeans().stream()
            .filter(pool -> pool.getType() == MemoryType.HEAP)
            .map(MemoryPoolMXBean::getName)
            .collect(Collectors.toSet());
    for (GarbageCollectorMXBean collector : ManagementFactory.getGarbageCollectorMXBeans()) {
      if (collector instanceof NotificationEmitter emitter) {
        emitter.addNotificationListener(gcListener, null, null);
        emitters.add(emitter);
      }
    }
    this.sampler = new Thread(this::sample, "memory-watch");
    sampler.setDaemon(true);
    sampler.start();
  }

  /** Starts watching; {@code arrowBytes} tells the Arrow bytes allocated now. */
  static MemoryWatch start(LongSupplier arrowBytes) {
    return new MemoryWatch(arrowBytes);
  }

  Peaks stop() throws InterruptedException {
    running = false;
    sampler.join();
    for (NotificationEmitter emitter : emitters) {
      try {
        emitter.removeNotificationListener(gcListener);
      } catch (ListenerNotFoundException e) {
        throw new IllegalStateException(e);
      }
    }
    sampleOnce();
    return new Peaks(maxArrow.get(), maxHeap.get(), maxAfterGc.get(), collections.get());
  }

  private void sample() {
    while (running) {
      sampleOnce();
      try {
        Thread.sleep(SAMPLE_MILLIS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }

  private void sampleOnce() {
    maxArrow.accumulateAndGet(arrowBytes.getAsLong(), Math::max);
    maxHeap.accumulateAndGet(
        ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed(), Math::max);
  }

  private void collected(Notification notification, Object handback) {
    if (!GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION.equals(
        notification.getType())) {
      return;
    }
    GarbageCollectionNotificationInfo info =
        GarbageCollectionNotificationInfo.from((CompositeData) notification.getUserData());
    long used = 0;
    for (Map.Entry<String, MemoryUsage> pool :
        info.getGcInfo().getMemoryUsageAfterGc().entrySet()) {
      if (heapPools.contains(pool.getKey())) {
        used += pool.getValue().getUsed();
      }
    }
    maxAfterGc.accumulateAndGet(used, Math::max);
    collections.incrementAndGet();
  }
}
