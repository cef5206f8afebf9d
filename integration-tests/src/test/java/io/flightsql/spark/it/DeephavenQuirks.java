package io.flightsql.spark.it;

import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;

/**
 * How Deephaven differs: tables are Python globals made by the server's start-up script (no DDL or
 * DML through Flight SQL, no DoPut), every call needs {@code authorization: Anonymous}, SQL is
 * Calcite's, and times are instants (read as Spark TIMESTAMP).
 */
final class DeephavenQuirks extends ServerQuirks {
  private final String uri;

  DeephavenQuirks(String uri) {
    this.uri = uri;
  }

  @Override
  String name() {
    return "Deephaven";
  }

  @Override
  String uri() {
    return uri;
  }

  @Override
  Map<String, String> options() {
    return Map.of("header.authorization", "Anonymous");
  }

  @Override
  void executeUpdate(String sql) {
    throw new UnsupportedOperationException("Deephaven runs no DDL or DML through Flight SQL");
  }

  /** The start-up script made it, with the same rows (start_deephaven.py). */
  @Override
  void createTable(String name, List<List<String>> rows) {}

  /** The start-up script made the table with these values (start_deephaven.py). */
  @Override
  List<NumericColumn> numericColumns() {
    return List.of(
        new NumericColumn("c_byte", "byte", "-127", "127", "127", "NULL", "1"),
        new NumericColumn("c_short", "short", "-32767", "32767", "30000", "30000", "NULL"),
        new NumericColumn("c_int", "int", "-2147483647", "2147483647", "2147483647", "1", "NULL"),
        new NumericColumn(
            "c_long", "long", "-9223372036854775807", "9223372036854775807", "1", "-1", "NULL"),
        new NumericColumn(
            "c_float",
            "float",
            "3.4028234663852886e38",
            "3.4028234663852886e38",
            "0.5",
            "-2",
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

  /** The start-up script made them (start_deephaven.py). */
  @Override
  void createNumericTable(String name, List<NumericColumn> columns) {}

  @Override
  List<String> writeMethods() {
    return List.of();
  }

  @Override
  String ddlType(ContractColumn column) {
    throw new UnsupportedOperationException("Deephaven runs no DDL through Flight SQL");
  }

  @Override
  DataType sparkType(ContractColumn column) {
    return byColumn(
        column,
        DataTypes.LongType,
        DataTypes.StringType,
        DataTypes.DoubleType,
        DataTypes.TimestampType);
  }

  @Override
  Object sparkValue(ContractColumn column, Object value) {
    if (column == ContractColumn.SEEN_AT && value != null) {
      return ((LocalDateTime) value).toInstant(ZoneOffset.UTC);
    }
    return super.sparkValue(column, value);
  }

  /**
   * Deephaven's NULL is the smallest value ({@code NULL < 1} is true), and every column it reports
   * may hold NULLs, so the connector compares no column in SQL pushed to it: filters and orderings
   * stay with Spark. It refuses OFFSET, which then stays with Spark too.
   */
  @Override
  boolean pushes(String query) {
    return !query.contains(" WHERE ") && !query.contains(" ORDER BY ") && !query.contains("OFFSET");
  }

  /** Every column may hold NULLs, which Deephaven compares otherwise: nothing is compared. */
  @Override
  boolean pushesJoins() {
    return false;
  }

  @Override
  boolean filtersAtRunTime() {
    return false;
  }

  @Override
  boolean rowCountsInFlightInfo() {
    return true;
  }

  @Override
  String syntaxErrorText() {
    return "query can't be parsed";
  }
}
