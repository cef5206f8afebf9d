package io.flightsql.spark.config;

import java.time.Duration;

/**
 * The options of scope {@link OptionScope#READ_WRITE}, which reads and writes both take, each in
 * its own way: the table, the session's default catalog and schema, and the SQL dialect.
 */
public final class ReadWriteOptions {
  private ReadWriteOptions() {}

  private static final OptionScope SCOPE = OptionScope.READ_WRITE;

  public static final OptionSpec<Duration> STREAM_IDLE_TIMEOUT =
      OptionTypes.durationOrOff("streamIdleTimeout", SCOPE)
          .defaultValue(Duration.ofMinutes(5))
          .description(
              "How long a stream may bring nothing before it is cancelled: a read's DoGet waiting"
                  + " for its next record batch (its first one included), the answer of a metadata"
                  + " call or probe, and a write's DoPut waiting for the server to take more data"
                  + " or to acknowledge it. The task then fails with an error naming this option,"
                  + " the server and the partition, and Spark's task retry reads or writes the"
                  + " partition again. A slow but steady stream is never cut, however long it"
                  + " takes in total. Unless `callTimeout` is set, it is also the deadline of the"
                  + " calls a server answers without work proportional to the data (metadata,"
                  + " transactions, prepared statements, session options, and each PollFlightInfo"
                  + " after the first), so that a server or connection that stopped answering fails"
                  + " them too. `0` waits forever. See docs/operations.md.");

  /** The value of option {@code dialect} that lets the connector choose from the server's name. */
  public static final String AUTO_DIALECT = "auto";

  public static final OptionSpec<String> DBTABLE =
      OptionTypes.text(
              "dbtable",
              "a table name, optionally qualified and quoted in the server's dialect",
              SCOPE)
          .description(
              "The table to read, as it would appear in a FROM clause (it is read with"
                  + " `SELECT * FROM <dbtable>`); exactly one of `query` and `dbtable` is required"
                  + " to read. The table to write: `name`, `schema.name` or"
                  + " `catalog.schema.name`, each part optionally in double quotes.");

  public static final OptionSpec<String> CATALOG =
      OptionTypes.text("catalog", "a catalog name", SCOPE)
          .description(
              "The session's default catalog. Sent with Flight's SetSessionOptions where the"
                  + " server has it, so queries and statements resolve unqualified names in it."
                  + " Where the server does not, a read with an unqualified `dbtable` is qualified"
                  + " with it. A write qualifies its table with it when `dbtable` names no"
                  + " catalog. As a property of the connector's catalog, with `schema`: the"
                  + " catalog's default namespace (see docs/catalog.md).");

  public static final OptionSpec<String> SCHEMA =
      OptionTypes.text("schema", "a schema name", SCOPE)
          .description(
              "The session's default schema, like `catalog`: SetSessionOptions where the server"
                  + " has it, else a qualifier of an unqualified `dbtable`; a write qualifies its"
                  + " table with it when `dbtable` names no schema.");

  /**
   * The dialect by name: {@code auto}, or one of the dialects the SQL packages define under these
   * names. Config knows only the names, so that it depends on no dialect.
   */
  public static final OptionSpec<String> DIALECT =
      OptionTypes.choice(
              "dialect", SCOPE, AUTO_DIALECT, "ansi", "duckdb", "sqlite", "derby", "mysql", "spark")
          .defaultValue(AUTO_DIALECT)
          .description(
              "The SQL the connector writes for the server: the column types of a table it"
                  + " creates, and the filters, aggregates, ordering and row limits it pushes into"
                  + " a read (quoting, literals, which of them the server can run as Spark would)."
                  + " `mysql` is MySQL's syntax as Apache Doris and StarRocks speak it; `spark` is"
                  + " Spark SQL (backtick identifiers, `\"...\"` a string) as Sail and other"
                  + " Spark-SQL servers speak it. `auto` chooses from the server's name, else its"
                  + " version (GetSqlInfo); else, where the server does not say how it quotes"
                  + " identifiers, a probe query (`SELECT \"c\" FROM (SELECT 1 AS c) t` is 1 in"
                  + " ANSI SQL and the string `c` in Spark SQL) chooses between `ansi` and `spark`,"
                  + " once per server and JVM; where even that cannot tell, nothing that names a"
                  + " column is pushed. See docs/pushdown.md.");
}
