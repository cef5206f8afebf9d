package io.flightsql.spark.it;

import java.time.LocalDateTime;

/**
 * The columns of the table that the contract suite creates on each server, by what they hold. Each
 * server's {@link ServerQuirks} says how to declare them and what Spark reads back.
 */
enum ContractColumn {
  /** A whole number; values are {@link Long}s. */
  ID("id"),
  /** Text, including non-ASCII and a quote; values are {@link String}s. */
  NAME("name"),
  /** A double; values are {@link Double}s. */
  SCORE("score"),
  /** A point in time, without zone; values are {@link LocalDateTime}s. */
  SEEN_AT("seen_at");

  private final String sqlName;

  ContractColumn(String sqlName) {
    this.sqlName = sqlName;
  }

  /** The name used in the test's SQL (unquoted, so servers apply their own case rules). */
  String sqlName() {
    return sqlName;
  }
}
