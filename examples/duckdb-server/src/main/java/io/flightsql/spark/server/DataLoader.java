package io.flightsql.spark.server;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Loads the user's data at start-up: a {@code .sql} script, or a directory.
 *
 * <p>In a directory, every {@code *.parquet} and {@code *.csv} file first becomes a table named
 * after the file ({@code orders.parquet} becomes {@code orders}), then the {@code *.sql} files run
 * in name order, so that scripts can build views and further tables on the loaded files. Other
 * files and subdirectories are ignored.
 */
final class DataLoader {

  private static final Logger LOG = LoggerFactory.getLogger(DataLoader.class);

  private DataLoader() {}

  static void load(DuckDbDatabase database, Path data) throws IOException, SQLException {
    if (Files.isDirectory(data)) {
      loadDirectory(database, data);
    } else if (Files.isRegularFile(data) && extension(data).equals("sql")) {
      runScript(database, data);
    } else {
      throw new IOException(
          "Invalid data path '" + data + "': expected a .sql script or a directory");
    }
  }

  private static void loadDirectory(DuckDbDatabase database, Path directory)
      throws IOException, SQLException {
    List<Path> files;
    try (Stream<Path> entries = Files.list(directory)) {
      files = entries.filter(Files::isRegularFile).sorted().collect(Collectors.toList());
    }
    for (Path file : files) {
      String reader =
          switch (extension(file)) {
            case "parquet" -> "read_parquet";
            case "csv" -> "read_csv";
            default -> null;
          };
      if (reader != null) {
        String table = baseName(file);
        LOG.info("Loading {} into table {}", file, table);
        database.execute(
            "CREATE TABLE "
                + QuerySql.quoteIdentifier(table)
                + " AS SELECT * FROM "
                + reader
                + "("
                + QuerySql.quoteLiteral(file.toAbsolutePath().toString())
                + ")");
      }
    }
    for (Path file : files) {
      if (extension(file).equals("sql")) {
        runScript(database, file);
      }
    }
  }

  private static void runScript(DuckDbDatabase database, Path script)
      throws IOException, SQLException {
    LOG.info("Running SQL script {}", script);
    String sql = Files.readString(script, StandardCharsets.UTF_8);
    if (sql.isBlank()) {
      return;
    }
    try {
      database.execute(sql);
    } catch (SQLException e) {
      throw new SQLException("SQL script " + script + " failed: " + e.getMessage(), e);
    }
  }

  private static String extension(Path file) {
    String name = file.getFileName().toString();
    int dot = name.lastIndexOf('.');
    return dot < 0 ? "" : name.substring(dot + 1).toLowerCase(Locale.ROOT);
  }

  private static String baseName(Path file) {
    String name = file.getFileName().toString();
    int dot = name.lastIndexOf('.');
    return dot < 0 ? name : name.substring(0, dot);
  }
}
