package io.flightsql.spark.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.flightsql.spark.it.fuzz.DifferentialFuzzer;
import io.flightsql.spark.it.fuzz.FuzzTarget;
import io.flightsql.spark.it.fuzz.KnownBug;
import java.util.EnumSet;
import java.util.Set;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;

/**
 * The differential fuzzer ({@link DifferentialFuzzer}) on the class's server and SparkSession:
 * generated tables and reads, each run with pushdown, without, and by Spark over its own copy of
 * the rows, must agree. A fixed seed ({@code -Dflightsql.fuzz.seed}, default {@value #SEED}) and a
 * bounded number of cases ({@code -Dflightsql.fuzz.cases}, default {@value #CASES}); a failure
 * prints its smallest case. Mixed into a {@link FlightSqlContractSuite}.
 */
interface DifferentialFuzzContract {
  long SEED = 20261127L;
  int CASES = 50;

  /**
   * Wrong answers that branches in review fix; the generator stays away from them so that this test
   * stays green until they merge. Remove each one when its fix is merged: with it removed and the
   * fix reverted, this test fails with the bug's smallest case. None is left: every {@link
   * KnownBug} is fixed on main.
   */
  Set<KnownBug> EXCLUDED = EnumSet.noneOf(KnownBug.class);

  ServerQuirks quirks();

  SparkSession spark();

  /** The fuzzer's name for the server's dialect: duckdb, derby, sqlite, sail or deephaven. */
  String fuzzDialect();

  @Test
  default void pushdownAnswersAsSparkDoesOnGeneratedTablesAndReads() {
    long seed = Long.getLong("flightsql.fuzz.seed", SEED);
    int cases = Integer.getInteger("flightsql.fuzz.cases", CASES);
    Set<KnownBug> excluded =
        System.getProperty("flightsql.fuzz.exclude") == null
            ? EXCLUDED
            : KnownBug.parse(System.getProperty("flightsql.fuzz.exclude"));
    FuzzTarget target =
        FuzzTarget.of(
            quirks().name(),
            quirks().uri(),
            quirks().options(),
            quirks()::executeUpdate,
            fuzzDialect());
    DifferentialFuzzer.Report report =
        new DifferentialFuzzer(spark(), target, excluded, 40, System.out).run(seed, cases);
    assertThat(report.failures()).as(report.summary()).isEmpty();
    // Most cases compare answers: Spark itself fails a few (an ANSI overflow of a sum).
    assertThat(report.skipped()).as(report.summary()).isLessThan(cases / 2);
  }
}
