package io.flightsql.spark.client.upload;

import com.github.luben.zstd.Zstd;
import java.util.Locale;
import org.apache.arrow.compression.CommonsCompressionFactory;
import org.apache.arrow.flight.DoPutCompression;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.compression.CompressionCodec;
import org.apache.arrow.vector.compression.CompressionUtil.CodecType;
import org.apache.arrow.vector.compression.NoCompressionCodec;

/**
 * How an upload's record batches travel (option {@code compression}): as they are, or with their
 * buffers compressed by one of the two codecs of the Arrow IPC format. The server must have that
 * codec: Arrow C++ and pyarrow servers have both as built by the Arrow project, Arrow Java servers
 * with {@code arrow-compression} on their class path.
 *
 * <p>Both compress with the libraries Spark ships and uses itself, unbundled (their native code
 * binds to their own class names): zstd-jni and lz4-java.
 */
public enum UploadCompression {
  /** Buffers as they are. */
  NONE("nothing"),
  /** ZSTD at Arrow's default level, 3. */
  ZSTD("zstd-jni (com.github.luben:zstd-jni)"),
  /** LZ4 frames. */
  LZ4("lz4-java (org.lz4:lz4-java)");

  private final String library;

  UploadCompression(String library) {
    this.library = library;
  }

  /** Makes {@code stream}, just started for {@code root}, compress the batches it sends. */
  void applyTo(FlightClient.ClientStreamListener stream, VectorSchemaRoot root) {
    if (this != NONE) {
      DoPutCompression.compress(stream, root, codec());
    }
  }

  /**
   * The codec, its library loaded now, so that a missing one fails here, naming the option, rather
   * than at the first batch with a bare {@code NoClassDefFoundError}: outside Spark, or where
   * zstd-jni has no native build for the platform.
   */
  CompressionCodec codec() {
    try {
      switch (this) {
        case ZSTD:
          Zstd.compressBound(1);
          return CommonsCompressionFactory.INSTANCE.createCodec(CodecType.ZSTD);
        case LZ4:
          return new Lz4FrameCompressor();
        default:
          return NoCompressionCodec.INSTANCE;
      }
    } catch (LinkageError e) {
      throw new IllegalStateException(
          "Option 'compression' is '"
              + name().toLowerCase(Locale.ROOT)
              + "', but "
              + library
              + ", which Spark ships in its jars, cannot be loaded here ("
              + e
              + "); put it on the class path, or choose another compression",
          e);
    }
  }
}
