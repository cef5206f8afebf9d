package io.flightsql.spark.client.transport;

import io.grpc.CallOptions;
import io.grpc.ClientCall;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import java.util.concurrent.TimeUnit;

/**
 * A view of one of {@link FlightChannels}' channels that a Flight client may "close" without
 * closing the channel other sessions share. Arrow's own non-closing wrapper is only available for
 * clients without middleware. Its DoGet calls receive few batches ahead ({@link ReadAhead}).
 */
final class SharedChannel extends ManagedChannel {
  private final ManagedChannel channel;

  SharedChannel(ManagedChannel channel) {
    this.channel = channel;
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
    return this;
  }

  @Override
  public ManagedChannel shutdownNow() {
    return this;
  }

  @Override
  public boolean isShutdown() {
    return false;
  }

  @Override
  public boolean isTerminated() {
    return false;
  }

  @Override
  public boolean awaitTermination(long timeout, TimeUnit unit) {
    return true;
  }
}
