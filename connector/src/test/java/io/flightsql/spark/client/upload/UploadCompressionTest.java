package io.flightsql.spark.client.upload;

import static org.assertj.core.api.Assertions.assertThat;

import io.flightsql.spark.testing.IsolatedClassPath;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.net.URLClassLoader;
import java.util.Random;
import org.apache.arrow.compression.CommonsCompressionFactory;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.compression.CompressionCodec;
import org.apache.arrow.vector.compression.CompressionUtil.CodecType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The codecs of option {@code compression}: the LZ4 frames the connector writes with lz4-java read
 * back byte for byte by Arrow's own LZ4 codec (commons-compress, as Arrow Java servers read them),
 * and a codec whose library is missing named in the error. No Arrow memory is left.
 */
class UploadCompressionTest {
  private final BufferAllocator allocator = new RootAllocator();

  @AfterEach
  void noLeaks() {
    allocator.close();
  }

  @ParameterizedTest(name = "{0} bytes, {1}")
  @CsvSource({
    "0, compressible",
    "1, compressible",
    "1048576, compressible",
    "9437184, compressible", // more than two of the frame's 4 MiB blocks
    "65536, random"
  })
  void lz4FramesAreReadBackByArrowsOwnLz4Codec(int size, String kind) {
    byte[] original = bytes(size, kind.equals("random"));
    ArrowBuf buffer = allocator.buffer(Math.max(size, 1));
    buffer.setBytes(0, original);
    buffer.writerIndex(size);
    CompressionCodec codec = UploadCompression.LZ4.codec();
    assertThat(codec.getCodecType()).isEqualTo(CodecType.LZ4_FRAME);

    ArrowBuf compressed = codec.compress(allocator, buffer);
    long sent = compressed.writerIndex();
    long prefix = size == 0 ? 0 : compressed.getLong(0);
    try (ArrowBuf back =
        CommonsCompressionFactory.INSTANCE
            .createCodec(CodecType.LZ4_FRAME)
            .decompress(allocator, compressed)) {
      byte[] actual = new byte[(int) back.writerIndex()];
      back.getBytes(0, actual);
      assertThat(actual).isEqualTo(original);
    }
    if (kind.equals("random") || size == 1) {
      assertThat(prefix).as("a buffer that would not shrink is sent as it is").isEqualTo(-1);
    } else if (size > 0) {
      assertThat(prefix).as("the uncompressed length").isEqualTo(size);
      assertThat(sent).isLessThan(size / 4);
    }
  }

  @Test
  void zstdComesFromArrowsCodecAndNoneCompressesNothing() {
    assertThat(UploadCompression.ZSTD.codec().getCodecType()).isEqualTo(CodecType.ZSTD);
    assertThat(UploadCompression.NONE.codec().getCodecType()).isEqualTo(CodecType.NO_COMPRESSION);
  }

  /** Outside Spark, without zstd-jni or lz4-java, the task fails naming the option and library. */
  @Test
  void aMissingLibraryIsNamedWithTheOption() throws Exception {
    try (URLClassLoader withoutThem = IsolatedClassPath.without("zstd-jni-", "lz4-java-")) {
      assertThat(failureOf(withoutThem, "ZSTD"))
          .isEqualTo(
              "Option 'compression' is 'zstd', but zstd-jni (com.github.luben:zstd-jni), which"
                  + " Spark ships in its jars, cannot be loaded here"
                  + " (java.lang.NoClassDefFoundError: com/github/luben/zstd/Zstd); put it on the"
                  + " class path, or choose another compression");
      assertThat(failureOf(withoutThem, "LZ4"))
          .startsWith(
              "Option 'compression' is 'lz4', but lz4-java (org.lz4:lz4-java), which Spark ships"
                  + " in its jars, cannot be loaded here (java.lang.NoClassDefFoundError:"
                  + " net/jpountz/lz4/LZ4FrameOutputStream");
    }
  }

  /** The message of the error that asking for {@code value}'s codec raises in {@code loader}. */
  private static String failureOf(ClassLoader loader, String value) throws Exception {
    Class<?> type = Class.forName(UploadCompression.class.getName(), true, loader);
    Method codec = type.getDeclaredMethod("codec");
    codec.setAccessible(true);
    for (Object constant : type.getEnumConstants()) {
      if (((Enum<?>) constant).name().equals(value)) {
        try {
          codec.invoke(constant);
          return "no error";
        } catch (InvocationTargetException e) {
          return e.getCause().getClass().getSimpleName().equals("IllegalStateException")
              ? e.getCause().getMessage()
              : e.getCause().toString();
        }
      }
    }
    throw new IllegalArgumentException(value);
  }

  /**
   * Text that repeats with small changes, as a string column's data often does, or random bytes.
   */
  private static byte[] bytes(int size, boolean random) {
    byte[] bytes = new byte[size];
    if (random) {
      new Random(7).nextBytes(bytes);
      return bytes;
    }
    String text = "comment no ";
    for (int i = 0; i < size; i++) {
      bytes[i] = (byte) (text.charAt(i % text.length()) + (i / 4096) % 3);
    }
    return bytes;
  }
}
