package io.flightsql.spark.client.transport;

import io.grpc.ConnectivityState;
import io.grpc.ManagedChannel;
import io.grpc.netty.GrpcSslContexts;
import io.grpc.netty.NegotiationType;
import io.grpc.netty.NettyChannelBuilder;
import io.netty.channel.ChannelOption;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.util.InsecureTrustManagerFactory;
import java.io.ByteArrayInputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import javax.net.ssl.SSLException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The gRPC channels of this JVM, one per server address and transport settings (TLS material,
 * connect timeout, message size, keepalive), shared by every query planned on the driver and every
 * partition read on an executor with the same ones. A channel is a connection pool and is
 * thread-safe; Flight clients over it are cheap and are made per use, each with its own allocator
 * and credentials. Channels are closed when the JVM (driver or executor) shuts down.
 */
public final class FlightChannels {
  private static final Logger LOG = LoggerFactory.getLogger(FlightChannels.class);
  private static final ConcurrentMap<Key, ManagedChannel> CHANNELS = new ConcurrentHashMap<>();

  /** How many times each channel has become connected (READY); see {@link #connection}. */
  private static final ConcurrentMap<ManagedChannel, AtomicLong> CONNECTIONS =
      new ConcurrentHashMap<>();

  static {
    TransportLogging.silenceFrameLogger();
    Runtime.getRuntime()
        .addShutdownHook(new Thread(FlightChannels::closeAll, "flightsql-close-channels"));
  }

  private FlightChannels() {}

  /**
   * The longest a call waits for a channel that failed to connect earlier to connect again, before
   * it goes ahead (and fails as gRPC decides) anyway. A server that is up answers a connect within
   * milliseconds; one that is down refuses it as fast.
   */
  static final long RECONNECT_WAIT_MILLIS = 2_000;

  /**
   * The channel to {@code target} with the transport settings of {@code settings}. A channel whose
   * last connection attempt failed is first made to connect again at once, and waited for up to
   * {@link #RECONNECT_WAIT_MILLIS} (see {@link #reconnectDuring}).
   */
  static ManagedChannel channel(FlightUri target, ConnectionSettings settings) {
    ManagedChannel channel =
        CHANNELS.computeIfAbsent(new Key(target, settings), key -> open(target, settings));
    try {
      reconnect(List.of(channel), Math.min(RECONNECT_WAIT_MILLIS, settings.connectTimeoutMillis()));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return channel;
  }

  /**
   * A number that changes each time the channel to {@code target} with these settings connects
   * anew. What a server said of itself holds while it stays the same: a new connection may reach a
   * restarted server, or another server on the same port.
   */
  public static long connection(FlightUri target, ConnectionSettings settings) {
    ManagedChannel channel = CHANNELS.get(new Key(target, settings));
    AtomicLong count = channel == null ? null : CONNECTIONS.get(channel);
    return count == null ? -1 : count.get();
  }

  /** Counts the channel's connections, following its states for as long as it is open. */
  private static void countConnections(ManagedChannel channel, AtomicLong count) {
    ConnectivityState state = channel.getState(false);
    if (state == ConnectivityState.SHUTDOWN) {
      CONNECTIONS.remove(channel);
      return;
    }
    channel.notifyWhenStateChanged(
        state,
        () -> {
          if (channel.getState(false) == ConnectivityState.READY) {
            count.incrementAndGet();
          }
          countConnections(channel, count);
        });
  }

  /**
   * Spends {@code millis} (a retry's pause) making every channel to {@code target} whose last
   * connection attempt failed try again every 100 ms, and returns early once they have connected.
   *
   * <p>A gRPC channel that failed to connect stays in TRANSIENT_FAILURE, where every call fails at
   * once with UNAVAILABLE, until a reconnection succeeds; reconnections wait out a back-off that
   * grows to two minutes. Without this, a server that comes back (restarted, or a new one on the
   * same port) would stay unreachable from this JVM for that long.
   *
   * @throws InterruptedException if the thread is interrupted while it waits
   */
  public static void reconnectDuring(FlightUri target, long millis) throws InterruptedException {
    long start = System.nanoTime();
    List<ManagedChannel> channels = new ArrayList<>();
    CHANNELS.forEach(
        (key, channel) -> {
          if (key.target.equals(target)) {
            channels.add(channel);
          }
        });
    if (!reconnect(channels, millis)) {
      // None had failed to connect (the server answered UNAVAILABLE over a working connection):
      // the whole pause.
      long left = millis - TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
      if (left > 0) {
        TimeUnit.MILLISECONDS.sleep(left);
      }
    }
  }

  /**
   * Makes those of {@code channels} whose last connection attempt failed try again every 100 ms,
   * until none is left failed or {@code millis} have passed.
   *
   * @return whether any had failed to begin with
   */
  private static boolean reconnect(List<ManagedChannel> channels, long millis)
      throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
    boolean anyFailed = false;
    while (true) {
      boolean failed = false;
      for (ManagedChannel channel : channels) {
        if (channel.getState(false) == ConnectivityState.TRANSIENT_FAILURE) {
          channel.resetConnectBackoff();
          failed = true;
        }
      }
      anyFailed |= failed;
      long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
      if (!failed || left <= 0) {
        return anyFailed;
      }
      TimeUnit.MILLISECONDS.sleep(Math.min(100, left));
    }
  }

