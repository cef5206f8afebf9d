package io.flightsql.spark.server;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.ArrayDeque;
import java.util.Deque;
import org.apache.arrow.flight.FlightServer;
import org.apache.arrow.flight.FlightServerMiddleware;
import org.apache.arrow.flight.Location;
import org.apache.arrow.flight.auth2.Auth2Constants;
import org.apache.arrow.flight.auth2.ServerCallHeaderAuthMiddleware;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Puts a {@link DuckDbFlightSqlServer} together from a {@link ServerConfiguration}: the allocators,
 * the database with its demo and user data, the producer, the middleware, and the Flight server.
 * What was opened before a failure is closed again.
 */
final class ServerStartup {

  // The start-up line is the server's, under the logger it has always had.
  private static final Logger LOG = LoggerFactory.getLogger(DuckDbFlightSqlServer.class);

  private ServerStartup() {}

  /**
   * Creates the database, loads the data and starts listening.
   *
   * @throws IOException if the port cannot be bound or the data cannot be loaded
   * @throws IllegalArgumentException with DuckDB's message if DuckDB rejects a setting
   */
  static DuckDbFlightSqlServer start(ServerConfiguration config) throws IOException {
    if (config.data() != null && !Files.exists(config.data())) {
      throw new IOException(
          "Invalid value '" + config.data() + "' for option 'data': no such file");
    }
    if (config.trustedClientCa() != null && !config.tls()) {
      throw new IllegalArgumentException(
          "Option 'clientCertificates' needs TLS: set tls(certificateChain, privateKey) too");
    }
    Path[] files = {config.tlsCertificateChain(), config.tlsPrivateKey(), config.trustedClientCa()};
    for (Path file : files) {
      if (file != null && !Files.isReadable(file)) {
        throw new IOException(
            "Invalid value '" + file + "' for option 'tls': no such readable file");
      }
    }
    long startNanos = System.nanoTime();
    Deque<AutoCloseable> opened = new ArrayDeque<>();
    try {
      BufferAllocator rootAllocator = new RootAllocator();
      opened.push(rootAllocator);
      DuckDbDatabase database = DuckDbDatabase.openInMemory(config.settings());
      opened.push(database);
      DemoData.createTypesDemo(database);
      DemoData.createLineitem(database, config.lineitemRows());
      if (config.data() != null) {
        DataLoader.load(database, config.data());
      }
      database.serveDeterministically();
      BufferAllocator serverAllocator =
          rootAllocator.newChildAllocator("flight-server", 0, Long.MAX_VALUE);
      opened.push(serverAllocator);
      BufferAllocator producerAllocator =
          rootAllocator.newChildAllocator("flight-sql-producer", 0, Long.MAX_VALUE);
      // Until the server runs, no call can hold producer memory: closing the allocator suffices.
      opened.push(producerAllocator);
      DuckDbFlightSqlProducer producer =
          new DuckDbFlightSqlProducer(
              database,
              producerAllocator,
              config.endpoints(),
              config.batchRows(),
              config.endpointLocations(),
              config.longQueries(),
              config.actionObservers(),
              config.doGetPacing(),
              config.doGetCompression(),
              config.withoutCommands());
      ServerAuthenticator authenticator =
          config.password() == null && config.bearerToken() == null
              ? null
              : new ServerAuthenticator(config.username(), config.password(), config.bearerToken());
      WireBytes wireBytes = new WireBytes();
      FlightServer server =
          flightServer(config, serverAllocator, producer, authenticator, wireBytes);
      opened.push(server);
      server.start();
      DuckDbFlightSqlServer started =
          new DuckDbFlightSqlServer(
              config.host(),
              config.tls(),
              server,
              authenticator,
              producer,
              database,
              serverAllocator,
              rootAllocator,
              wireBytes);
      LOG.info(
          "Flight SQL server on {} started in {} ms (DuckDB {}, lineitem {} rows, {} endpoints"
              + " per query, {} rows per batch, DoGet compression {}, settings {}, {})",
          started.uri(),
          (System.nanoTime() - startNanos) / 1_000_000,
          database.version(),
          config.lineitemRows(),
          config.endpoints(),
          config.batchRows(),
          config.doGetCompression(),
          config.settings(),
          config.security());
      return started;
    } catch (SQLException e) {
      IOException failure =
          new IOException("Could not set up the DuckDB database: " + e.getMessage(), e);
      DuckDbFlightSqlServer.closeAll(opened, failure);
      throw failure;
    } catch (IOException | RuntimeException e) {
      DuckDbFlightSqlServer.closeAll(opened, e);
      throw e;
    }
  }

  /**
   * The Flight server around {@code producer}, with its middleware in this order: the caller's (so
   * that it sees refused calls too), authentication, sessions.
   */
  private static FlightServer flightServer(
      ServerConfiguration config,
      BufferAllocator allocator,
      DuckDbFlightSqlProducer producer,
      ServerAuthenticator authenticator,
      WireBytes wireBytes)
      throws IOException {
    Location location =
        config.tls()
            ? Location.forGrpcTls(config.host(), config.port())
            : Location.forGrpcInsecure(config.host(), config.port());
    FlightServer.Builder builder = FlightServer.builder(allocator, location, producer);
    builder.transportHint("grpc.builderConsumer", wireBytes.installer());
    for (ServerConfiguration.ExtraMiddleware<?> extra : config.middleware()) {
      extra.installOn(builder);
    }
    if (authenticator != null) {
      // Registered here rather than through headerAuthenticator(), which would put it after
      // every other middleware; under Arrow's own key, so that peerIdentity() reports the user.
      builder.middleware(
          FlightServerMiddleware.Key.of(Auth2Constants.AUTHORIZATION_HEADER),
          new ServerCallHeaderAuthMiddleware.Factory(authenticator));
    }
    if (config.sessions()) {
      // After authentication: a refused call starts no session.
      builder.middleware(DuckDbSessions.KEY, new DuckDbSessions());
    }
    if (config.tls()) {
      builder.useTls(config.tlsCertificateChain().toFile(), config.tlsPrivateKey().toFile());
    }
    if (config.trustedClientCa() != null) {
      builder.useMTlsClientVerification(config.trustedClientCa().toFile());
    }
    return builder.build();
  }
}
