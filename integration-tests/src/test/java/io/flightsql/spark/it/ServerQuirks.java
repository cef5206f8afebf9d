package io.flightsql.spark.it;

import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;

/**
 * What differs between the Flight SQL servers that {@link FlightSqlContractSuite} runs against: how
 * to run DDL, how to declare and write each {@link ContractColumn}, and what Spark reads back. The
 * defaults suit a server that keeps names as written and maps SQL types the usual way.
 */
abstract class ServerQuirks {
  static final DateTimeFormatter SQL_TIMESTAMP = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss");

  /** The server, for messages. */
  abstract String name();

  /** Where the connector reaches the server. */
  abstract String uri();

  /**
   * Runs one DDL or DML statement through the server's Flight SQL interface
   * (CommandStatementUpdate), outside Spark.
   */
  void executeUpdate(String sql) {
    FlightSqlUpdates.execute(uri(), sql);
  }

  /**
   * Whether the connector pushes the work of this query of the contract's pushdown test into the
   * server: false where the server refuses the SQL the dialect writes for it (tried with a query
   * that returns no row) and Spark does it instead.
   */
  boolean pushes(String query) {
    return true;
  }

  /** Options every read needs on this server, such as an authorization header. */
  java.util.Map<String, String> options() {
    return java.util.Map.of();
  }

  /**
   * Creates the contract table {@code name} holding these rows (SQL literals in {@link
   * ContractColumn} order): by default a {@code CREATE TABLE} and an {@code INSERT} per row.
   */
  void createTable(String name, List<List<String>> rows) {
    StringBuilder columns = new StringBuilder();
    for (ContractColumn column : ContractColumn.values()) {
      columns.append(columns.length() > 0 ? ", " : "");
      columns.append(column.sqlName()).append(' ').append(ddlType(column));
    }
    executeUpdate("CREATE TABLE " + name + " (" + columns + ")");
    for (List<String> row : rows) {
      executeUpdate("INSERT INTO " + name + " VALUES (" + String.join(", ", row) + ")");
    }
  }

  /**
   * Of one value per contract column, in {@link ContractColumn} order, the one for {@code column}.
   */
  static <T> T byColumn(ContractColumn column, T id, T name, T score, T seenAt) {
    switch (column) {
      case ID:
        return id;
      case NAME:
        return name;
      case SCORE:
        return score;
      default:
        return seenAt;
    }
  }

  /** The column type to declare in {@code CREATE TABLE}. */
  abstract String ddlType(ContractColumn column);

  /** The Spark type the connector reads the column as. */
  abstract DataType sparkType(ContractColumn column);

  /** Words of the server's own message for a syntax error in {@code SELEKT 1}. */
  abstract String syntaxErrorText();

  /** The DataFrame to write for rows read from the server: what its parameters can take. */
  org.apache.spark.sql.Dataset<org.apache.spark.sql.Row> writable(
      org.apache.spark.sql.Dataset<org.apache.spark.sql.Row> read) {
    return read;
  }

  /** Whether the server has transactions (GetSqlInfo FLIGHT_SQL_SERVER_TRANSACTION). */
  boolean transactions() {
    return false;
  }

  /**
   * The namespace of tables created with {@link #executeUpdate} as the connector's catalog names it
   * ({@code main}, {@code app}, ...), or null where the catalog does not reach them.
   */
  String catalogNamespace() {
    return null;
  }

  /**
   * A schema that a test may create ({@code CREATE SCHEMA}) beside the one where the server's SQL
   * looks for a table named without its schema, and whose tables GetTables lists; null where the
   * server cannot have one.
   */
  String secondSchema() {
    return null;
  }

  /** The connector's write methods the server supports. */
  List<String> writeMethods() {
    return List.of("prepared");
  }

  /** A name as the server reports it in result schemas (Derby upper-cases unquoted names). */
  String reportedName(String sqlName) {
    return sqlName;
  }

  /** A SQL literal for a value of the column; null is {@code NULL}. */
  String literal(ContractColumn column, Object value) {
    if (value == null) {
      return "NULL";
    }
    switch (column) {
      case NAME:
        return "'" + ((String) value).replace("'", "''") + "'";
      case SEEN_AT:
        return "TIMESTAMP '" + SQL_TIMESTAMP.format((LocalDateTime) value) + "'";
      default:
        return value.toString();
    }
  }

  /**
   * The Java value Spark returns (with {@code spark.sql.datetime.java8API.enabled}) for a value the
   * test wrote; null stays null.
   */
  Object sparkValue(ContractColumn column, Object value) {
    if (value == null) {
      return null;
    }
    if (column == ContractColumn.ID && sparkType(column).equals(DataTypes.IntegerType)) {
      return Math.toIntExact((Long) value);
    }
    return value;
  }

