package io.flightsql.spark.servers;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * A Go program the tests run, built once with {@code go install} into the user cache and reused by
 * later runs, as the arrow-go SQLite server and Toxiproxy are.
 */
public final class GoInstall {
  private static final Duration TIMEOUT = Duration.ofMinutes(10);

  private GoInstall() {}

  /**
   * The binary {@code cached}, built now from {@code goPackage} into its folder unless it is there.
   *
   * @param purpose what Go is needed for, for the message of a missing Go
   * @param logName the file under the build directory that keeps the build's output
   * @param firstTime how long the first build takes, for the line printed before it
   */
  public static Path cachedOrBuilt(
      String goPackage, Path cached, String purpose, String logName, String firstTime)
      throws IOException, InterruptedException {
    if (Files.isExecutable(cached)) {
      return cached;
    }
    Path go = RequiredTool.GO.require(purpose);
    Path gobin = cached.getParent();
    Files.createDirectories(gobin);
    System.out.printf("Building %s into %s; %s the first time%n", goPackage, gobin, firstTime);
    ExternalCommand.Result install =
        ExternalCommand.run(
            "go install",
            List.of(go.toString(), "install", "-v", goPackage),
            Map.of("GOBIN", gobin.toString()),
            ServerPaths.buildDir().resolve(logName),
            TIMEOUT);
    if (install.exitCode() != 0 || !Files.isExecutable(cached)) {
      throw new IllegalStateException(
          "go install "
              + goPackage
              + " failed with exit code "
              + install.exitCode()
              + " (log: "
              + install.log()
              + "):\n"
              + install.tail(30));
    }
    return cached;
  }
}
