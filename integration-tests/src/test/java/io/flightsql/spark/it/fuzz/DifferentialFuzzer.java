package io.flightsql.spark.it.fuzz;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.apache.spark.sql.SparkSession;

/**
 * Runs generated cases against one server and shrinks each failure: {@code cases} reads from one
 * seed, a new table every few reads, each read run three ways by {@link CaseRunner}. Prints each
 * failure's smallest case as the statements and the Spark code that show it, then a summary.
 */
public final class DifferentialFuzzer {
  /** Reads of one table before the next is made. */
  private static final int READS_PER_TABLE = 4;

  static final String JOIN_PUSHDOWN = "spark.sql.optimizer.datasourceV2JoinPushdown";

  private final SparkSession spark;
  private final FuzzTarget target;
  private final Set<KnownBug> excluded;
  private final int shrinkTries;
  private final PrintStream out;

  public DifferentialFuzzer(
      SparkSession spark,
      FuzzTarget target,
      Set<KnownBug> excluded,
      int shrinkTries,
      PrintStream out) {
    this.spark = spark;
    this.target = target;
    this.excluded = excluded;
    this.shrinkTries = shrinkTries;
    this.out = out;
  }

  /** What a run found. */
  public record Report(
      String server, long seed, int cases, int skipped, List<String> failures, long millis) {
    public String summary() {
      return String.format(
          "%s: seed %d, %d cases (%d where Spark itself fails the read), %d failures, %.1f s",
          server, seed, cases, skipped, failures.size(), millis / 1000.0);
    }
  }

  public Report run(long seed, int cases) {
    long start = System.nanoTime();
    CaseGenerator generator = new CaseGenerator(seed, target.dialect(), excluded);
    CaseRunner runner = new CaseRunner(spark, target);
    // Distinct failures by kind and shape, so that one bug is shrunk once, not once per case.
    Map<String, String> failures = new TreeMap<>();
    int skipped = 0;
    spark.conf().set(JOIN_PUSHDOWN, "true");
    try {
      FuzzTable table = null;
      for (int i = 0; i < cases; i++) {
        if (i % READS_PER_TABLE == 0) {
          table =
              target.dialect() == FuzzDialect.DEEPHAVEN
                  ? DeephavenFuzzTable.TABLE
                  : generator.table();
        }
        FuzzRead read = generator.read(table);
        Failure failure;
        try {
          failure = runner.run(table, read);
        } catch (IllegalStateException e) {
          // The server refused the table's statements: the fuzzer's dialect is wrong, not a read.
          String key = "table not made / " + Failure.message(e.getCause());
          if (failures.putIfAbsent(key, e.getMessage() + "\n" + e.getCause()) == null) {
            out.println("=== " + target.name() + ": " + e.getMessage() + "\n" + e.getCause());
          }
          continue;
        }
        if (failure == null) {
          continue;
        }
        String key =
            failure.kind().startsWith("whole")
                ? failure.kind()
                : failure.kind() + " / " + read.shape() + " / " + read.source();
        if (failures.containsKey(key)) {
          continue;
        }
        Shrinker.Shrunk shrunk = new Shrinker(runner, shrinkTries).shrink(table, read, failure);
        String description = describe(seed, i, shrunk);
        out.println(description);
        failures.put(key, description);
      }
    } finally {
      spark.conf().unset(JOIN_PUSHDOWN);
    }
    skipped = runner.skipped();
    long millis = (System.nanoTime() - start) / 1_000_000;
    Report report =
        new Report(target.name(), seed, cases, skipped, new ArrayList<>(failures.values()), millis);
    out.println(report.summary());
    return report;
  }

  /** The smallest case, runnable: the table's statements, then the reads in Spark. */
  String describe(long seed, int index, Shrinker.Shrunk shrunk) {
    FuzzTable table = shrunk.table();
    FuzzRead read = shrunk.read();
    StringBuilder text = new StringBuilder();
    text.append("=== ")
        .append(target.name())
        .append(": ")
        .append(shrunk.failure().kind())
        .append(" (seed ")
        .append(seed)
        .append(", case ")
        .append(index)
        .append(", shrunk in ")
        .append(shrunk.tries())
        .append(" tries)\n");
    text.append(
        target.dialect() == FuzzDialect.DEEPHAVEN
            ? "-- the table fuzz_rows of start_deephaven.py\n"
            : table.describe(target.dialect()));
    text.append("spark.conf.set(\"").append(JOIN_PUSHDOWN).append("\", \"true\")\n");
    text.append("spark.read.format(\"flightsql\").option(\"uri\", \"")
        .append(target.uri())
        .append("\")");
    target
        .options()
        .forEach(
            (k, v) -> text.append(".option(\"").append(k).append("\", \"").append(v).append("\")"));
    if (read.source() == FuzzRead.Source.QUERY) {
      text.append(".option(\"query\", \"SELECT * FROM ").append(table.name()).append("\")");
    } else {
      text.append(".option(\"dbtable\", \"").append(table.name()).append("\")");
    }
    if (read.source() == FuzzRead.Source.USER_SCHEMA) {
      List<String> fields = new ArrayList<>();
      for (int i : read.schemaOrder()) {
        FuzzTable.Column column = table.columns().get(i);
        fields.add(column.name() + " " + column.family().sparkType());
      }
      text.append(".schema(\"").append(String.join(", ", fields)).append("\")");
    }
    text.append(".load().createOrReplaceTempView(\"t\")\n");
    text.append("spark.sql(\"").append(read.sql("t")).append("\")\n");
    text.append("-- compared ").append(read.comparison()).append(" with Spark over the same rows;");
    text.append(" pushdown off: ").append(CaseRunner.NO_PUSHDOWN.keySet()).append('\n');
    text.append(shrunk.failure().detail()).append('\n');
    return text.toString();
  }
}
