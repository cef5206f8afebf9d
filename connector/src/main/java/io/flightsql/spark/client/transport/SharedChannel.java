package io.flightsql.spark.client.transport;

import io.grpc.CallOptions;
import io.grpc.ClientCall;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One Flight client's use of one of {@link FlightChannels}' channels, which other clients share:
 * the client may "close" it without closing the channel, and its closing tells {@link
 * FlightChannels} that the channel has one user less, so that a channel nobody uses is closed after
 * a while. Arrow's own non-closing wrapper is only available for clients without middleware. Its
 * DoGet calls receive few batches ahead ({@link ReadAhead}).
 */
final class SharedChannel extends ManagedChannel {
  private final ManagedChannel channel;
  private final Runnable release;
  private final AtomicBoolean released = new AtomicBoolean();

  /**
   * @param release run once, when the client closes its view
   */
  SharedChannel(ManagedChannel channel, Runnable release) {
    this.channel = channel;
    this.release = release;
  }

  /** The channel shared, for its connectivity state. */
  ManagedChannel channel() {
    return channel;
  }

  @Override
  public <Q, R> ClientCall<Q, R> newCall(MethodDescriptor<Q, R> method, CallOptions options) {
    return ReadAhead.bound(method, channel.newCall(method, options));
  }

  @Override
  public String authority() {
    return channel.authority();
  }

  @Override
  public ManagedChannel shutdown() {
    if (released.compareAndSet(false, true)) {
      release.run();
    }
    return this;
  }

  @Override
  public ManagedChannel shutdownNow() {
    return shutdown();
  }

  @Override
  public boolean isShutdown() {
    return released.get();
  }

  @Override
  public boolean isTerminated() {
    return released.get();
  }

  @Override
  public boolean awaitTermination(long timeout, TimeUnit unit) {
    return true;
  }
}
