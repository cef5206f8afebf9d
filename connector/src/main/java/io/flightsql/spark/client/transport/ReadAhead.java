package io.flightsql.spark.client.transport;

import io.grpc.ClientCall;
import io.grpc.ForwardingClientCall;
import io.grpc.MethodDescriptor;

/**
 * Bounds how many record batches a DoGet stream receives ahead of its reader. Arrow Flight's {@code
 * FlightStream} keeps five messages requested beyond those it has handed out ({@code
 * FlightClient.getStream}, not configurable), and gRPC turns each delivered message into Arrow
 * memory at once: a partition could hold six batches besides the one Spark reads. This call passes
 * on one message per request of the stream, whatever the number asked for ({@link #AHEAD} for the
 * first). A stream asks twice before its first {@code next()} (gRPC's first request, then Flight's
 * five) and once in each {@code next()}, so at most two batches wait besides the one Spark reads:
 * three in all, as {@code MemoryPerTaskTest} and the performance benchmark measure. The bytes
 * beyond stay in gRPC's flow-control window, where the server waits for room.
 *
 * <p>It cannot stall a stream: {@code FlightStream.next()} asks for a message before each wait, and
 * each ask passes one on.
 */
final class ReadAhead<Q, R> extends ForwardingClientCall.SimpleForwardingClientCall<Q, R> {
  /** Messages passed on for a stream's first request. */
  static final int AHEAD = 1;

  private static final String DO_GET = "arrow.flight.protocol.FlightService/DoGet";

  private boolean started;

  private ReadAhead(ClientCall<Q, R> call) {
    super(call);
  }

  /** The call, bounded if it is a DoGet. */
  static <Q, R> ClientCall<Q, R> bound(MethodDescriptor<Q, R> method, ClientCall<Q, R> call) {
    return DO_GET.equals(method.getFullMethodName()) ? new ReadAhead<>(call) : call;
  }

  @Override
  public synchronized void request(int messages) {
    if (messages <= 0) {
      super.request(messages);
      return;
    }
    super.request(started ? 1 : AHEAD);
    started = true;
  }
}
