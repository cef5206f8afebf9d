package io.flightsql.spark.server;

import com.google.protobuf.Any;
import com.google.protobuf.InvalidProtocolBufferException;
import io.grpc.CallOptions;
import io.grpc.ClientCall;
import io.grpc.HandlerRegistry;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerMethodDefinition;
import io.grpc.Status;
import io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.NettyServerBuilder;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.flight.impl.Flight;

/**
 * A gRPC relay on 127.0.0.1 in front of a Flight SQL server, that records every call a client makes
 * through it: for servers this project did not write, whose own calls cannot be recorded (see
 * {@link CallRecorder} for the embedded one). Each call is passed on as it is, byte for byte,
 * headers, messages and trailers both ways, and recorded by its method, with the Flight SQL command
 * of a GetFlightInfo, PollFlightInfo, GetSchema or DoPut and the type of a DoAction: {@code
 * GetFlightInfo(CommandStatementQuery)}, {@code DoAction(CreatePreparedStatement)}, {@code DoGet}.
 *
 * <p>A FlightEndpoint that names the server's own address would send its DoGet there, past the
 * relay: so in the FlightInfo a GetFlightInfo or PollFlightInfo answers, a location of the server's
 * port on a loopback address is rewritten to name the relay instead (the one change to what
 * passes). Thread-safe.
 */
public final class CallCountingRelay implements AutoCloseable {
  private static final String SERVICE = "arrow.flight.protocol.FlightService/";

  private final int upstreamPort;
  private final ManagedChannel upstream;
  private final Server server;
  private final List<String> calls = new ArrayList<>();

  private CallCountingRelay(String host, int upstreamPort) throws IOException {
    this.upstreamPort = upstreamPort;
    upstream =
        NettyChannelBuilder.forAddress(host, upstreamPort)
            .usePlaintext()
            .maxInboundMessageSize(Integer.MAX_VALUE)
            .maxInboundMetadataSize(Integer.MAX_VALUE)
            .build();
    server =
        NettyServerBuilder.forAddress(new InetSocketAddress(host, 0))
            .fallbackHandlerRegistry(new Relayed())
            .maxInboundMessageSize(Integer.MAX_VALUE)
            .maxInboundMetadataSize(Integer.MAX_VALUE)
            .build()
            .start();
  }

  /** Relays a plaintext server at {@code host:port} (a loopback address). */
  public static CallCountingRelay start(String host, int port) throws IOException {
    return new CallCountingRelay(host, port);
  }

  /** Relays the plaintext server of a {@code grpc://host:port} URI. */
  public static CallCountingRelay start(String uri) throws IOException {
    java.net.URI parsed = java.net.URI.create(uri);
    return start(parsed.getHost(), parsed.getPort());
  }

  /** {@code grpc://127.0.0.1:<port>} of the relay. */
  public String uri() {
    return "grpc://127.0.0.1:" + server.getPort();
  }

  /** The calls recorded since the start or the last {@link #clear()}, oldest first. */
  public List<String> calls() {
    synchronized (calls) {
      return List.copyOf(calls);
    }
  }

  public void clear() {
    synchronized (calls) {
      calls.clear();
    }
  }

