package io.flightsql.spark.client;

import io.grpc.ManagedChannel;
import io.grpc.netty.NettyChannelBuilder;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The gRPC channels of this JVM, one per server address, shared by every query planned on the
 * driver and every partition read on an executor. A channel is a connection pool and is
 * thread-safe; Flight clients over it are cheap and are made per use, each with its own allocator.
 * Channels are closed when the JVM (driver or executor) shuts down.
 */
public final class FlightChannels {
  private static final Logger LOG = LoggerFactory.getLogger(FlightChannels.class);
  private static final ConcurrentMap<FlightUri, ManagedChannel> CHANNELS = new ConcurrentHashMap<>();

  static {
    Runtime.getRuntime()
        .addShutdownHook(new Thread(FlightChannels::closeAll, "flightsql-close-channels"));
  }

  private FlightChannels() {}

  public static ManagedChannel channel(FlightUri target) {
    return CHANNELS.computeIfAbsent(target, FlightChannels::open);
  }

  /**
   * After a connection failure, lets the next call reconnect at once instead of waiting out gRPC's
   * reconnect back-off (up to two minutes), so a restarted server is usable immediately.
   */
  public static void resetBackoff(FlightUri target) {
    ManagedChannel channel = CHANNELS.get(target);
    if (channel != null) {
      channel.resetConnectBackoff();
    }
  }

  private static ManagedChannel open(FlightUri target) {
    LOG.info("Opening a gRPC channel to {}", target);
    NettyChannelBuilder builder =
        NettyChannelBuilder.forAddress(target.host(), target.port())
            .maxTraceEvents(0)
            .maxInboundMessageSize(Integer.MAX_VALUE);
    if (target.isTls()) {
      builder.useTransportSecurity();
    } else {
      builder.usePlaintext();
    }
    return builder.build();
  }

  static void closeAll() {
    for (ManagedChannel channel : CHANNELS.values()) {
      channel.shutdownNow();
    }
    for (ManagedChannel channel : CHANNELS.values()) {
      try {
        channel.awaitTermination(5, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
    CHANNELS.clear();
  }
}
