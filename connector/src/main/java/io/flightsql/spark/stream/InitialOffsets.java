package io.flightsql.spark.stream;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.UUID;
import java.util.function.Supplier;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.spark.sql.SparkSession;

/**
 * The first offset of a stream that starts at the rows there are when it starts ({@code
 * startingOffsets=latest}), kept in the source's directory of the query's checkpoint, as Spark's
 * Kafka source keeps its own. Spark asks a source for its initial offset again when the query is
 * restarted before its first micro-batch committed, to run that batch again; the mark must be the
 * one taken at the first start, not a newer one, or that batch would read other rows. Driver only.
 */
final class InitialOffsets {
  private static final String FILE = "flightsql-initial-offset.json";

  private InitialOffsets() {}

  /**
   * The offset kept under {@code metadataPath}, or, when there is none yet, {@code first}'s, kept
   * there now.
   */
  static FlightSqlOffset keptOrFirst(String metadataPath, Supplier<FlightSqlOffset> first) {
    Path file = new Path(metadataPath, FILE);
    Configuration hadoop = SparkSession.active().sparkContext().hadoopConfiguration();
    try {
      FileSystem fs = file.getFileSystem(hadoop);
      if (fs.exists(file)) {
        return read(fs, file);
      }
      FlightSqlOffset offset = first.get();
      fs.mkdirs(file.getParent());
      // Written aside, then renamed: a query killed while writing leaves no half file behind.
      Path written = new Path(file.getParent(), "." + FILE + "." + UUID.randomUUID() + ".tmp");
      try (OutputStream out = fs.create(written, false)) {
        out.write(offset.json().getBytes(StandardCharsets.UTF_8));
      }
      if (!fs.rename(written, file)) {
        fs.delete(written, false);
        if (!fs.exists(file)) {
          throw new IOException("could not rename " + written + " to " + file);
        }
        return read(fs, file);
      }
      return offset;
    } catch (IOException e) {
      throw new UncheckedIOException(
          "Cannot keep the initial offset of the stream (startingOffsets=latest) in " + file, e);
    }
  }

  private static FlightSqlOffset read(FileSystem fs, Path file) throws IOException {
    try (InputStream in = fs.open(file)) {
      return FlightSqlOffset.parse(new String(in.readAllBytes(), StandardCharsets.UTF_8));
    }
  }
}
