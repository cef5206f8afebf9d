package io.flightsql.spark.config;

import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * The registry of every option the connector understands. {@code docs/configuration.md} is
 * generated from this list ({@link ConfigurationDocs}) and a golden-file test keeps the two equal.
 *
 * <p>Options come from {@code .option(...)} on a reader or writer, from {@code OPTIONS (...)} in
 * SQL, or from the session configuration {@code spark.datasource.flightsql.<name>}; an explicit
 * option beats the session configuration.
 */
public final class FlightSqlOptions {
  /** Prefix under which Spark session configuration supplies options to this source. */
  public static final String SESSION_CONF_PREFIX = "spark.datasource.flightsql.";

  public static final OptionSpec URI =
      OptionSpec.plain(
          "uri",
          "grpc://host:port, grpc+tcp://host:port or grpc+tls://host:port",
          null,
          OptionScope.CONNECTION,
          "The Flight SQL server to connect to. Required. `grpc://` and `grpc+tcp://` are"
              + " plaintext; `grpc+tls://` uses TLS, trusting the JVM's default trust store unless"
              + " `tlsRootCerts` says otherwise. See docs/security.md.");

  public static final OptionSpec USERNAME =
      OptionSpec.plain(
          "username",
          "a user name",
          null,
          OptionScope.CONNECTION,
          "Basic authentication: the user name, sent with `password` in a Flight handshake. The"
              + " bearer token the server answers with is sent on every later call, on the driver"
              + " and on executors, and obtained again once when the server says it expired"
              + " (UNAUTHENTICATED).");

  public static final OptionSpec PASSWORD =
      OptionSpec.secret(
          "password",
          "a password",
          OptionScope.CONNECTION,
          "Basic authentication: the password of `username`. Prefer `passwordEnv` or"
              + " `passwordFile`, which keep it out of notebooks; only one of the three may be"
              + " given.");

  public static final OptionSpec PASSWORD_ENV =
      OptionSpec.plain(
          "passwordEnv",
          "the name of an environment variable",
          null,
          OptionScope.CONNECTION,
          "The environment variable (of the driver) holding the password.");

  public static final OptionSpec PASSWORD_FILE =
      OptionSpec.plain(
          "passwordFile",
          "a file path",
          null,
          OptionScope.CONNECTION,
          "A file (read on the driver) whose content, without surrounding whitespace, is the"
              + " password.");

  public static final OptionSpec TOKEN =
      OptionSpec.secret(
          "token",
          "a bearer token",
          OptionScope.CONNECTION,
          "A bearer token (a personal access token, an InfluxDB token) sent on every call as"
              + " `authorization: Bearer <token>`. Cannot be combined with `username`. Prefer"
              + " `tokenEnv` or `tokenFile`.");

  public static final OptionSpec TOKEN_ENV =
      OptionSpec.plain(
          "tokenEnv",
          "the name of an environment variable",
          null,
          OptionScope.CONNECTION,
          "The environment variable (of the driver) holding the token.");

  public static final OptionSpec TOKEN_FILE =
      OptionSpec.plain(
          "tokenFile",
          "a file path",
          null,
          OptionScope.CONNECTION,
          "A file (read on the driver) whose content, without surrounding whitespace, is the"
              + " token.");

  public static final OptionSpec TLS_ROOT_CERTS =
      OptionSpec.plain(
          "tlsRootCerts",
          "a path to PEM certificates",
          null,
          OptionScope.CONNECTION,
          "With `grpc+tls://`: the certificate authorities to trust instead of the JVM's default"
              + " trust store, e.g. a private CA. Read on the driver; its content goes to"
              + " executors with the job.");

  public static final OptionSpec DISABLE_CERTIFICATE_VERIFICATION =
      OptionSpec.plain(
          "disableCertificateVerification",
          "`true` or `false`",
          "false",
          OptionScope.CONNECTION,
          "With `grpc+tls://`: `true` accepts any server certificate, without checking who"
              + " signed it or whom it names. The connection is encrypted but not authenticated:"
              + " for tests only. Logs a warning.");

  public static final OptionSpec CLIENT_CERTIFICATE =
      OptionSpec.plain(
          "clientCertificate",
          "a path to a PEM certificate chain",
          null,
          OptionScope.CONNECTION,
          "Mutual TLS: the client's certificate chain, with `clientKey`. Read on the driver.");

  public static final OptionSpec CLIENT_KEY =
      OptionSpec.secret(
          "clientKey",
          "a path to a PEM PKCS#8 private key",
          OptionScope.CONNECTION,
          "Mutual TLS: the private key of `clientCertificate`. Read on the driver; the key (not"
              + " the path) goes to executors with the job and is never printed.");

