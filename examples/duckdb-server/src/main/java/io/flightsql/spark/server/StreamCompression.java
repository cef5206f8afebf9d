package io.flightsql.spark.server;

import org.apache.arrow.compression.CommonsCompressionFactory;
import org.apache.arrow.vector.compression.CompressionCodec;
import org.apache.arrow.vector.compression.CompressionUtil.CodecType;

/** The codecs query streams can be compressed with (option {@code compression}). */
final class StreamCompression {
  private StreamCompression() {}

  /**
   * The codec named {@code none}, {@code zstd} or {@code lz4}.
   *
   * @throws IllegalArgumentException naming the option and the choices, for any other name
   */
  static CodecType parse(String name) {
    switch (name == null ? "" : name) {
      case "none":
        return CodecType.NO_COMPRESSION;
      case "zstd":
        return CodecType.ZSTD;
      case "lz4":
        return CodecType.LZ4_FRAME;
      default:
        throw new IllegalArgumentException(
            "Invalid value '" + name + "' for option 'compression': expected none, zstd or lz4");
    }
  }

  /** Arrow Java's own codec of {@code type}; null for no compression. Thread-safe. */
  static CompressionCodec codec(CodecType type) {
    return type == CodecType.NO_COMPRESSION
        ? null
        : CommonsCompressionFactory.INSTANCE.createCodec(type);
  }
}
