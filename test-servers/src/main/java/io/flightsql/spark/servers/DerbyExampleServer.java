package io.flightsql.spark.servers;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.security.MessageDigest;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.flight.CallStatus;
import org.apache.arrow.flight.FlightServer;
import org.apache.arrow.flight.Location;
import org.apache.arrow.flight.auth2.BasicCallHeaderAuthenticator;
import org.apache.arrow.flight.auth2.CallHeaderAuthenticator;
import org.apache.arrow.flight.auth2.GeneratedBearerTokenAuthenticator;
import org.apache.arrow.flight.sql.example.FlightSqlExample;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;

/**
 * Arrow Java's Flight SQL example server ({@link FlightSqlExample}, backed by embedded Derby) in
 * this JVM, listening on 127.0.0.1 only. The example's own {@code main} binds 0.0.0.0:55555, so
 * this launcher builds the server itself.
 *
 * <p>The example (re)creates its Derby database at {@code target/<dbName>}, relative to the working
 * directory, which Failsafe sets to this module: the database lives in this module's build
 * directory, and so does Derby's log.
 *
 * <p>{@link #builder} can add Flight basic authentication (Arrow's {@code
 * BasicCallHeaderAuthenticator} inside its {@code GeneratedBearerTokenAuthenticator}: a correct
 * {@code Basic} header is answered with a bearer token for later calls) and TLS; {@link #start}
 * starts the example without either, as Arrow ships it.
 */
// close() waits for the server to stop, and may be interrupted: callers' try-with-resources are
// expected to pass the InterruptedException on.
@SuppressWarnings("try")
public final class DerbyExampleServer implements AutoCloseable {
  private static final int START_ATTEMPTS = 3;

  private final String dbName;
  private final Location location;
  private final BufferAllocator allocator;
  private final FlightSqlExample producer;
  private final FlightServer server;

  private DerbyExampleServer(
      String dbName,
      Location location,
      BufferAllocator allocator,
      FlightSqlExample producer,
      FlightServer server) {
    this.dbName = dbName;
    this.location = location;
    this.allocator = allocator;
    this.producer = producer;
    this.server = server;
  }

  /** Starts the example on a free port, without authentication or TLS. */
  public static DerbyExampleServer start(String dbName) throws Exception {
    return builder(dbName).start();
  }

  /** A launcher of the example with its database at {@code target/<dbName>}. */
  public static Builder builder(String dbName) {
    return new Builder(dbName);
  }

  /**
   * Starts the example on a free port. The example must know its address before it starts (it names
   * it in every FlightEndpoint), so the port is picked first and the start retried if another
   * process took it in between.
   */
  private static DerbyExampleServer start(Builder options) throws Exception {
    String dbName = options.dbName;
    Path workingTarget = Paths.get("target").toAbsolutePath().normalize();
    if (!workingTarget.equals(ServerPaths.buildDir())) {
      throw new IllegalStateException(
          "FlightSqlExample writes its database to ./target/"
              + dbName
              + ", which is not this module's build directory "
              + ServerPaths.buildDir()
              + "; run the tests from the integration-tests directory (Maven does)");
    }
    if (System.getProperty("derby.stream.error.file") == null) {
      System.setProperty(
          "derby.stream.error.file", ServerPaths.buildDir().resolve("derby.log").toString());
    }
    IOException lastBindFailure = null;
    for (int attempt = 1; attempt <= START_ATTEMPTS; attempt++) {
      Location location =
          options.certificateChain == null
              ? Location.forGrpcInsecure(FreePorts.LOOPBACK, FreePorts.pick())
              : Location.forGrpcTls(FreePorts.LOOPBACK, FreePorts.pick());
      BufferAllocator allocator = new RootAllocator();
      FlightSqlExample producer = new FlightSqlExample(location, dbName);
      FlightServer.Builder builder = FlightServer.builder(allocator, location, producer);
      if (options.username != null) {
        builder.headerAuthenticator(
            new GeneratedBearerTokenAuthenticator(
                new BasicCallHeaderAuthenticator(
                    credentialValidator(options.username, options.password))));
      }
      if (options.certificateChain != null) {
        builder.useTls(options.certificateChain.toFile(), options.privateKey.toFile());
      }
      FlightServer server = builder.build();
      try {
        server.start();
        return new DerbyExampleServer(dbName, location, allocator, producer, server);
      } catch (IOException e) {
        lastBindFailure = e;
        server.close();
        closeExample(producer);
        allocator.close();
        shutDownDatabase(dbName);
      }
    }
    throw new IllegalStateException(
        "Could not start FlightSqlExample after " + START_ATTEMPTS + " attempts", lastBindFailure);
  }

