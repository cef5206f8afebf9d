package io.flightsql.spark.examples;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A TCP link to a server on 127.0.0.1 through Toxiproxy, whose bandwidth can be limited, for
 * benchmarks of a slow network. Toxiproxy is the binary that the integration tests build into
 * {@code ~/.cache/spark-flightsql/toxiproxy-2.12.0/server} (or {@code -Dtoxiproxy.binary=...}); it
 * runs as a child process, listening on 127.0.0.1 only, until {@link #close()}.
 */
final class ToxiproxyLink implements AutoCloseable {
  static final String BUILD =
      "GOBIN=$HOME/.cache/spark-flightsql/toxiproxy-2.12.0 go install"
          + " github.com/Shopify/toxiproxy/v2/cmd/server@v2.12.0";

  private static final Pattern LISTEN = Pattern.compile("\"listen\"\\s*:\\s*\"[^\"]*:(\\d+)\"");
  private static final String PROXY = "benchmark";
  private static final String TOXIC = "bandwidth";

  private final Process process;
  private final int apiPort;
  private final int listenPort;
  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
  private boolean limited;

  private ToxiproxyLink(Process process, int apiPort, int upstreamPort) {
    this.process = process;
    this.apiPort = apiPort;
    String answer =
        call(
            "POST",
            "/proxies",
            "{\"name\":\""
                + PROXY
                + "\",\"listen\":\"127.0.0.1:0\",\"upstream\":\"127.0.0.1:"
                + upstreamPort
                + "\",\"enabled\":true}");
    Matcher port = LISTEN.matcher(answer);
    if (!port.find()) {
      throw new IllegalStateException("Toxiproxy's answer names no listen port: " + answer);
    }
    this.listenPort = Integer.parseInt(port.group(1));
  }

  /**
   * Starts Toxiproxy and opens a link to {@code upstreamPort} of 127.0.0.1.
   *
   * @param log the file that receives Toxiproxy's output
   */
  static ToxiproxyLink start(int upstreamPort, Path log) throws IOException, InterruptedException {
    Path binary =
        Path.of(
            System.getProperty(
                "toxiproxy.binary",
                System.getProperty("user.home")
                    + "/.cache/spark-flightsql/toxiproxy-2.12.0/server"));
    if (!Files.isExecutable(binary)) {
      throw new IllegalStateException(
          "No Toxiproxy at " + binary + ": build it with `" + BUILD + "`");
    }
    int apiPort;
    try (ServerSocket free = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      apiPort = free.getLocalPort();
    }
    Process process =
        new ProcessBuilder(
                binary.toString(), "-host", "127.0.0.1", "-port", String.valueOf(apiPort))
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
            .start();
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (!accepts(apiPort)) {
      if (!process.isAlive() || System.nanoTime() > deadline) {
        process.destroy();
        throw new IllegalStateException("Toxiproxy did not start; see " + log);
      }
      Thread.sleep(50);
    }
    return new ToxiproxyLink(process, apiPort, upstreamPort);
  }

  /** The port of 127.0.0.1 that leads to the server through the link. */
  int port() {
    return listenPort;
  }

  /**
   * Limits what the client sends through the link to {@code megabitsPerSecond}; 0 lifts the limit.
   */
  void limitUpstream(int megabitsPerSecond) {
    if (limited) {
      call("DELETE", "/proxies/" + PROXY + "/toxics/" + TOXIC, null);
      limited = false;
    }
    if (megabitsPerSecond > 0) {
      // Toxiproxy's rate is in KB/s of 1,000 bytes.
      long kilobytesPerSecond = megabitsPerSecond * 1_000_000L / 8 / 1_000;
      call(
          "POST",
          "/proxies/" + PROXY + "/toxics",
          "{\"name\":\""
              + TOXIC
              + "\",\"type\":\"bandwidth\",\"stream\":\"upstream\",\"toxicity\":1.0,"
              + "\"attributes\":{\"rate\":"
              + kilobytesPerSecond
              + "}}");
      limited = true;
    }
  }

  @Override
  public void close() {
    process.destroy();
  }

  /** Whether a TCP connection to {@code port} of 127.0.0.1 is accepted within 200 ms. */
  static boolean accepts(int port) {
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress("127.0.0.1", port), 200);
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  private String call(String method, String path, String body) {
    HttpRequest request =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + apiPort + path))
            .timeout(Duration.ofSeconds(10))
            .header("Content-Type", "application/json")
            .method(
                method,
                body == null
                    ? HttpRequest.BodyPublishers.noBody()
                    : HttpRequest.BodyPublishers.ofString(body))
            .build();
    try {
      HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
      if (response.statusCode() / 100 != 2) {
        throw new IllegalStateException(
            "Toxiproxy answered " + method + " " + path + " with HTTP " + response.statusCode());
      }
      return response.body();
    } catch (IOException e) {
      throw new IllegalStateException("Toxiproxy's API did not answer " + method + " " + path, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("Interrupted calling Toxiproxy", e);
    }
  }
}
