package io.flightsql.spark.client.upload;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import net.jpountz.lz4.LZ4FrameOutputStream;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.compression.AbstractCompressionCodec;
import org.apache.arrow.vector.compression.CompressionUtil;

/**
 * Compresses an upload's buffers into LZ4 frames with lz4-java, which Spark ships and compresses
 * its own shuffle with. Arrow Java's LZ4 codec compresses through commons-compress, which managed
 * under 0.1 MB/s on columnar buffers here (a column of 32,768 consecutive longs took 11 to 20 s),
 * unusable for an upload; it stays the one that reads LZ4 frames, since it also reads frames of
 * linked blocks, as Arrow C++ writes them, which lz4-java's frame reader refuses.
 *
 * <p>Compresses only: an upload never decompresses. The frames have independent blocks of up to 4
 * MiB, which every LZ4 frame reader takes.
 */
final class Lz4FrameCompressor extends AbstractCompressionCodec {
  /** Loaded now, so that a missing lz4-java fails where the codec is chosen, naming the option. */
  private final LZ4FrameOutputStream.BLOCKSIZE blockSize = LZ4FrameOutputStream.BLOCKSIZE.SIZE_4MB;

  @Override
  protected ArrowBuf doCompress(BufferAllocator allocator, ArrowBuf uncompressed) {
    long length = uncompressed.writerIndex();
    if (length > Integer.MAX_VALUE - 64) {
      throw new IllegalArgumentException(
          "An Arrow buffer of " + length + " bytes is too large to compress into one LZ4 frame");
    }
    byte[] input = new byte[(int) length];
    uncompressed.getBytes(0, input);
    ByteArrayOutputStream frame = new ByteArrayOutputStream(input.length / 2 + 64);
    try (LZ4FrameOutputStream out = new LZ4FrameOutputStream(frame, blockSize)) {
      out.write(input, 0, input.length);
    } catch (IOException e) {
      throw new UncheckedIOException("LZ4 could not compress an Arrow buffer", e);
    }
    byte[] compressed = frame.toByteArray();
    long prefix = CompressionUtil.SIZE_OF_UNCOMPRESSED_LENGTH;
    ArrowBuf buffer = allocator.buffer(prefix + compressed.length);
    buffer.setBytes(prefix, compressed);
    buffer.writerIndex(prefix + compressed.length);
    return buffer;
  }

  @Override
  protected ArrowBuf doDecompress(BufferAllocator allocator, ArrowBuf compressed) {
    throw new UnsupportedOperationException("An upload's LZ4 codec only compresses");
  }

  @Override
  public CompressionUtil.CodecType getCodecType() {
    return CompressionUtil.CodecType.LZ4_FRAME;
  }
}