  public static final OptionSpec HEADER =
      OptionSpec.secret(
          "header.<name>",
          "any text",
          OptionScope.CONNECTION,
          "An extra gRPC header `<name>: <value>` sent on every call, e.g."
              + " `header.x-tenant`. Values are treated as secrets.");

  public static final OptionSpec CONNECT_TIMEOUT =
      OptionSpec.plain(
          "connectTimeout",
          "a duration such as `500ms`, `30s` or `2m`",
          "30s",
          OptionScope.CONNECTION,
          "How long to wait for a TCP connection (and its TLS handshake) to the server.");

  public static final OptionSpec CALL_TIMEOUT =
      OptionSpec.plain(
          "callTimeout",
          "a duration such as `500ms`, `30s` or `2m`",
          null,
          OptionScope.CONNECTION,
          "The deadline of each call to the server; none by default. A DoGet (the reading of a"
              + " partition) is bounded until its first message (the schema) arrives, not for"
              + " the whole stream; an upload (DoPut) is not bounded, as its length depends on"
              + " the data. A call past it fails with DEADLINE_EXCEEDED.");

  public static final OptionSpec MAX_INBOUND_MESSAGE_SIZE =
      OptionSpec.plain(
          "maxInboundMessageSize",
          "a positive number of bytes",
          "2147483647",
          OptionScope.CONNECTION,
          "The largest gRPC message (one Arrow record batch) accepted from the server.");

  public static final OptionSpec ALLOW_INSECURE_LOCATIONS =
      OptionSpec.plain(
          "allowInsecureLocations",
          "`true` or `false`",
          "false",
          OptionScope.CONNECTION,
          "Whether an endpoint location in plaintext (`grpc+tcp://`) may be read when `uri` uses"
              + " TLS. Credentials, headers and cookies go to every location read, so by default"
              + " such a location is refused.");

  public static final OptionSpec QUERY =
      OptionSpec.plain(
          "query",
          "a SQL query in the server's dialect",
          null,
          OptionScope.READ,
          "The SQL query whose result is read. Exactly one of `query` and `dbtable` is required.");

  public static final OptionSpec DBTABLE =
      OptionSpec.plain(
          "dbtable",
          "a table name, optionally qualified and quoted in the server's dialect",
          null,
          OptionScope.READ_WRITE,
          "The table to read, as it would appear in a FROM clause (it is read with"
              + " `SELECT * FROM <dbtable>`); exactly one of `query` and `dbtable` is required to"
              + " read. The table to write: `name`, `schema.name` or `catalog.schema.name`, each"
              + " part optionally in double quotes.");

  public static final OptionSpec DECIMAL_OVERFLOW =
      OptionSpec.plain(
          "decimalOverflow",
          "`error`, `string` or `null`",
          "error",
          OptionScope.READ,
          "What to do with a decimal column wider than Spark's 38 digits (an Arrow decimal256, or"
              + " a decimal with a negative scale that needs more digits). `error` refuses the"
              + " column while planning; `string` reads it as a string holding each value's exact"
              + " decimal text; `null` reads it as DECIMAL(38, s), with NULL for each value that"
              + " does not fit. See docs/types.md.");

  public static final OptionSpec NANOSECONDS =
      OptionSpec.plain(
          "nanoseconds",
          "`truncate` or `error`",
          "truncate",
          OptionScope.READ,
          "What to do with timestamps, times, durations and intervals that carry nanoseconds,"
              + " which Spark's microseconds cannot hold. `truncate` drops the digits below a"
              + " microsecond, rounding towards the past; `error` fails the task at the first"
              + " value that is not a whole microsecond.");

  public static final OptionSpec MIXED_UNIONS =
      OptionSpec.plain(
          "mixedUnions",
          "`error` or `string`",
          "error",
          OptionScope.READ,
          "What to do with a union column whose members have different types (arrow-go's SQLite"
              + " example sends one for every column without a declared type). `error` refuses the"
              + " column while planning; `string` reads each value, of whichever member, as its"
              + " text. A union whose members other than NULL share one type always reads as that"
              + " type.");

  public static final OptionSpec PARTITION_COLUMN =
      OptionSpec.plain(
          "partitionColumn",
          "a column of the query's result, numeric, date or timestamp",
          null,
          OptionScope.READ,
          "Reads in parallel, as Spark's JDBC source does: the column whose range is split into"
              + " `numPartitions` strides between `lowerBound` and `upperBound`, one Spark partition"
              + " (and one query, with its own WHERE clause) each. The bounds only decide the"
              + " stride, they filter nothing: the first partition also reads the values below"
              + " `lowerBound` and NULLs, the last the values above `upperBound`. The four options"
              + " go together, and exclude `predicates`. Integral, decimal and floating-point"
              + " columns take whole-number bounds. For servers that give one endpoint per query;"
              + " see docs/pushdown.md.");

