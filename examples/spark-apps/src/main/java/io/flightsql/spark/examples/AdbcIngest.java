package io.flightsql.spark.examples;

import io.flightsql.spark.servers.PythonVirtualenv;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * ADBC's bulk ingestion from Python, what a Python user holding Arrow data does instead of this
 * connector: {@code cursor.adbc_ingest(table, data, mode="append")} of the Flight SQL ADBC driver
 * ({@value #DRIVER}), in a Python process of its own ({@code adbc_ingest.py} beside this class).
 * The process builds the rows of {@link WriteBenchmark#lineitem} as pyarrow record batches once,
 * outside any timing, cut as the raw client's batches are; each {@link #ingest} then appends them
 * to a table through one connection kept open, in autocommit as Arrow's own client sends them, and
 * returns the seconds of the {@code adbc_ingest} call alone, as Python timed it.
 *
 * <p>The virtualenv is made once in {@code ~/.cache/spark-flightsql/adbc-flightsql-1.13.0} ({@link
 * PythonVirtualenv}). Every wait for the process is bounded.
 */
final class AdbcIngest implements AutoCloseable {
  static final String DRIVER = "adbc-driver-flightsql==1.13.0";
  private static final String PYARROW = "pyarrow==26.0.1";
  private static final long WAIT_MINUTES = 10;

  private final Process process;
  private final Writer commands;
  private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
  private final long rows;
  private final long bytes;
  private final Path script;

  private AdbcIngest(Process process, Path script, long rows) throws IOException {
    this.process = process;
    this.script = script;
    this.rows = rows;
    this.commands = process.outputWriter(StandardCharsets.UTF_8);
    Thread reader = new Thread(() -> readLines(process.getInputStream()), "adbc-ingest-output");
    reader.setDaemon(true);
    reader.start();
    String[] ready = next("ready").split(" ");
    if (Long.parseLong(ready[1]) != rows) {
      throw new IllegalStateException("The ADBC process built " + ready[1] + " rows, not " + rows);
    }
    this.bytes = Long.parseLong(ready[2]);
  }

  /**
   * Starts the Python process for the server at {@code uri}, which builds {@code rows} rows in
   * batches of {@code batchRows}, and waits until it has.
   */
  static AdbcIngest start(String uri, long rows, int batchRows)
      throws IOException, InterruptedException {
    PythonVirtualenv venv = PythonVirtualenv.of("adbc-flightsql-1.13.0", List.of(DRIVER, PYARROW));
    Path script = Files.createTempFile("adbc_ingest", ".py");
    try (InputStream source = AdbcIngest.class.getResourceAsStream("adbc_ingest.py")) {
      Files.copy(source, script, StandardCopyOption.REPLACE_EXISTING);
    }
    Process process =
        new ProcessBuilder(
                venv.python().toString(),
                script.toString(),
                "--uri",
                uri,
                "--rows",
                Long.toString(rows),
                "--batch-rows",
                Integer.toString(batchRows))
            .redirectError(ProcessBuilder.Redirect.INHERIT)
            .start();
    try {
      return new AdbcIngest(process, script, rows);
    } catch (IOException | RuntimeException e) {
      process.destroyForcibly();
      Files.deleteIfExists(script);
      throw e;
    }
  }

  /** The Arrow buffer bytes of the Python process's batches (pyarrow's {@code nbytes}). */
  long bytes() {
    return bytes;
  }

  /**
   * Appends the rows to {@code table}, which must exist.
   *
   * @return the seconds that {@code adbc_ingest} took
   */
  double ingest(String table) throws IOException {
    commands.write("ingest " + table + "\n");
    commands.flush();
    String[] done = next("ingested").split(" ");
    long written = Long.parseLong(done[1]);
    // The driver may report -1: the server's count is checked by the caller either way.
    if (written >= 0 && written != rows) {
      throw new IllegalStateException("ADBC ingested " + written + " rows, not " + rows);
    }
    return Double.parseDouble(done[2]);
  }

  private void readLines(InputStream output) {
    try (BufferedReader reader =
        new BufferedReader(new InputStreamReader(output, StandardCharsets.UTF_8))) {
      String line;
      while ((line = reader.readLine()) != null) {
        lines.add(line);
      }
    } catch (IOException e) {
      lines.add("failed " + e);
    }
    lines.add("ended");
  }

  /** The process's next line, which must start with {@code word}, waited for at most 10 min. */
  private String next(String word) throws IOException {
    String line;
    try {
      line = lines.poll(WAIT_MINUTES, TimeUnit.MINUTES);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("Interrupted while waiting for the ADBC process", e);
    }
    if (line == null) {
      throw new IOException(
          "The ADBC process said nothing for "
              + WAIT_MINUTES
              + " minutes; expected '"
              + word
              + "'");
    }
    if (!line.startsWith(word + " ")) {
      throw new IOException(
          "The ADBC process answered '"
              + line
              + "' where '"
              + word
              + "' was expected (see stderr)");
    }
    return line;
  }

  /**
   * Ends the process (its input closed, then at most 10 s), and deletes the script. An interrupt is
   * kept as the thread's status, so that this close throws no InterruptedException.
   */
  @Override
  public void close() throws IOException {
    try {
      commands.close();
      if (!process.waitFor(10, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      process.destroyForcibly();
    } finally {
      Files.deleteIfExists(script);
    }
  }
}
