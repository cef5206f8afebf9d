package io.flightsql.spark.servers;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Runs a program to completion with its output (stdout and stderr merged) written to a log file and
 * echoed, line by line, to this JVM's stdout with a label, so that long steps (a cold {@code go
 * install}, a {@code pip install}) show progress. A program that outlives its time limit is killed
 * with its children.
 */
public final class ExternalCommand {
  private static final long HEARTBEAT_MILLIS = 20_000;

  private final String label;
  private final List<String> command;
  private final Map<String, String> environment;
  private final Path log;
  private final Duration timeout;

  private ExternalCommand(
      String label,
      List<String> command,
      Map<String, String> environment,
      Path log,
      Duration timeout) {
    this.label = label;
    this.command = List.copyOf(command);
    this.environment = Map.copyOf(environment);
    this.log = log;
    this.timeout = timeout;
  }

  /** The finished program: its exit code and everything it printed. */
  public record Result(int exitCode, String output, Path log) {
    /** The last lines of the output, for failure messages. */
    public String tail(int lines) {
      return ExternalCommand.tail(output, lines);
    }
  }

  public static Result run(
      String label,
      List<String> command,
      Map<String, String> environment,
      Path log,
      Duration timeout)
      throws IOException, InterruptedException {
    return new ExternalCommand(label, command, environment, log, timeout).run();
  }

  private Result run() throws IOException, InterruptedException {
    Files.createDirectories(log.getParent());
    System.out.printf("[%s] %s (log: %s)%n", label, String.join(" ", command), log);
    // No input: a program that asks for some (beeline's password prompt) gets end-of-file at once
    // instead of waiting for the time limit.
    ProcessBuilder builder =
        new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
    builder.environment().putAll(environment);
    long start = System.nanoTime();
    AtomicLong lastOutput = new AtomicLong(start);
    Process process = builder.start();
    Thread copier = new Thread(() -> copyOutput(process, lastOutput), label + "-output");
    copier.setDaemon(true);
    copier.start();
    long deadline = start + timeout.toNanos();
    while (!process.waitFor(1, TimeUnit.SECONDS)) {
      long now = System.nanoTime();
      if (now > deadline) {
        destroyTree(process.toHandle());
        copier.join(5_000);
        throw new IllegalStateException(
            String.format(
                "[%s] did not finish within %d s and was killed. Last output:%n%s",
                label, timeout.toSeconds(), tail(Files.readString(log), 30)));
      }
      if (TimeUnit.NANOSECONDS.toMillis(now - lastOutput.get()) >= HEARTBEAT_MILLIS) {
        System.out.printf(
            "[%s] still running after %d s%n", label, TimeUnit.NANOSECONDS.toSeconds(now - start));
        lastOutput.set(now);
      }
    }
    copier.join(10_000);
    System.out.printf(
        "[%s] exit code %d after %d s%n",
        label, process.exitValue(), TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start));
    return new Result(process.exitValue(), Files.readString(log), log);
  }

  private void copyOutput(Process process, AtomicLong lastOutput) {
    try (BufferedReader reader =
            new BufferedReader(
                new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        Writer writer = Files.newBufferedWriter(log, StandardCharsets.UTF_8)) {
      String line;
      while ((line = reader.readLine()) != null) {
        writer.write(line);
        writer.write(System.lineSeparator());
        writer.flush();
        System.out.printf("[%s] %s%n", label, line);
        lastOutput.set(System.nanoTime());
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Copying the output of " + label + " to " + log, e);
    }
  }

  /** Ends a process and every process it started; children first, so none is left orphaned. */
  public static void destroyTree(ProcessHandle process) {
    List<ProcessHandle> children = new ArrayList<>();
    process.descendants().forEach(children::add);
    process.destroy();
    children.forEach(ProcessHandle::destroy);
    waitOrKill(process);
    children.forEach(ExternalCommand::waitOrKill);
  }

  private static void waitOrKill(ProcessHandle process) {
    try {
      process.onExit().get(10, TimeUnit.SECONDS);
    } catch (Exception e) {
      process.destroyForcibly();
    }
  }

  public static String tail(String text, int lines) {
    String[] all = text.split("\\R");
    int from = Math.max(0, all.length - lines);
    return String.join(System.lineSeparator(), List.of(all).subList(from, all.length));
  }

  /** The first executable with this name on the PATH, or null. */
  public static Path onPath(String program) {
    String path = System.getenv("PATH");
    if (path == null) {
      return null;
    }
    for (String dir : path.split(File.pathSeparator)) {
      if (dir.isEmpty()) {
        continue;
      }
      Path candidate = Path.of(dir, program);
      if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
        return candidate;
      }
    }
    return null;
  }
}
