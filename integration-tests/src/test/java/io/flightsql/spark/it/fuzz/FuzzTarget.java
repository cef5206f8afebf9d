package io.flightsql.spark.it.fuzz;

import java.util.Map;
import java.util.function.Consumer;

/**
 * A running server the fuzzer reads: its URI, the options every read needs (an authorization
 * header), how to run a DDL or DML statement on it outside Spark, and its dialect.
 *
 * @param name the server, for messages
 * @param update runs one statement on the server (a CommandStatementUpdate, or a query on servers
 *     that run DDL only as queries)
 */
public record FuzzTarget(
    String name,
    String uri,
    Map<String, String> options,
    Consumer<String> update,
    FuzzDialect dialect) {

  /** A target of the dialect named as {@code --server} names it (duckdb, derby, ...). */
  public static FuzzTarget of(
      String name, String uri, Map<String, String> options, Consumer<String> update, String id) {
    return new FuzzTarget(name, uri, options, update, FuzzDialect.of(id));
  }
}
