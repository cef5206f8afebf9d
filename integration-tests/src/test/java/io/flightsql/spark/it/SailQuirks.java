package io.flightsql.spark.it;

import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;

/**
 * How Sail differs: it speaks Spark SQL ({@code "..."} is a string, names are quoted with
 * backticks), runs DDL and DML only as statement queries, keeps tables as Parquet files made with
 * {@code CREATE TABLE ... USING parquet AS SELECT}, and takes no writes through Flight SQL (no
 * DoPut, no prepared statements). It answers no GetSqlInfo, so the connector establishes its
 * quoting with a probe query.
 */
final class SailQuirks extends ServerQuirks {
  private final String uri;

  SailQuirks(String uri) {
    this.uri = uri;
  }

  @Override
  String name() {
    return "Sail";
  }

  @Override
  String uri() {
    return uri;
  }

  @Override
  void executeUpdate(String sql) {
    FlightSqlUpdates.query(uri, sql);
  }

  /** One statement: Sail's Parquet tables are written whole. */
  @Override
  void createTable(String name, List<List<String>> rows) {
    List<String> values = new ArrayList<>();
    for (List<String> row : rows) {
      values.add("(" + String.join(", ", row) + ")");
    }
    List<String> columns = new ArrayList<>();
    for (ContractColumn column : ContractColumn.values()) {
      columns.add(
          "CAST(" + column.sqlName() + " AS " + ddlType(column) + ") AS " + column.sqlName());
    }
    List<String> names = new ArrayList<>();
    for (ContractColumn column : ContractColumn.values()) {
      names.add(column.sqlName());
    }
    executeUpdate(
        "CREATE TABLE "
            + name
            + " USING parquet AS SELECT "
            + String.join(", ", columns)
            + " FROM VALUES "
            + String.join(", ", values)
            + " AS v("
            + String.join(", ", names)
            + ")");
  }

  @Override
  List<String> writeMethods() {
    return List.of();
  }

  @Override
  String literal(ContractColumn column, Object value) {
    if (value == null) {
      // A bare NULL in VALUES has no type; the CAST in the SELECT gives it one.
      return "NULL";
    }
    switch (column) {
      case NAME:
        // Spark SQL reads 'it''s' as two literals joined; "..." is a string here.
        return "\"" + value + "\"";
      case SEEN_AT:
        return "TIMESTAMP_NTZ '" + SQL_TIMESTAMP.format((LocalDateTime) value) + "'";
      default:
        return value.toString();
    }
  }

  @Override
  List<NumericColumn> numericColumns() {
    return standardNumericColumns(true, "INT", "c_float", "FLOAT", 30);
  }

  /** One statement: Sail's Parquet tables are written whole, each column cast to its type. */
  @Override
  void createNumericTable(String name, List<NumericColumn> columns) {
    List<String> select = new ArrayList<>();
    List<String> aliases = new ArrayList<>();
    select.add("CAST(v0 AS INT) AS g");
    aliases.add("v0");
    for (int i = 0; i < columns.size(); i++) {
      NumericColumn column = columns.get(i);
      select.add("CAST(v" + (i + 1) + " AS " + column.type + ") AS " + column.name);
      aliases.add("v" + (i + 1));
    }
    List<String> rows = new ArrayList<>();
    for (int row = 0; row < columns.get(0).values.size(); row++) {
      List<String> values = new ArrayList<>();
      values.add(Integer.toString(row % 2));
      for (NumericColumn column : columns) {
        // Each value typed: VALUES would otherwise give a column one type for 0.5 and 1e308.
        values.add("CAST(" + column.values.get(row) + " AS " + column.type + ")");
      }
      rows.add("(" + String.join(", ", values) + ")");
    }
    executeUpdate(
        "CREATE TABLE "
            + name
            + " USING parquet AS SELECT "
            + String.join(", ", select)
            + " FROM VALUES "
            + String.join(", ", rows)
            + " AS t("
            + String.join(", ", aliases)
            + ")");
  }

  @Override
  String ddlType(ContractColumn column) {
    return byColumn(column, "BIGINT", "STRING", "DOUBLE", "TIMESTAMP_NTZ");
  }

  @Override
  DataType sparkType(ContractColumn column) {
    return byColumn(
        column,
        DataTypes.LongType,
        DataTypes.StringType,
        DataTypes.DoubleType,
        DataTypes.TimestampNTZType);
  }

  @Override
  String syntaxErrorText() {
    return "SELEKT";
  }
}