  private static ManagedChannel open(FlightUri target, ConnectionSettings settings) {
    LOG.info("Opening a gRPC channel to {}", target);
    NettyChannelBuilder builder =
        NettyChannelBuilder.forAddress(target.host(), target.port())
            .maxTraceEvents(0)
            .maxInboundMessageSize(settings.maxInboundMessageSize())
            .withOption(
                ChannelOption.CONNECT_TIMEOUT_MILLIS,
                (int) Math.min(Integer.MAX_VALUE, settings.connectTimeoutMillis()));
    if (settings.keepAliveTimeMillis() > 0) {
      // Only while calls are open: servers refuse pings on idle connections by default
      // (grpc-java's permitKeepAliveWithoutCalls), and a stream waiting is where a dead peer hurts.
      builder
          .keepAliveTime(settings.keepAliveTimeMillis(), TimeUnit.MILLISECONDS)
          .keepAliveWithoutCalls(false);
    }
    if (target.isTls()) {
      builder.negotiationType(NegotiationType.TLS).sslContext(tls(settings));
    } else {
      builder.usePlaintext();
    }
    ManagedChannel channel = builder.build();
    // Connect now, while the caller builds its client and call, not at the first call.
    channel.getState(true);
    AtomicLong count = new AtomicLong();
    CONNECTIONS.put(channel, count);
    countConnections(channel, count);
    return channel;
  }

  private static io.netty.handler.ssl.SslContext tls(ConnectionSettings settings) {
    SslContextBuilder ssl = GrpcSslContexts.forClient();
    if (settings.skipCertificateVerification()) {
      ssl.trustManager(InsecureTrustManagerFactory.INSTANCE);
    } else if (settings.rootCertificates() != null) {
      try {
        ssl.trustManager(new ByteArrayInputStream(settings.rootCertificates()));
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(
            "Option 'tlsRootCerts' names a file without usable PEM certificates: " + e.getMessage(),
            e);
      }
    }
    if (settings.clientCertificate() != null) {
      try {
        ssl.keyManager(
            new ByteArrayInputStream(settings.clientCertificate()),
            new ByteArrayInputStream(settings.clientKey()));
      } catch (IllegalArgumentException e) {
        // The message of the PEM parser names the problem, never the key's content.
        throw new IllegalArgumentException(
            "Options 'clientCertificate' and 'clientKey' do not hold a PEM certificate chain and"
                + " a PKCS#8 PEM private key: "
                + e.getMessage(),
            e);
      }
    }
    try {
      return ssl.build();
    } catch (SSLException e) {
      throw new IllegalArgumentException(
          "The TLS settings (options 'tlsRootCerts', 'clientCertificate', 'clientKey') cannot be"
              + " used: "
              + e.getMessage(),
          e);
    }
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
    CONNECTIONS.clear();
  }

  /**
   * A server address and a fingerprint of transport settings; holds no secret. Also the key of what
   * each server said of itself (the metadata room's server cache).
   */
  public static final class Key {
    private final FlightUri target;
    private final String transport;

    public Key(FlightUri target, ConnectionSettings settings) {
      this.target = target;
      this.transport = settings.transportFingerprint();
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Key
          && ((Key) o).target.equals(target)
          && ((Key) o).transport.equals(transport);
    }

    @Override
    public int hashCode() {
      return Objects.hash(target, transport);
    }
  }
}
