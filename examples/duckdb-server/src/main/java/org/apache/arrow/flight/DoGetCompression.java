package org.apache.arrow.flight;

import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.VectorUnloader;
import org.apache.arrow.vector.compression.CompressionCodec;

/**
 * Makes a started DoGet stream send its record batches with compressed bodies, as Arrow C++ and
 * pyarrow servers can be told to ({@code IpcWriteOptions.compression}).
 *
 * <p>Flight's server unloads each batch with a {@link VectorUnloader} that it makes without a codec
 * and takes none from the producer: the unloader is a protected field of a package-private class,
 * which only a class of Flight's own package can replace. Framing, flow control and the schema and
 * dictionary messages (sent uncompressed, as the format allows) stay Flight's.
 */
public final class DoGetCompression {
  private DoGetCompression() {}

  /**
   * Replaces the unloader of {@code listener}, started for {@code root}, with one that compresses
   * every buffer with {@code codec}, keeping Flight's options (null counts, aligned buffers). Call
   * it after {@code start} and before the first {@code putNext()}.
   *
   * @throws IllegalStateException if the listener is not Flight's own or has not started
   */
  public static void compress(
      FlightProducer.ServerStreamListener listener, VectorSchemaRoot root, CompressionCodec codec) {
    if (!(listener instanceof OutboundStreamListenerImpl)) {
      throw new IllegalStateException(
          "Cannot compress a DoGet stream of " + listener.getClass().getName());
    }
    OutboundStreamListenerImpl outbound = (OutboundStreamListenerImpl) listener;
    if (outbound.unloader == null) {
      throw new IllegalStateException("Cannot compress a DoGet stream that has not started");
    }
    outbound.unloader = new VectorUnloader(root, true, codec, true);
  }
}