  /** Stops the relay and its channel to the server, waiting up to 10 s for each. */
  @Override
  public void close() {
    server.shutdownNow();
    upstream.shutdownNow();
    try {
      server.awaitTermination(10, TimeUnit.SECONDS);
      upstream.awaitTermination(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private void record(String call) {
    synchronized (calls) {
      calls.add(call);
    }
  }

  /** The name a call is recorded under, from its method and first message. */
  static String describe(String method, byte[] first) {
    try {
      switch (method) {
        case "GetFlightInfo":
        case "PollFlightInfo":
        case "GetSchema":
          return method + "(" + command(Flight.FlightDescriptor.parseFrom(first).getCmd()) + ")";
        case "DoPut":
          return method
              + "("
              + command(Flight.FlightData.parseFrom(first).getFlightDescriptor().getCmd())
              + ")";
        case "DoAction":
          return method + "(" + Flight.Action.parseFrom(first).getType() + ")";
        default:
          return method;
      }
    } catch (InvalidProtocolBufferException e) {
      return method + "(?)";
    }
  }

  private static String command(com.google.protobuf.ByteString cmd)
      throws InvalidProtocolBufferException {
    String type = Any.parseFrom(cmd).getTypeUrl();
    return type.substring(type.lastIndexOf('.') + 1);
  }

  /** An answer with the server's own locations made the relay's. */
  private byte[] relocated(String method, byte[] message) {
    try {
      switch (method) {
        case "GetFlightInfo":
          return relocated(Flight.FlightInfo.parseFrom(message)).toByteArray();
        case "PollFlightInfo":
          Flight.PollInfo poll = Flight.PollInfo.parseFrom(message);
          return poll.hasInfo()
              ? poll.toBuilder().setInfo(relocated(poll.getInfo())).build().toByteArray()
              : message;
        default:
          return message;
      }
    } catch (InvalidProtocolBufferException e) {
      return message;
    }
  }

  private Flight.FlightInfo relocated(Flight.FlightInfo info) {
    Flight.FlightInfo.Builder builder = info.toBuilder();
    for (Flight.FlightEndpoint.Builder endpoint : builder.getEndpointBuilderList()) {
      for (Flight.Location.Builder location : endpoint.getLocationBuilderList()) {
        location.setUri(relocated(location.getUri()));
      }
    }
    return builder.build();
  }

  /** {@code uri} with the relay's port if it names the server's port on a loopback address. */
  private String relocated(String uri) {
    try {
      java.net.URI parsed = new java.net.URI(uri);
      String host = parsed.getHost();
      boolean loopback =
          "127.0.0.1".equals(host) || "localhost".equals(host) || "[::1]".equals(host);
      if (!loopback || parsed.getPort() != upstreamPort) {
        return uri;
      }
      return new java.net.URI(
              parsed.getScheme(),
              null,
              "127.0.0.1",
              server.getPort(),
              parsed.getPath(),
              parsed.getQuery(),
              parsed.getFragment())
          .toString();
    } catch (java.net.URISyntaxException e) {
      return uri;
    }
  }

  /** Every method of every service, passed on as bytes. */
  private final class Relayed extends HandlerRegistry {
    @Override
    public ServerMethodDefinition<?, ?> lookupMethod(String fullName, String authority) {
      MethodDescriptor<byte[], byte[]> descriptor =
          MethodDescriptor.<byte[], byte[]>newBuilder()
              .setType(MethodDescriptor.MethodType.UNKNOWN)
              .setFullMethodName(fullName)
              .setRequestMarshaller(Bytes.INSTANCE)
              .setResponseMarshaller(Bytes.INSTANCE)
              .build();
      String method =
          fullName.startsWith(SERVICE) ? fullName.substring(SERVICE.length()) : fullName;
      return ServerMethodDefinition.create(descriptor, new Handler(descriptor, method));
    }
  }

  /** One relayed call: the client's messages go up, the server's come back down. */
  private final class Handler implements ServerCallHandler<byte[], byte[]> {
    private final MethodDescriptor<byte[], byte[]> descriptor;
    private final String method;

    Handler(MethodDescriptor<byte[], byte[]> descriptor, String method) {
      this.descriptor = descriptor;
      this.method = method;
    }

    @Override
    public ServerCall.Listener<byte[]> startCall(
        ServerCall<byte[], byte[]> down, Metadata headers) {
      ClientCall<byte[], byte[]> up = upstream.newCall(descriptor, CallOptions.DEFAULT);
      up.start(
          new ClientCall.Listener<>() {
            @Override
            public void onHeaders(Metadata answered) {
              down.sendHeaders(answered);
            }

            @Override
            public void onMessage(byte[] message) {
              down.sendMessage(relocated(method, message));
              up.request(1);
            }

            @Override
            public void onClose(Status status, Metadata trailers) {
              down.close(status, trailers);
            }
          },
          headers);
      up.request(1);
      down.request(1);
      return new ServerCall.Listener<>() {
        private boolean first = true;

        @Override
        public void onMessage(byte[] message) {
          if (first) {
            first = false;
            record(describe(method, message));
          }
          up.sendMessage(message);
          down.request(1);
        }

        @Override
        public void onHalfClose() {
          if (first) {
            first = false;
            record(method);
          }
          up.halfClose();
        }

        @Override
        public void onCancel() {
          up.cancel("the client cancelled the call", null);
        }
      };
    }
  }

  /** Messages as their bytes. */
  private enum Bytes implements MethodDescriptor.Marshaller<byte[]> {
    INSTANCE;

    @Override
    public InputStream stream(byte[] value) {
      return new ByteArrayInputStream(value);
    }

    @Override
    public byte[] parse(InputStream stream) {
      try {
        return stream.readAllBytes();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }
}
