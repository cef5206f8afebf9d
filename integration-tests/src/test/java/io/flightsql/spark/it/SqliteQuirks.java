package io.flightsql.spark.it;

import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.List;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;

/**
 * How arrow-go's SQLite example differs: a column declared INTEGER is int64, DATE is text (written
 * as SQL text, read back in RFC 3339). Only types from the server's list of safe declarations are
 * used: any other type crashes the whole server process.
 */
final class SqliteQuirks extends ServerQuirks {
  private static final DateTimeFormatter RFC_3339_UTC =
      DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss'Z'");

  private final String uri;

  SqliteQuirks(String uri) {
    this.uri = uri;
  }

  @Override
  String name() {
    return "SQLite (arrow-go)";
  }

  @Override
  String uri() {
    return uri;
  }

  @Override
  boolean transactions() {
    return true;
  }

  @Override
  String catalogNamespace() {
    return "main";
  }

  /**
   * None: the example's GetTables lists {@code sqlite_master} of {@code main} only, so a table of
   * an attached database is never a candidate (and an ATTACH holds for one pooled connection).
   */
  @Override
  String secondSchema() {
    return null;
  }

  /**
   * The declared types the example knows (any other crashes it): its integers are 64-bit, a FLOAT
   * is read as a single-precision float and a DOUBLE as a double.
   */
  @Override
  List<NumericColumn> numericColumns() {
    return List.of(
        new NumericColumn(
            "c_int", "integer", "-9223372036854775808", "9223372036854775807", "1", "-1", "NULL"),
        new NumericColumn(
            "c_float",
            "float",
            "-3.4028234663852886e38",
            "3.4028234663852886e38",
            "3.4028234663852886e38",
            "0.5",
            "NULL"),
        new NumericColumn(
            "c_double",
            "double",
            "1.7976931348623157e308",
            "1.7976931348623157e308",
            "0.25",
            "-2",
            "NULL"));
  }

  @Override
  List<String> integerAndSmallint() {
    return List.of("integer", "integer");
  }

  @Override
  String ddlType(ContractColumn column) {
    return byColumn(column, "INTEGER", "VARCHAR(100)", "DOUBLE", "DATE");
  }

  @Override
  DataType sparkType(ContractColumn column) {
    return byColumn(
        column,
        DataTypes.LongType,
        DataTypes.StringType,
        DataTypes.DoubleType,
        DataTypes.StringType);
  }

  @Override
  String literal(ContractColumn column, Object value) {
    if (column == ContractColumn.SEEN_AT && value != null) {
      return "'" + SQL_TIMESTAMP.format((LocalDateTime) value) + "'";
    }
    return super.literal(column, value);
  }

  @Override
  Object sparkValue(ContractColumn column, Object value) {
    if (column == ContractColumn.SEEN_AT && value != null) {
      // The server parses the text of a DATE column and sends it back in RFC 3339, as UTC.
      return RFC_3339_UTC.format((LocalDateTime) value);
    }
    return super.sparkValue(column, value);
  }

  @Override
  String syntaxErrorText() {
    return "near \"SELEKT\": syntax error";
  }
}
