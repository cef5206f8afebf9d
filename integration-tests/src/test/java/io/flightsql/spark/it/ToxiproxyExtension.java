package io.flightsql.spark.it;

import io.flightsql.spark.servers.ExternalCommand;
import io.flightsql.spark.servers.FreePorts;
import io.flightsql.spark.servers.GoInstall;
import io.flightsql.spark.servers.LoopbackProcess;
import io.flightsql.spark.servers.RequiredTool;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Runs Toxiproxy, the TCP proxy that injects network faults, as a child process for one test class,
 * on 127.0.0.1 and a free port, and drives it through its HTTP API. Register it on a static field
 * with {@code @RegisterExtension}.
 *
 * <p>The binary is {@code ~/.cache/spark-flightsql/toxiproxy-2.12.0/server}, built there with
 * {@code go install} the first time (about a minute) and reused afterwards. Without a {@code go}
 * command on the PATH the test class is skipped, except in CI ({@code CI=true}), where it fails
 * ({@link RequiredTool}). Toxiproxy's output goes to {@code target/toxiproxy.log}.
 */
final class ToxiproxyExtension implements ExecutionCondition, BeforeAllCallback, AfterAllCallback {
  static final String VERSION = "v2.12.0";
  static final String PACKAGE = "github.com/Shopify/toxiproxy/v2/cmd/server@" + VERSION;

  private static final Duration START_TIMEOUT = Duration.ofSeconds(30);
  private static final Duration API_TIMEOUT = Duration.ofSeconds(10);
  private static final Pattern LISTEN = Pattern.compile("\"listen\"\\s*:\\s*\"[^\"]*:(\\d+)\"");

  private final HttpClient http = HttpClient.newBuilder().connectTimeout(API_TIMEOUT).build();
  private Process process;
  private int apiPort;

  @Override
  public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
    if (Files.isExecutable(cachedBinary()) || RequiredTool.GO.find() != null) {
      return ConditionEvaluationResult.enabled("Toxiproxy is built or buildable");
    }
    if (RequiredTool.inCi()) {
      return ConditionEvaluationResult.enabled(
          "CI=true: without Go the Toxiproxy tests fail instead of being skipped");
    }
    return ConditionEvaluationResult.disabled(
        "Skipping the Toxiproxy tests: "
            + cachedBinary()
            + " does not exist. "
            + RequiredTool.GO.missing(buildPurpose()));
  }

  @Override
  public void beforeAll(ExtensionContext context) throws Exception {
    Path binary = binary();
    Path log = TestPaths.buildDir().resolve("toxiproxy.log");
    LoopbackProcess started = LoopbackProcess.start("Toxiproxy", binary, log, 3, START_TIMEOUT);
    process = started.process();
    apiPort = started.port();
  }

  @Override
  public void afterAll(ExtensionContext context) {
    if (process != null) {
      ExternalCommand.destroyTree(process.toHandle());
      process = null;
    }
  }

  /**
   * Creates a proxy from a free port of 127.0.0.1 to {@code upstreamPort} there.
   *
   * @return the port the proxy listens on
   */
  int createProxy(String name, int upstreamPort) {
    String answer =
        call(
            "POST",
            "/proxies",
            "{\"name\":\""
                + name
                + "\",\"listen\":\"127.0.0.1:0\",\"upstream\":\"127.0.0.1:"
                + upstreamPort
                + "\",\"enabled\":true}");
    Matcher m = LISTEN.matcher(answer);
    if (!m.find()) {
      throw new IllegalStateException("Toxiproxy's answer names no listen port: " + answer);
    }
    return Integer.parseInt(m.group(1));
  }

  /**
   * Adds a toxic to every connection of the proxy, those open included.
   *
   * @param stream {@code downstream} (server to client) or {@code upstream}
   * @param attributes the toxic's numeric attributes, such as {@code latency} or {@code rate}
   */
  void addToxic(String proxy, String toxic, String type, String stream, Map<String, Long> attrs) {
    StringBuilder attributes = new StringBuilder();
    attrs.forEach(
        (key, value) ->
            attributes
                .append(attributes.length() == 0 ? "" : ",")
                .append('"')
                .append(key)
                .append("\":")
                .append(value));
    call(
        "POST",
        "/proxies/" + proxy + "/toxics",
        "{\"name\":\""
            + toxic
            + "\",\"type\":\""
            + type
            + "\",\"stream\":\""
            + stream
            + "\",\"toxicity\":1.0,\"attributes\":{"
            + attributes
            + "}}");
  }

  void removeToxic(String proxy, String toxic) {
    call("DELETE", "/proxies/" + proxy + "/toxics/" + toxic, null);
  }

  /** Removes every toxic and enables every proxy. */
  void reset() {
    call("POST", "/reset", "");
  }

  private String call(String method, String path, String body) {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create("http://" + FreePorts.LOOPBACK + ":" + apiPort + path))
            .timeout(API_TIMEOUT)
            .header("Content-Type", "application/json");
    request.method(
        method,
        body == null
            ? HttpRequest.BodyPublishers.noBody()
            : HttpRequest.BodyPublishers.ofString(body));
    try {
      HttpResponse<String> response =
          http.send(request.build(), HttpResponse.BodyHandlers.ofString());
      if (response.statusCode() / 100 != 2) {
        throw new IllegalStateException(
            "Toxiproxy answered "
                + method
                + " "
                + path
                + " with HTTP "
                + response.statusCode()
                + ": "
                + response.body());
      }
      return response.body();
    } catch (IOException e) {
      throw new IllegalStateException("Toxiproxy's API did not answer " + method + " " + path, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("Interrupted calling Toxiproxy", e);
    }
  }

  private static String buildPurpose() {
    return "builds Toxiproxy (" + PACKAGE + ") into " + cachedBinary().getParent();
  }

  private static Path cachedBinary() {
    return TestPaths.userCache()
        .resolve("toxiproxy-" + VERSION.substring(1).toLowerCase(Locale.ROOT))
        .resolve("server");
  }

  /** The binary: cached, or built now with {@code go install}. */
  private static Path binary() throws IOException, InterruptedException {
    return GoInstall.cachedOrBuilt(
        PACKAGE, cachedBinary(), buildPurpose(), "toxiproxy-install.log", "about a minute");
  }
}