  public static final OptionSpec LOWER_BOUND =
      OptionSpec.plain(
          "lowerBound",
          "a whole number, a date (`2024-01-01`) or a timestamp (`2024-01-01 12:00:00[.ffffff]`,"
              + " optionally with an offset), as the partition column's type",
          null,
          OptionScope.READ,
          "With `partitionColumn`: where the first stride ends its lower side. A timestamp"
              + " without an offset is in the session time zone (`spark.sql.session.timeZone`).");

  public static final OptionSpec UPPER_BOUND =
      OptionSpec.plain(
          "upperBound",
          "a whole number, a date (`2024-01-01`) or a timestamp (`2024-01-01 12:00:00[.ffffff]`,"
              + " optionally with an offset), as the partition column's type",
          null,
          OptionScope.READ,
          "With `partitionColumn`: where the last stride starts its upper side. Not smaller than"
              + " `lowerBound`.");

  public static final OptionSpec NUM_PARTITIONS =
      OptionSpec.plain(
          "numPartitions",
          "a positive integer",
          null,
          OptionScope.READ,
          "With `partitionColumn`: how many partitions to read. Reduced to `upperBound -"
              + " lowerBound` (in days for dates, microseconds for timestamps) when the range is"
              + " smaller; 1, or equal bounds, reads the query whole in one partition.");

  public static final OptionSpec PREDICATES =
      OptionSpec.plain(
          "predicates",
          "a JSON array of strings, each a SQL condition in the server's dialect, e.g."
              + " `[\"region = 'EU'\", \"region <> 'EU' OR region IS NULL\"]`",
          null,
          OptionScope.READ,
          "Reads in parallel with one Spark partition per condition: each partition runs the"
              + " query with its condition as a WHERE clause. As in Spark's JDBC source, the"
              + " conditions are used as given: rows that match two of them are read twice, rows"
              + " that match none are not read. Cannot be combined with `partitionColumn`.");

  public static final OptionSpec CATALOG =
      OptionSpec.plain(
          "catalog",
          "a catalog name",
          null,
          OptionScope.READ_WRITE,
          "The session's default catalog. Sent with Flight's SetSessionOptions where the server"
              + " has it, so queries and statements resolve unqualified names in it. Where the"
              + " server does not, a read with an unqualified `dbtable` is qualified with it. A"
              + " write qualifies its table with it when `dbtable` names no catalog.");

  public static final OptionSpec SCHEMA =
      OptionSpec.plain(
          "schema",
          "a schema name",
          null,
          OptionScope.READ_WRITE,
          "The session's default schema, like `catalog`: SetSessionOptions where the server has"
              + " it, else a qualifier of an unqualified `dbtable`; a write qualifies its table"
              + " with it when `dbtable` names no schema.");

  public static final OptionSpec WRITE_METHOD =
      OptionSpec.plain(
          "writeMethod",
          "`auto`, `ingest` or `prepared`",
          "auto",
          OptionScope.WRITE,
          "How rows reach the server. `ingest` streams Arrow batches through Flight SQL bulk"
              + " ingestion (`CommandStatementIngest`); `prepared` binds them as the parameters of a"
              + " prepared `INSERT ... VALUES (?, ...)`; `auto` uses ingestion where GetSqlInfo"
              + " says the server has it, and a prepared INSERT otherwise. See docs/writing.md.");

  public static final OptionSpec BATCH_SIZE =
      OptionSpec.plain(
          "batchSize",
          "a positive number of rows",
          "65536",
          OptionScope.WRITE,
          "The most rows in one Arrow batch sent by a write task. A batch also ends at"
              + " `batchBytes`.");

  public static final OptionSpec BATCH_BYTES =
      OptionSpec.plain(
          "batchBytes",
          "a positive number of bytes",
          "4194304",
          OptionScope.WRITE,
          "The most bytes (Arrow buffer sizes, estimated as rows are added) in one Arrow batch"
              + " sent by a write task. A task holds about two batches in memory, whatever its"
              + " size.");

  public static final OptionSpec TRUNCATE =
      OptionSpec.plain(
          "truncate",
          "`true` or `false`",
          "false",
          OptionScope.WRITE,
          "With save mode `overwrite`: `true` keeps the table's definition and deletes its"
              + " rows; `false` drops the table and creates it again from the DataFrame's schema.");

  public static final OptionSpec ATOMIC =
      OptionSpec.plain(
          "atomic",
          "`true` or `false`",
          "false",
          OptionScope.WRITE,
          "`true` makes the whole job one transaction on the server: tasks write to staging"
              + " tables, and the job's commit moves their rows into the table in one transaction,"
              + " so a failed or retried task never leaves partial or duplicate rows. Needs a server"
              + " with transactions; fails before any task runs otherwise.");

