package io.flightsql.spark.examples;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Ways of writing the same rows, measured in alternated rounds, and the limit that a row-producing
 * Spark write is held against: Spark's {@code noop} write of the cached rows (Spark producing them)
 * and the transport (the faster of Arrow's own client uploading prebuilt batches in one DoPut, and
 * ADBC's {@code adbc_ingest} from Python) cannot both run at full speed at once on the machine's
 * cores, so the sum of their times is the least a write that does both can take: in rows per
 * second, {@code limit = 1 / (1 / noop + 1 / transport)}. {@link WriteBenchmark} and {@link
 * PerformanceBenchmark} measure their ways with it.
 */
final class WriteLimit {

  /** What a way stands for in the limit. */
  enum Kind {
    /** Spark's {@code noop} sink: Spark's own cost of producing the rows. */
    NOOP,
    /** An upload of prebuilt batches: the transport's cost, no Spark. */
    TRANSPORT,
    /** This connector, held against the limit and against Spark's JDBC writer. */
    CONNECTOR,
    /** Spark's JDBC writer. */
    JDBC,
    /** Anything else measured beside them. */
    OTHER
  }

  /** One run of a way that reports its own time, such as ADBC's as Python timed it. */
  @FunctionalInterface
  interface SelfTimed {
    double seconds() throws Exception;
  }

  /** Where the ways write, and how a run is checked to have left exactly its rows. */
  interface Target {
    /** Drops and creates the table, empty, before each run (not timed). */
    void recreate() throws Exception;

    /** A mark taken before a run. */
    long mark();

    /** The rows that {@code way}'s run wrote since {@code mark}. */
    long landed(Way way, long mark) throws Exception;
  }

  /** Called after each timed run, with the way and the seconds it took. */
  @FunctionalInterface
  interface AfterRun {
    void accept(Way way, double seconds) throws Exception;
  }

  /**
   * One way of writing.
   *
   * @param counted whether the target sees its rows (not Spark's {@code noop})
   * @param mayFail whether a failure leaves it out of the figures instead of failing the benchmark:
   *     for the baselines this project does not control (Spark's JDBC writer, ADBC)
   */
  record Way(
      String name,
      Kind kind,
      long rows,
      boolean counted,
      boolean mayFail,
      SelfTimed run,
      Timings timings) {

    /** A way timed by the caller's clock around {@code run}. */
    static Way timed(String name, Kind kind, long rows, Timings.Run run) {
      return new Way(
          name,
          kind,
          rows,
          kind != Kind.NOOP,
          kind == Kind.JDBC,
          () -> {
            long start = System.nanoTime();
            run.run();
            return ReadBenchmark.seconds(start);
          },
          new Timings(name));
    }

    /** A baseline that may fail and times itself. */
    static Way selfTimed(String name, Kind kind, long rows, SelfTimed run) {
      return new Way(name, kind, rows, true, true, run, new Timings(name));
    }

    boolean measured() {
      return timings.measured();
    }

    /** Rows per second of the median run. */
    double rate() {
      return rows / timings.median();
    }
  }

  private final List<Way> ways;

  WriteLimit(List<Way> ways) {
    this.ways = List.copyOf(ways);
  }

  List<Way> ways() {
    return ways;
  }

  /**
   * Runs every way once to warm up, then {@code iterations} rounds in which each way runs once, so
   * that a change of the machine's load, or the server warming up, touches all alike. Each run
   * writes into the table freshly made by {@code target}, after a garbage collection that keeps the
   * garbage of the run before out of its time, and is checked to have written exactly its rows.
   */
  void measure(int iterations, Target target, AfterRun afterRun) throws Exception {
    for (int round = 0; round <= iterations; round++) {
      for (Way way : ways) {
        if (way.timings().skipped()) {
          continue;
        }
        target.recreate();
        System.gc();
        long mark = target.mark();
        double took;
        try {
          took = way.run().seconds();
        } catch (Exception e) {
          if (!way.mayFail()) {
            throw e;
          }
          System.err.println(way.name() + " failed; it is left out of the figures:");
          e.printStackTrace();
          way.timings().skip("the write failed: " + e);
          continue;
        }
        if (way.counted()) {
          long landed = target.landed(way, mark);
          if (landed != way.rows()) {
            throw new IllegalStateException(
                way.name() + " wrote " + landed + " rows where it was given " + way.rows());
          }
        }
        System.out.printf(
            Locale.ROOT,
            "%-22s %s %6.2f s%n",
            way.name(),
            round == 0 ? "warm-up" : "run " + round + "  ",
            took);
        if (round > 0) {
          way.timings().add(took);
          afterRun.accept(way, took);
        }
      }
    }
  }

  /** The measured way of this kind that wrote the most rows per second, or null. */
  Way fastest(Kind kind) {
    Way fastest = null;
    for (Way way : ways) {
      if (way.kind() == kind
          && way.measured()
          && (fastest == null || way.rate() > fastest.rate())) {
        fastest = way;
      }
    }
    return fastest;
  }

  /** The transport: the faster upload of prebuilt batches. */
  Way transport() {
    return fastest(Kind.TRANSPORT);
  }

  /** The limit in rows per second, or NaN when {@code noop} or every transport is missing. */
  double limit() {
    Way noop = fastest(Kind.NOOP);
    Way transport = transport();
    if (noop == null || transport == null) {
      return Double.NaN;
    }
    return 1 / (1 / noop.rate() + 1 / transport.rate());
  }

  /** The connector's ways that were measured. */
  List<Way> connectors() {
    List<Way> connectors = new ArrayList<>();
    for (Way way : ways) {
      if (way.kind() == Kind.CONNECTOR && way.measured()) {
        connectors.add(way);
      }
    }
    return connectors;
  }

  /**
   * The figures as a markdown table: each way's median time and rate, and each connector way
   * against the limit (goal 0.8x) and against Spark's JDBC writer (goal 20x).
   *
   * @param bytes the Arrow buffer bytes of the rows, for MB/s
   */
  String table(long bytes) {
    Way jdbc = fastest(Kind.JDBC);
    Way transport = transport();
    double limit = limit();
    StringBuilder out = new StringBuilder();
    out.append("| way | best | median | rows/s (median) | MB/s | against the limit | against")
        .append(" spark jdbc |\n| --- | ---: | ---: | ---: | ---: | ---: | ---: |\n");
    for (Way way : ways) {
      if (!way.measured()) {
        out.append("| ")
            .append(way.name())
            .append(" | not measured: ")
            .append(way.timings().summary(way.rows(), bytes))
            .append(" |  |  |  |  |  |\n");
        continue;
      }
      boolean connector = way.kind() == Kind.CONNECTOR;
      out.append(
          String.format(
              Locale.ROOT,
              "| %s | %.2f s | %.2f s | %s | %.1f | %s | %s |%n",
              way.name(),
              way.timings().best(),
              way.timings().median(),
              millions(way.rate()),
              bytes * way.rows() / (double) firstRows() / way.timings().median() / 1e6,
              connector && !Double.isNaN(limit) ? ratio(way.rate() / limit) + " (≥ 0.8x)" : "",
              connector && jdbc != null ? ratio(way.rate() / jdbc.rate()) + " (≥ 20x)" : ""));
    }
    if (!Double.isNaN(limit)) {
      out.append(
          String.format(
              Locale.ROOT,
              "| limit: 1 / (1/noop + 1/%s) |  |  | %s |  |  |  |%n",
              transport.name(),
              millions(limit)));
    }
    return out.toString();
  }

  /** The rows of the first way: {@code bytes} are those of its rows. */
  private long firstRows() {
    return ways.get(0).rows();
  }

  static String millions(double rowsPerSecond) {
    return String.format(Locale.ROOT, "%.2f M", rowsPerSecond / 1e6);
  }

  static String ratio(double value) {
    return String.format(Locale.ROOT, "%.2fx", value);
  }
}
