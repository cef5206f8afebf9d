package io.flightsql.spark.testing;

import com.google.protobuf.Any;
import com.google.protobuf.ByteString;
import com.google.protobuf.InvalidProtocolBufferException;
import io.grpc.ForwardingServerCall;
import io.grpc.Metadata;
import io.grpc.Server;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.ServerInterceptors;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.flight.impl.Flight;
import org.apache.arrow.flight.impl.FlightServiceGrpc;
import org.apache.arrow.flight.sql.impl.FlightSql;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * A real Arrow Flight SQL server, in-process on 127.0.0.1 (or another loopback address) and a free
 * port, that serves Arrow IPC streams built message by message by the test: any type Arrow Java can
 * put in a vector, dictionaries replaced or extended between record batches, several endpoints,
 * endpoint locations naming other servers, and streams that fail part way. It records the method
 * and headers of every call it receives ({@link #calls()}).
 *
 * <p>It speaks only what a reading client needs: GetSchema and GetFlightInfo on a {@code
 * CommandStatementQuery} whose query text is the name of a registered dataset, and DoGet on the
 * tickets it hands out. Everything else (prepared statements, metadata commands, DoPut) answers
 * UNIMPLEMENTED, so clients that fall back from GetSchema to a prepared statement see a server
 * without one; GetSqlInfo too, unless a dataset is registered as {@link #SQL_INFO}, which then is
 * its answer. An unknown dataset answers NOT_FOUND naming it.
 *
 * <p>It is written against gRPC rather than Arrow's {@code FlightProducer} because Arrow's server
 * listener sends dictionaries only once, before the first batch; a stream that replaces a
 * dictionary part way, or sends a delta, needs its messages written one by one.
 *
 * <pre>{@code
 * try (HandBuiltFlightSqlServer server = HandBuiltFlightSqlServer.start()) {
 *   server.dataset("colors", root.getSchema())
 *       .dictionary(firstDictionary, 1)
 *       .batch(root)
 *       .dictionary(replacement, 1)
 *       .batch(root)
 *       .register();
 *   read(server.uri(), "colors");
 * }
 * }</pre>
 */
public final class HandBuiltFlightSqlServer implements AutoCloseable {
  private static final String TICKET_PREFIX = "handbuilt:";

  /** The name of the dataset that answers GetSqlInfo, in GetSqlInfo's schema. */
  public static final String SQL_INFO = "handbuilt:GetSqlInfo";

  private final Map<String, HandBuiltDataset> datasets = new ConcurrentHashMap<>();
  private final String host;
  private final Server server;
  private final List<ReceivedCall> calls = new CopyOnWriteArrayList<>();
  private volatile List<String> locations = List.of();

  /** {@code Basic <user:password>} and the bearer token it gets, when logins are required. */
  private volatile String[] login;

  private HandBuiltFlightSqlServer(String host) throws IOException {
    this.host = host;
    this.server =
        NettyServerBuilder.forAddress(new InetSocketAddress(host, 0))
            .addService(ServerInterceptors.intercept(new Service(), new Recorder()))
            .build()
            .start();
  }

  /** Starts a server with no datasets on 127.0.0.1 and a free port. */
  public static HandBuiltFlightSqlServer start() {
    return start("127.0.0.1");
  }

  /**
   * Starts a server with no datasets on {@code host} (another loopback address, such as {@code
   * 127.0.0.2}, stands for another machine) and a free port.
   */
  public static HandBuiltFlightSqlServer start(String host) {
    try {
      return new HandBuiltFlightSqlServer(host);
    } catch (IOException e) {
      throw new UncheckedIOException("Could not start the hand-built Flight SQL server", e);
    }
  }

  public int port() {
    return server.getPort();
  }

  /** The URI clients connect to, {@code grpc://<host>:<port>}. */
  public String uri() {
    return "grpc://" + host + ":" + port();
  }

  /**
   * The locations every endpoint of a FlightInfo names from now on, in order; none (the default)
   * means this server. Tickets name only the dataset and the endpoint, so any hand-built server
   * with the same dataset registered serves them.
   */
  public void endpointLocations(String... uris) {
    locations = List.of(uris);
  }

  /**
   * From now on, every call but a Handshake needs {@code authorization: Bearer <token>}, else it
   * fails with UNAUTHENTICATED; a Handshake with {@code authorization: Basic} and this user and
   * password gets the token back in its {@code authorization} header, as Arrow's basic-to-bearer
   * authenticator answers.
   */
  public void requireBasicLogin(String user, String password, String token) {
    String basic =
        Base64.getEncoder()
            .encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8));
    login = new String[] {"Basic " + basic, "Bearer " + token};
  }

  /** A call this server received: its method ({@code DoGet}) and request headers, non-binary. */
  public record ReceivedCall(String method, Map<String, String> headers) {}

  /** The calls received so far, oldest first. */
  public List<ReceivedCall> calls() {
    return List.copyOf(calls);
  }

  /** Records each call's method and headers before it runs. */
  private final class Recorder implements ServerInterceptor {
    @Override
    public <Q, R> ServerCall.Listener<Q> interceptCall(
        ServerCall<Q, R> call, Metadata headers, ServerCallHandler<Q, R> next) {
      Map<String, String> received = new TreeMap<>();
      for (String name : headers.keys()) {
        if (!name.endsWith(Metadata.BINARY_HEADER_SUFFIX)) {
          received.put(name, headers.get(Metadata.Key.of(name, Metadata.ASCII_STRING_MARSHALLER)));
        }
      }
      String method = call.getMethodDescriptor().getBareMethodName();
      calls.add(new ReceivedCall(method, received));
      String[] required = login;
      if (required == null) {
        return next.startCall(call, headers);
      }
      String given = received.get("authorization");
      boolean handshake = method.equals("Handshake");
      if (!(handshake ? required[0] : required[1]).equals(given)) {
        call.close(
            Status.UNAUTHENTICATED.withDescription("wrong or missing credentials"), new Metadata());
        return new ServerCall.Listener<>() {};
      }
      if (!handshake) {
        return next.startCall(call, headers);
      }
      return next.startCall(
          new ForwardingServerCall.SimpleForwardingServerCall<>(call) {
            @Override
            public void sendHeaders(Metadata answer) {
              answer.put(AUTHORIZATION, required[1]);
              super.sendHeaders(answer);
            }
          },
          headers);
    }
  }

  private static final Metadata.Key<String> AUTHORIZATION =
      Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER);

  /**
   * Starts describing the dataset served for the query text {@code name}; nothing is served until
   * {@link HandBuiltDataset.Builder#register()}. Registering a name again replaces the dataset.
   *
   * @param schema the columns, as a {@code VectorSchemaRoot} holds them: a dictionary-encoded
   *     column may carry its index type or its value type, as long as the stream sends a dictionary
   *     with its id
   */
  public HandBuiltDataset.Builder dataset(String name, Schema schema) {
    return new HandBuiltDataset.Builder(name, schema, dataset -> datasets.put(name, dataset));
  }

  /** Stops serving at once; streams still open fail on the client. */
  @Override
  public void close() {
    server.shutdownNow();
    try {
      server.awaitTermination(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private HandBuiltDataset datasetNamed(String name) {
    HandBuiltDataset dataset = datasets.get(name);
    if (dataset == null) {
      throw Status.NOT_FOUND
          .withDescription(
              "No dataset named '"
                  + name
                  + "' on the hand-built server; registered: "
                  + new TreeSet<>(datasets.keySet()))
          .asRuntimeException();
    }
    return dataset;
  }

  private HandBuiltDataset datasetOf(Flight.FlightDescriptor descriptor) {
    if (descriptor.getType() != Flight.FlightDescriptor.DescriptorType.CMD) {
      throw Status.INVALID_ARGUMENT
          .withDescription("Expected a command descriptor, got " + descriptor.getType())
          .asRuntimeException();
    }
    Any command;
    try {
      command = Any.parseFrom(descriptor.getCmd());
    } catch (InvalidProtocolBufferException e) {
      throw Status.INVALID_ARGUMENT
          .withDescription("The command is not a protobuf Any: " + e.getMessage())
          .asRuntimeException();
    }
    if (command.is(FlightSql.CommandGetSqlInfo.class) && datasets.containsKey(SQL_INFO)) {
      return datasets.get(SQL_INFO);
    }
    if (!command.is(FlightSql.CommandStatementQuery.class)) {
      throw Status.UNIMPLEMENTED
          .withDescription(
              "The hand-built server only answers CommandStatementQuery, not "
                  + command.getTypeUrl())
          .asRuntimeException();
    }
    try {
      return datasetNamed(command.unpack(FlightSql.CommandStatementQuery.class).getQuery());
    } catch (InvalidProtocolBufferException e) {
      throw Status.INVALID_ARGUMENT
          .withDescription("Malformed CommandStatementQuery: " + e.getMessage())
          .asRuntimeException();
    }
  }

  private static String ticketText(String name, int endpoint) {
    return TICKET_PREFIX + endpoint + ":" + name;
  }

  /** The gRPC Flight service over the registered datasets. */
  private final class Service extends FlightServiceGrpc.FlightServiceImplBase {
    /** Answers a handshake with one empty message, which carries the headers, and its end. */
    @Override
    public StreamObserver<Flight.HandshakeRequest> handshake(
        StreamObserver<Flight.HandshakeResponse> observer) {
      observer.onNext(Flight.HandshakeResponse.getDefaultInstance());
      return new StreamObserver<>() {
        @Override
        public void onNext(Flight.HandshakeRequest request) {}

        @Override
        public void onError(Throwable t) {}

        @Override
        public void onCompleted() {
          observer.onCompleted();
        }
      };
    }

    @Override
    public void getSchema(
        Flight.FlightDescriptor request, StreamObserver<Flight.SchemaResult> observer) {
      try {
        HandBuiltDataset dataset = datasetOf(request);
        observer.onNext(
            Flight.SchemaResult.newBuilder()
                .setSchema(ByteString.copyFrom(dataset.encapsulatedSchema()))
                .build());
        observer.onCompleted();
      } catch (StatusRuntimeException e) {
        observer.onError(e);
      }
    }

    @Override
    public void getFlightInfo(
        Flight.FlightDescriptor request, StreamObserver<Flight.FlightInfo> observer) {
      try {
        HandBuiltDataset dataset = datasetOf(request);
        Flight.FlightInfo.Builder info =
            Flight.FlightInfo.newBuilder()
                .setSchema(ByteString.copyFrom(dataset.encapsulatedSchema()))
                .setFlightDescriptor(request)
                .setTotalRecords(dataset.rowCount())
                .setTotalBytes(-1);
        for (int i = 0; i < dataset.endpoints().size(); i++) {
          ByteString ticket =
              ByteString.copyFrom(ticketText(dataset.name(), i), StandardCharsets.UTF_8);
          Flight.FlightEndpoint.Builder endpoint =
              Flight.FlightEndpoint.newBuilder()
                  .setTicket(Flight.Ticket.newBuilder().setTicket(ticket));
          for (String location : locations) {
            endpoint.addLocation(Flight.Location.newBuilder().setUri(location));
          }
          info.addEndpoint(endpoint);
        }
        observer.onNext(info.build());
        observer.onCompleted();
      } catch (StatusRuntimeException e) {
        observer.onError(e);
      }
    }

    /**
     * Sends the endpoint's messages as fast as the client's flow-control window allows, so a client
     * that stops reading holds the server back as a real one would.
     */
    @Override
    public void doGet(Flight.Ticket request, StreamObserver<Flight.FlightData> observer) {
      HandBuiltDataset.Endpoint endpoint;
      try {
        endpoint = endpointOf(request);
      } catch (StatusRuntimeException e) {
        observer.onError(e);
        return;
      }
      ServerCallStreamObserver<Flight.FlightData> call =
          (ServerCallStreamObserver<Flight.FlightData>) observer;
      Iterator<Flight.FlightData> messages = endpoint.messages().iterator();
      boolean[] finished = {false};
      // gRPC runs both handlers on the call's serializing executor, one at a time.
      call.setOnCancelHandler(() -> finished[0] = true);
      call.setOnReadyHandler(
          () -> {
            while (!finished[0] && call.isReady() && messages.hasNext()) {
              call.onNext(messages.next());
            }
            if (!finished[0] && !messages.hasNext()) {
              finished[0] = true;
              if (endpoint.failure() == null) {
                call.onCompleted();
              } else {
                call.onError(endpoint.failure().asRuntimeException());
              }
            }
          });
    }

    private HandBuiltDataset.Endpoint endpointOf(Flight.Ticket ticket) {
      String text = ticket.getTicket().toStringUtf8();
      int colon = text.indexOf(':', TICKET_PREFIX.length());
      if (!text.startsWith(TICKET_PREFIX) || colon < 0) {
        throw Status.NOT_FOUND
            .withDescription("Not a ticket of the hand-built server: " + text)
            .asRuntimeException();
      }
      HandBuiltDataset dataset = datasetNamed(text.substring(colon + 1));
      int index;
      try {
        index = Integer.parseInt(text.substring(TICKET_PREFIX.length(), colon));
      } catch (NumberFormatException e) {
        index = -1;
      }
      if (index < 0 || index >= dataset.endpoints().size()) {
        throw Status.NOT_FOUND
            .withDescription("Dataset '" + dataset.name() + "' has no endpoint in ticket " + text)
            .asRuntimeException();
      }
      return dataset.endpoints().get(index);
    }
  }
}
