package io.flightsql.spark.client.transport;

import static org.assertj.core.api.Assertions.assertThat;

import io.flightsql.spark.testing.IsolatedClassPath;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * Arrow fills its codec factory once per JVM (here: per class loader of Arrow's classes) from the
 * service files that the context class loader of the first thread to use it sees. Each test loads
 * Arrow and the connector afresh, in a loader of their own, and uses them first on a thread whose
 * context loader sees none of them, as a gRPC thread started before the connector's jar was added
 * would.
 */
class CompressionCodecsTest {
  private static final String FACTORY =
      "org.apache.arrow.vector.compression.CompressionCodec$Factory";
  private static final String CODEC_TYPE =
      "org.apache.arrow.vector.compression.CompressionUtil$CodecType";

  @Test
  void theConnectorsAllocatorsLeaveArrowKnowingBothCodecs() throws Exception {
    assertThat(codecsSeenFirstBy("io.flightsql.spark.client.transport.Allocators"))
        .containsExactly("ZstdCompressionCodec", "Lz4CompressionCodec");
  }

  /** What the connector guards against: Arrow left without codecs for the life of the JVM. */
  @Test
  void arrowUsedFirstOnSuchAThreadKnowsNoCodec() throws Exception {
    assertThat(codecsSeenFirstBy(FACTORY))
        .containsExactly(
            "IllegalArgumentException: Please add arrow-compression module to use"
                + " CommonsCompressionFactory for ZSTD",
            "IllegalArgumentException: Please add arrow-compression module to use"
                + " CommonsCompressionFactory for LZ4_FRAME");
  }

  /**
   * Initialises {@code firstClass}, then asks Arrow's codec factory for each codec, on a thread
   * whose context class loader sees no service file; returns each codec's class, or the error.
   */
  private static List<String> codecsSeenFirstBy(String firstClass) throws Exception {
    List<String> seen = new ArrayList<>();
    AtomicReference<Throwable> failure = new AtomicReference<>();
    try (URLClassLoader fresh = IsolatedClassPath.without();
        URLClassLoader blind =
            new URLClassLoader(new URL[0], ClassLoader.getPlatformClassLoader())) {
      Thread reader =
          new Thread(
              () -> {
                try {
                  Class.forName(firstClass, true, fresh);
                  Class<?> factory = Class.forName(FACTORY, true, fresh);
                  Object instance = factory.getField("INSTANCE").get(null);
                  @SuppressWarnings({"unchecked", "rawtypes"})
                  Class<Enum> types = (Class<Enum>) Class.forName(CODEC_TYPE, true, fresh);
                  for (String type : List.of("ZSTD", "LZ4_FRAME")) {
                    try {
                      @SuppressWarnings("unchecked")
                      Object codec =
                          factory
                              .getMethod("createCodec", types)
                              .invoke(instance, Enum.valueOf(types, type));
                      seen.add(codec.getClass().getSimpleName());
                    } catch (java.lang.reflect.InvocationTargetException e) {
                      Throwable cause = e.getCause();
                      seen.add(cause.getClass().getSimpleName() + ": " + cause.getMessage());
                    }
                  }
                } catch (ReflectiveOperationException | RuntimeException e) {
                  failure.set(e);
                }
              },
              "first-reader");
      reader.setContextClassLoader(blind);
      reader.start();
      reader.join();
    }
    if (failure.get() != null) {
      throw new AssertionError("The reader thread failed", failure.get());
    }
    return seen;
  }
}
