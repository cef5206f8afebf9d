package io.flightsql.spark.it;

import io.flightsql.spark.servers.GoSqliteServer;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.wait.strategy.Wait;
import org.testcontainers.images.builder.ImageFromDockerfile;
import org.testcontainers.junit.jupiter.Container;
import org.testcontainers.junit.jupiter.Testcontainers;

/**
 * The pattern for servers that only ship as container images (Dremio, Doris, StarRocks, InfluxDB 3,
 * GizmoSQL): the same contract, against a server in a Testcontainers container. Skipped where there
 * is no Docker engine, which is the case on the project's build machines; the server here is
 * arrow-go's SQLite example, built into a small image, because it needs no credentials.
 */
@Testcontainers(disabledWithoutDocker = true)
class DockerSqliteIT extends FlightSqlContractSuite {
  private static final int PORT = 31337;

  @Container
  static final GenericContainer<?> SERVER =
      new GenericContainer<>(
              new ImageFromDockerfile("spark-flightsql-it/sqlite-flightsql-server", false)
                  .withDockerfileFromBuilder(
                      image ->
                          image
                              .from("golang:1.26")
                              .env("CGO_ENABLED", "0")
                              .env("GOBIN", "/usr/local/bin")
                              .run("go install " + GoSqliteServer.PACKAGE)
                              .expose(PORT)
                              .entryPoint(
                                  GoSqliteServer.BINARY,
                                  "-host",
                                  "0.0.0.0",
                                  "-port",
                                  String.valueOf(PORT))
                              .build()))
          .withExposedPorts(PORT)
          .waitingFor(Wait.forListeningPort());

  @Override
  protected ServerQuirks startServer() {
    return new SqliteQuirks("grpc://" + SERVER.getHost() + ":" + SERVER.getMappedPort(PORT));
  }
}