  public static final OptionSpec DIALECT =
      OptionSpec.plain(
          "dialect",
          "`auto`, `ansi`, `duckdb`, `sqlite`, `derby` or `mysql`",
          "auto",
          OptionScope.READ_WRITE,
          "The SQL the connector writes for the server: the column types of a table it creates,"
              + " and the filters, aggregates, ordering and row limits it pushes into a read"
              + " (quoting, literals, which of them the server can run as Spark would). `mysql` is"
              + " MySQL's syntax as Apache Doris and StarRocks speak it. `auto` chooses from the"
              + " server's name (GetSqlInfo; for reads its version too), and `ansi` where it is"
              + " not known. See docs/pushdown.md.");

  public static final OptionSpec PUSH_DOWN_PREDICATE =
      OptionSpec.plain(
          "pushDownPredicate",
          "`true` or `false`",
          "true",
          OptionScope.READ,
          "`true` sends Spark's filters that the dialect can write to the server in the query's"
              + " WHERE clause; the others stay in Spark. `false` filters every row in Spark.");

  public static final OptionSpec PUSH_DOWN_LIMIT =
      OptionSpec.plain(
          "pushDownLimit",
          "`true` or `false`",
          "true",
          OptionScope.READ,
          "`true` sends a LIMIT to the server, so that it returns only the rows Spark keeps.");

  public static final OptionSpec PUSH_DOWN_OFFSET =
      OptionSpec.plain(
          "pushDownOffset",
          "`true` or `false`",
          "true",
          OptionScope.READ,
          "`true` sends an OFFSET to the server, so that it skips the rows Spark would skip.");

  public static final OptionSpec PUSH_DOWN_TOP_N =
      OptionSpec.plain(
          "pushDownTopN",
          "`true` or `false`",
          "true",
          OptionScope.READ,
          "`true` sends an ORDER BY with a LIMIT to the server, so that it returns only the first"
              + " rows in Spark's order. Spark still orders those rows again, since a server may"
              + " split its answer into endpoints that it does not order among themselves.");

  public static final OptionSpec PUSH_DOWN_AGGREGATE =
      OptionSpec.plain(
          "pushDownAggregate",
          "`true` or `false`",
          "true",
          OptionScope.READ,
          "`true` sends COUNT, SUM, MIN, MAX and AVG with their GROUP BY columns to the server"
              + " when all of a query's aggregates can be written. It needs no capability from"
              + " the server beyond SQL: the connector asks the server for the aggregated query's"
              + " schema first and pushes nothing when the server refuses it.");

  private static final List<OptionSpec> ALL =
      Collections.unmodifiableList(
          Arrays.asList(
              URI,
              USERNAME,
              PASSWORD,
              PASSWORD_ENV,
              PASSWORD_FILE,
              TOKEN,
              TOKEN_ENV,
              TOKEN_FILE,
              TLS_ROOT_CERTS,
              DISABLE_CERTIFICATE_VERIFICATION,
              CLIENT_CERTIFICATE,
              CLIENT_KEY,
              HEADER,
              CONNECT_TIMEOUT,
              CALL_TIMEOUT,
              MAX_INBOUND_MESSAGE_SIZE,
              ALLOW_INSECURE_LOCATIONS,
              QUERY,
              DBTABLE,
              DECIMAL_OVERFLOW,
              NANOSECONDS,
              MIXED_UNIONS,
              PARTITION_COLUMN,
              LOWER_BOUND,
              UPPER_BOUND,
              NUM_PARTITIONS,
              PREDICATES,
              CATALOG,
              SCHEMA,
              WRITE_METHOD,
              BATCH_SIZE,
              BATCH_BYTES,
              TRUNCATE,
              ATOMIC,
              DIALECT,
              PUSH_DOWN_PREDICATE,
              PUSH_DOWN_LIMIT,
              PUSH_DOWN_OFFSET,
              PUSH_DOWN_TOP_N,
              PUSH_DOWN_AGGREGATE));

  private static final Map<String, OptionSpec> BY_NAME =
      ALL.stream()
          .collect(Collectors.toMap(o -> o.name().toLowerCase(Locale.ROOT), Function.identity()));

  private FlightSqlOptions() {}

  /** The prefix of the options {@code header.<name>}. */
  public static final String HEADER_PREFIX = "header.";

  /** Every option, in documentation order. */
  public static List<OptionSpec> all() {
    return ALL;
  }

  /** The option of that name, matched case-insensitively. */
  public static Optional<OptionSpec> find(String name) {
    return Optional.ofNullable(BY_NAME.get(name.toLowerCase(Locale.ROOT)));
  }
}