  /** {@code grpc://127.0.0.1:<port>}, or {@code grpc+tls://127.0.0.1:<port>} with TLS. */
  public String uri() {
    return location.getUri().toString().replaceFirst("^grpc\\+tcp://", "grpc://");
  }

  /** Accepts one user name and password, compared in constant time; the user is the peer. */
  private static BasicCallHeaderAuthenticator.CredentialValidator credentialValidator(
      String username, String password) {
    byte[] expectedUser = username.getBytes(StandardCharsets.UTF_8);
    byte[] expectedPassword = password.getBytes(StandardCharsets.UTF_8);
    return (user, pass) -> {
      boolean userMatches =
          MessageDigest.isEqual(expectedUser, user.getBytes(StandardCharsets.UTF_8));
      boolean passwordMatches =
          MessageDigest.isEqual(expectedPassword, pass.getBytes(StandardCharsets.UTF_8));
      if (!userMatches || !passwordMatches) {
        throw CallStatus.UNAUTHENTICATED
            .withDescription("Invalid user name or password")
            .toRuntimeException();
      }
      return (CallHeaderAuthenticator.AuthResult) () -> username;
    };
  }

  /**
   * Stops the server, closes the example (its connection pool and its allocator), then shuts the
   * Derby database down so its files are released.
   *
   * <p>The example itself leaks Arrow memory: every DoGet leaves its batch's buffers in the
   * example's own root allocator, whose close then reports "Memory was leaked". That is the
   * example's bug, not the client's, so it is printed rather than failing the tests; the
   * connector's own memory is checked separately (see {@link ArrowLeakCheckExtension}).
   */
  @Override
  public void close() throws Exception {
    try {
      server.shutdown();
      if (!server.awaitTermination(10, TimeUnit.SECONDS)) {
        throw new IllegalStateException("FlightSqlExample at " + uri() + " did not stop in 10 s");
      }
    } finally {
      try {
        server.close();
        closeExample(producer);
        allocator.close();
      } finally {
        shutDownDatabase(dbName);
      }
    }
  }

  private static void closeExample(FlightSqlExample producer) throws Exception {
    try {
      producer.close();
    } catch (IllegalStateException e) {
      if (e.getMessage() == null || !e.getMessage().contains("Memory was leaked")) {
        throw e;
      }
      System.err.println(
          "FlightSqlExample leaked Arrow memory of its own (a known bug of the example's DoGet): "
              + e.getMessage().strip().lines().findFirst().orElse(""));
    }
  }

  /** Derby reports a clean shutdown of one database as SQLState 08006. */
  private static void shutDownDatabase(String dbName) throws SQLException {
    try {
      DriverManager.getConnection("jdbc:derby:target/" + dbName + ";shutdown=true").close();
    } catch (SQLException e) {
      if (!"08006".equals(e.getSQLState())) {
        throw e;
      }
    }
  }

  /** How to start the example: the database name, and optionally authentication and TLS. */
  public static final class Builder {
    private final String dbName;
    private String username;
    private String password;
    private Path certificateChain;
    private Path privateKey;

    private Builder(String dbName) {
      this.dbName = dbName;
    }

    /** Flight basic authentication with this user name and password; bearer tokens after. */
    public Builder basicAuth(String username, String password) {
      this.username = username;
      this.password = password;
      return this;
    }

    /** TLS with this certificate chain and PKCS#8 private key (PEM files). */
    public Builder tls(Path certificateChain, Path privateKey) {
      this.certificateChain = certificateChain;
      this.privateKey = privateKey;
      return this;
    }

    public DerbyExampleServer start() throws Exception {
      return DerbyExampleServer.start(this);
    }
  }
}
