package io.flightsql.spark.client.transport;

import org.apache.arrow.vector.compression.CompressionCodec;

/**
 * Makes Arrow find the codecs of compressed record batches (ZSTD, LZ4_FRAME) in this JVM, whichever
 * thread reads the first batch.
 *
 * <p>Arrow decompresses what a stream receives with {@code CompressionCodec.Factory.INSTANCE},
 * which it fills once per JVM, when that interface is first used, from the service files that
 * {@code ServiceLoader} finds through the current thread's context class loader. Flight makes a
 * stream's first loader on a gRPC thread, whose context loader is whatever the thread that started
 * it had; when the connector was added to a running application (Spark's {@code ADD JAR}, a
 * session's artifacts), such a loader may not see the connector's jar, and Arrow would then know no
 * codec in this JVM: every compressed batch would fail. So the factory is filled here, from the
 * connector's own class loader.
 */
final class CompressionCodecs {
  private CompressionCodecs() {}

  /**
   * Fills Arrow's codec factory from the connector's class loader, unless it is filled already;
   * returns it.
   */
  static CompressionCodec.Factory load() {
    Thread thread = Thread.currentThread();
    ClassLoader context = thread.getContextClassLoader();
    thread.setContextClassLoader(CompressionCodecs.class.getClassLoader());
    try {
      return CompressionCodec.Factory.INSTANCE;
    } finally {
      thread.setContextClassLoader(context);
    }
  }
}
