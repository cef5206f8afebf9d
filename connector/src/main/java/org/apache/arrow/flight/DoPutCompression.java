package org.apache.arrow.flight;

import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.VectorUnloader;
import org.apache.arrow.vector.compression.CompressionCodec;

/**
 * Makes a started DoPut stream send its record batches with compressed bodies (Arrow IPC buffer
 * compression).
 *
 * <p>Flight's client unloads each batch with a {@link VectorUnloader} that it makes without a
 * codec, and takes none: the unloader is a protected field of a package-private class. This class
 * lives in Flight's package to replace that unloader, so the compiler checks the field it relies
 * on, and the shaded jar relocates it together with Flight, which keeps the two in one package.
 * Everything else stays Flight's: the framing, the flow control, and the schema and dictionary
 * messages, which go out uncompressed as the format allows.
 */
public final class DoPutCompression {
  private DoPutCompression() {}

  /**
   * Replaces the unloader of {@code stream}, which {@code FlightClient.startPut} returned for
   * {@code root}, with one that compresses every buffer with {@code codec}; Flight's options are
   * kept (null counts included, buffers aligned). Call it before the stream's first {@code
   * putNext()}. A batch's compressed buffers come from the allocator of the root's vectors and are
   * freed once Flight has sent them; a buffer that would not shrink is sent as it is, as the format
   * provides.
   *
   * @throws IllegalStateException if the stream is not Flight's own (which {@code startPut} always
   *     returns) or has not started
   */
  public static void compress(
      FlightClient.ClientStreamListener stream, VectorSchemaRoot root, CompressionCodec codec) {
    if (!(stream instanceof OutboundStreamListenerImpl)) {
      throw new IllegalStateException(
          "Cannot compress a DoPut stream of " + stream.getClass().getName());
    }
    OutboundStreamListenerImpl outbound = (OutboundStreamListenerImpl) stream;
    if (outbound.unloader == null) {
      throw new IllegalStateException("Cannot compress a DoPut stream that has not started");
    }
    outbound.unloader = new VectorUnloader(root, true, codec, true);
  }
}