  /**
   * Whether the connector joins two reads of this server on the server (Spark 4.1's join pushdown):
   * where its dialect compares the join's columns as Spark does.
   */
  boolean pushesJoins() {
    return true;
  }

  /** Whether a runtime filter on a text column reaches the server's query. */
  boolean filtersAtRunTime() {
    return true;
  }

  /** Whether the server gives the row count of a query with its FlightInfo (total_records). */
  boolean rowCountsInFlightInfo() {
    return false;
  }

  /** A numeric column of {@link AggregateContract}'s table: its name, SQL type and values. */
  static final class NumericColumn {
    final String name;
    final String type;

    /** One SQL literal a row, {@code NULL} included. */
    final List<String> values;

    NumericColumn(String name, String type, String... values) {
      this.name = name;
      this.type = type;
      this.values = List.of(values);
    }
  }

  /**
   * The numeric columns of a server with SQL's standard types, written in its names: an optional
   * TINYINT, SMALLINT, {@code intType}, BIGINT, a single-precision {@code floatColumn} of type
   * {@code floatType}, DOUBLE, DECIMAL(9,2) and a DECIMAL({@code wideDigits},4) whose smallest
   * value has all its digits. Each column's values, in the same rows, are at its type's edges, a
   * NULL and values whose sum Spark computes the same in any order.
   */
  static List<NumericColumn> standardNumericColumns(
      boolean tinyint, String intType, String floatColumn, String floatType, int wideDigits) {
    List<NumericColumn> columns = new ArrayList<>();
    if (tinyint) {
      columns.add(new NumericColumn("c_tinyint", "TINYINT", "-128", "127", "127", "NULL", "1"));
    }
    columns.add(
        new NumericColumn("c_smallint", "SMALLINT", "-32768", "32767", "30000", "30000", "NULL"));
    columns.add(
        new NumericColumn(
            "c_int", intType, "-2147483648", "2147483647", "2147483647", "1", "NULL"));
    columns.add(
        new NumericColumn(
            "c_bigint",
            "BIGINT",
            "-9223372036854775808",
            "9223372036854775807",
            "1",
            "-1",
            "NULL"));
    columns.add(
        new NumericColumn(
            floatColumn,
            floatType,
            "-3.4028234663852886e38",
            "3.4028234663852886e38",
            "3.4028234663852886e38",
            "0.5",
            "NULL"));
    columns.add(
        new NumericColumn(
            "c_double",
            "DOUBLE",
            "1.7976931348623157e308",
            "1.7976931348623157e308",
            "0.25",
            "-2",
            "NULL"));
    columns.add(
        new NumericColumn(
            "c_dec", "DECIMAL(9,2)", "-9999999.99", "9999999.99", "9999999.99", "0.01", "NULL"));
    columns.add(
        new NumericColumn(
            "c_wide",
            "DECIMAL(" + wideDigits + ",4)",
            "-" + "9".repeat(wideDigits - 4) + ".9999",
            "1.5",
            "2.25",
            "NULL",
            "3"));
    return columns;
  }

  /**
   * The numeric types the server declares, each a column of {@link AggregateContract}'s table with
   * values at the type's edges and a NULL, in which no order of summing changes Spark's sum; empty
   * where the contract cannot make tables on the server.
   */
  List<NumericColumn> numericColumns() {
    return List.of();
  }

  /** The types of an INTEGER and a SMALLINT column, for the reported cases. */
  List<String> integerAndSmallint() {
    return List.of("INTEGER", "SMALLINT");
  }

  /**
   * Creates table {@code name} of an INTEGER column {@code g} (each row's number modulo 2) and
   * {@code columns}: by default a {@code CREATE TABLE} and an {@code INSERT} per row.
   */
  void createNumericTable(String name, List<NumericColumn> columns) {
    StringBuilder create = new StringBuilder("CREATE TABLE " + name + " (g INTEGER");
    for (NumericColumn column : columns) {
      create.append(", ").append(column.name).append(' ').append(column.type);
    }
    executeUpdate(create.append(')').toString());
    for (int row = 0; row < columns.get(0).values.size(); row++) {
      StringBuilder insert = new StringBuilder("INSERT INTO " + name + " VALUES (" + row % 2);
      for (NumericColumn column : columns) {
        insert.append(", ").append(column.values.get(row));
      }
      executeUpdate(insert.append(')').toString());
    }
  }

  @Override
  public String toString() {
    return name().toLowerCase(Locale.ROOT);
  }
}
