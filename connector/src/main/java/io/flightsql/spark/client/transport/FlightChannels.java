package io.flightsql.spark.client.transport;

import io.grpc.ConnectivityState;
import io.grpc.ManagedChannel;
import io.grpc.netty.NegotiationType;
import io.grpc.netty.NettyChannelBuilder;
import io.netty.channel.ChannelOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.arrow.flight.CallStatus;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The gRPC channels of this JVM, one per server address and transport settings (TLS material,
 * connect timeout, message size, keepalive), shared by every query planned on the driver and every
 * partition read on an executor with the same ones. A channel is a connection pool and is
 * thread-safe; Flight clients over it are cheap and are made per use, each with its own allocator
 * and credentials, and each counts as a user of the channel until it is closed ({@link
 * SharedChannel}). A channel without users for {@link #IDLE_CHANNEL_MILLIS} is shut down, and the
 * rest when the JVM (driver or executor) shuts down. Shutting down is gRPC's orderly one: calls
 * under way on the channel finish, so none is cut by the eviction.
 */
public final class FlightChannels {
  private static final Logger LOG = LoggerFactory.getLogger(FlightChannels.class);
  private static final ConcurrentMap<Key, Entry> CHANNELS = new ConcurrentHashMap<>();

  /** Numbers each connection any channel of this JVM makes; see {@link #connection}. */
  private static final AtomicLong CONNECTIONS = new AtomicLong();

  /**
   * How long a channel nobody uses is kept: long enough for the next query or task of a job to find
   * it connected, short enough that the channels of endpoint hosts read once do not pile up.
   */
  static final long IDLE_CHANNEL_MILLIS = TimeUnit.MINUTES.toMillis(10);

  /**
   * How long gRPC waits for the answer to a keepalive ping before it closes the connection (gRPC's
   * own default, set here so that the documentation can rely on it).
   */
  public static final long KEEP_ALIVE_TIMEOUT_MILLIS = 20_000;

  /**
   * The longest a call waits for a channel that failed to connect earlier to connect again, before
   * it goes ahead (and fails as gRPC decides) anyway. A server that is up answers a connect within
   * milliseconds; one that is down refuses it as fast.
   */
  static final long RECONNECT_WAIT_MILLIS = 2_000;

  /** How often a wait for a connection looks at the caller's budget. */
  private static final long BUDGET_CHECK_MILLIS = 100;

  static {
    TransportLogging.silenceFrameLogger();
    Runtime.getRuntime()
        .addShutdownHook(new Thread(FlightChannels::closeAll, "flightsql-close-channels"));
    ScheduledThreadPoolExecutor sweeper =
        new ScheduledThreadPoolExecutor(
            1,
            r -> {
              Thread t = new Thread(r, "flightsql-idle-channels");
              t.setDaemon(true);
              return t;
            });
    sweeper.scheduleWithFixedDelay(() -> evictIdle(IDLE_CHANNEL_MILLIS), 1, 1, TimeUnit.MINUTES);
  }

  private FlightChannels() {}

  /**
   * A view of the channel to {@code target} with the transport settings of {@code settings}, for
   * one client, which counts as a user of the channel until it shuts the view down. A channel whose
   * last connection attempt failed is first made to connect again at once, and waited for up to
   * {@link #RECONNECT_WAIT_MILLIS} (see {@link #reconnectDuring}).
   */
  static SharedChannel acquire(FlightUri target, ConnectionSettings settings) {
    Key key = new Key(target, settings);
    Entry entry =
        CHANNELS.compute(
            key,
            (k, old) -> {
              Entry used = old != null ? old : open(target, settings);
              used.users++;
              return used;
            });
    try {
      reconnect(
          List.of(entry.channel), Math.min(RECONNECT_WAIT_MILLIS, settings.connectTimeoutMillis()));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return new SharedChannel(entry.channel, () -> release(key, entry));
  }

  private static void release(Key key, Entry released) {
    CHANNELS.computeIfPresent(
        key,
        (k, entry) -> {
          if (entry == released && --entry.users == 0) {
            entry.idleSinceNanos = System.nanoTime();
          }
          return entry;
        });
  }

  /**
   * Shuts down the channels nobody has used for {@code idleMillis}, in gRPC's orderly way.
   *
   * @return how many were shut down
   */
  static int evictIdle(long idleMillis) {
    int evicted = 0;
    long now = System.nanoTime();
    for (Key key : new ArrayList<>(CHANNELS.keySet())) {
      Entry[] removed = new Entry[1];
      CHANNELS.computeIfPresent(
          key,
          (k, entry) -> {
            if (entry.users > 0
                || now - entry.idleSinceNanos < TimeUnit.MILLISECONDS.toNanos(idleMillis)) {
              return entry;
            }
            removed[0] = entry;
            return null;
          });
      if (removed[0] != null) {
        LOG.info("Closing the gRPC channel to {}, unused for a while", key.target);
        removed[0].channel.shutdown();
        evicted++;
      }
    }
    return evicted;
  }

  /** How many channels this JVM keeps open; for tests. */
  static int openChannels() {
    return CHANNELS.size();
  }

  /**
   * A number that changes each time the channel to {@code target} with these settings connects
   * anew, unique in the JVM; -1 while there is no such channel. What a server said of itself holds
   * while it stays the same: a new connection may reach a restarted server, or another server on
   * the same port.
   */
  public static long connection(FlightUri target, ConnectionSettings settings) {
    Entry entry = CHANNELS.get(new Key(target, settings));
    if (entry == null) {
      return -1;
    }
    // A call goes ahead as soon as the channel is READY, which may be before gRPC has told the
    // listener below: what that call learns must carry the number of the connection it used.
    entry.numberIfReady(entry.channel.getState(false));
    return entry.connection;
  }

  /**
   * Waits until {@code channel} is connected (READY), or known not to connect (TRANSIENT_FAILURE,
   * where gRPC fails calls at once with the reason), for at most {@code connectTimeoutMillis}. A
   * call started on a channel still connecting waits inside gRPC without any bound but its
   * deadline: a server that accepts the TCP connection and never completes the TLS or HTTP/2
   * handshake (or a proxy in front of a dead one) would hold it for ever.
   *
   * <p>The wait ends sooner when the caller's {@code budget} runs out or stops, and the call then
   * goes ahead with the little time left, to fail as its deadline says.
   *
   * @throws org.apache.arrow.flight.FlightRuntimeException UNAVAILABLE naming option {@code
   *     connectTimeout} when the connection is still not made; CANCELLED when interrupted
   */
  static void awaitConnected(ManagedChannel channel, long connectTimeoutMillis, CallBudget budget) {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(connectTimeoutMillis);
    ConnectivityState state = channel.getState(true);
    while (state == ConnectivityState.IDLE || state == ConnectivityState.CONNECTING) {
      if (budget.stopped() || budget.millisLeft() <= 0) {
        return;
      }
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        throw CallStatus.UNAVAILABLE
            .withDescription(
                "no connection within option 'connectTimeout' ("
                    + StreamWatch.describe(connectTimeoutMillis)
                    + "): the server (or a proxy in front of it) did not complete the TCP, TLS"
                    + " and HTTP/2 handshakes")
            .toRuntimeException();
      }
      if (budget != CallBudget.UNLIMITED) {
        left =
            Math.min(
                left,
                TimeUnit.MILLISECONDS.toNanos(Math.min(budget.millisLeft(), BUDGET_CHECK_MILLIS)));
      }
      CountDownLatch changed = new CountDownLatch(1);
      channel.notifyWhenStateChanged(state, changed::countDown);
      try {
        changed.await(left, TimeUnit.NANOSECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw CallStatus.CANCELLED
            .withDescription("interrupted while connecting to the server")
            .toRuntimeException();
      }
      state = channel.getState(true);
    }
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
        (key, entry) -> {
          if (key.target.equals(target)) {
            channels.add(entry.channel);
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

  private static Entry open(FlightUri target, ConnectionSettings settings) {
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
      // (grpc-java's permitKeepAliveWithoutCalls), and a call waiting is where a dead peer hurts.
      builder
          .keepAliveTime(settings.keepAliveTimeMillis(), TimeUnit.MILLISECONDS)
          .keepAliveTimeout(KEEP_ALIVE_TIMEOUT_MILLIS, TimeUnit.MILLISECONDS)
          .keepAliveWithoutCalls(false);
    }
    if (target.isTls()) {
      builder.negotiationType(NegotiationType.TLS).sslContext(ChannelTls.context(settings));
    } else {
      builder.usePlaintext();
    }
    Entry entry = new Entry(builder.build());
    // Connect now, while the caller builds its client and call, not at the first call.
    entry.channel.getState(true);
    countConnections(entry);
    return entry;
  }

  /** Numbers the channel's connections, following its states for as long as it is open. */
  private static void countConnections(Entry entry) {
    ConnectivityState state = entry.channel.getState(false);
    if (state == ConnectivityState.SHUTDOWN) {
      return;
    }
    entry.channel.notifyWhenStateChanged(
        state,
        () -> {
          entry.numberIfReady(entry.channel.getState(false));
          countConnections(entry);
        });
  }

  static void closeAll() {
    List<Entry> entries = new ArrayList<>(CHANNELS.values());
    CHANNELS.clear();
    for (Entry entry : entries) {
      entry.channel.shutdownNow();
    }
    for (Entry entry : entries) {
      try {
        entry.channel.awaitTermination(5, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }

  /** A channel, how many clients use it, since when nobody does, and its connection's number. */
  private static final class Entry {
    final ManagedChannel channel;

    /** Changed only inside the map's compute functions, which run one at a time per key. */
    int users;

    long idleSinceNanos = System.nanoTime();
    volatile long connection = -1;

    /**
     * Whether the current READY connection has its number; cleared when the channel leaves READY.
     */
    private boolean numbered;

    Entry(ManagedChannel channel) {
      this.channel = channel;
    }

    /**
     * Gives a connection its number the first time it is seen READY, by a caller or by the state
     * listener, whichever comes first; a channel seen in any other state has lost its connection.
     */
    synchronized void numberIfReady(ConnectivityState state) {
      if (state == ConnectivityState.READY) {
        if (!numbered) {
          connection = CONNECTIONS.incrementAndGet();
          numbered = true;
        }
      } else {
        numbered = false;
      }
    }
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
