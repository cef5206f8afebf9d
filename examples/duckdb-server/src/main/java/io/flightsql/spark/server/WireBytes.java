package io.flightsql.spark.server;

import io.grpc.Metadata;
import io.grpc.ServerStreamTracer;
import io.grpc.netty.NettyServerBuilder;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * Counts the bytes of the gRPC messages that the server receives and sends, as they travel: a
 * compressed record batch counts its compressed size. HTTP/2 framing and TLS are left out. For
 * tests and benchmarks of what clients send.
 */
final class WireBytes extends ServerStreamTracer.Factory {
  private final AtomicLong received = new AtomicLong();
  private final AtomicLong sent = new AtomicLong();

  /** Counts the messages of every call of a server built with this. */
  Consumer<NettyServerBuilder> installer() {
    return builder -> builder.addStreamTracerFactory(this);
  }

  long received() {
    return received.get();
  }

  long sent() {
    return sent.get();
  }

  @Override
  public ServerStreamTracer newServerStreamTracer(String fullMethodName, Metadata headers) {
    return new ServerStreamTracer() {
      @Override
      public void inboundWireSize(long bytes) {
        received.addAndGet(bytes);
      }

      @Override
      public void outboundWireSize(long bytes) {
        sent.addAndGet(bytes);
      }
    };
  }
}
