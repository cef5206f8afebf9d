package io.flightsql.spark.server;

import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * The DuckDB column types that bulk ingestion creates for an upload's Arrow schema.
 *
 * <p>Each Arrow type gets the DuckDB type that holds all of its values, so that DuckDB's own Arrow
 * import (which reads the upload) and the created table agree: for instance a timestamp with any
 * time zone is an instant and becomes TIMESTAMPTZ, a duration becomes INTERVAL. A non-nullable
 * top-level field becomes a NOT NULL column; DuckDB has no NOT NULL inside nested types, so nested
 * nullability is not kept. The module's ARROW_TYPES.md has the table.
 *
 * <p>Types that DuckDB cannot hold, and dictionary-encoded columns (whose dictionaries this server
 * does not pass on to DuckDB), are refused before anything is written, naming the column.
 */
final class IngestTypes {

  private IngestTypes() {}

  /**
   * {@code "name" TYPE [NOT NULL], ...} for a {@code CREATE TABLE} of {@code schema}'s columns.
   *
   * @throws IllegalArgumentException naming the first column that DuckDB cannot store
   */
  static String columnDefinitions(Schema schema) {
    if (schema.getFields().isEmpty()) {
      throw new IllegalArgumentException("The upload has no columns: a table needs at least one");
    }
    List<String> columns = new ArrayList<>(schema.getFields().size());
    for (Field field : schema.getFields()) {
      String column = QuerySql.quoteIdentifier(field.getName()) + ' ' + duckDbType(field, "");
      columns.add(field.isNullable() ? column : column + " NOT NULL");
    }
    return String.join(", ", columns);
  }

  /**
   * Checks that DuckDB can read every column of the upload, without building any SQL; the check
   * that appending to an existing table needs.
   *
   * @throws IllegalArgumentException naming the first column that DuckDB cannot read
   */
  static void check(Schema schema) {
    for (Field field : schema.getFields()) {
      duckDbType(field, "");
    }
  }

  /** The DuckDB type of a column (or of a nested field, at {@code parent + name}). */
  static String duckDbType(Field field, String parent) {
    String path = parent + field.getName();
    if (field.getDictionary() != null) {
      throw unsupported(
          path, field, "is dictionary-encoded; send the dictionary's values instead of indices");
    }
    ArrowType type = field.getType();
    return switch (type.getTypeID()) {
      // DuckDB gives an untyped NULL column the type INTEGER, as in CREATE TABLE AS SELECT NULL.
      case Null -> "INTEGER";
      case Bool -> "BOOLEAN";
      case Int -> integer((ArrowType.Int) type);
      case FloatingPoint -> floatingPoint(path, field, (ArrowType.FloatingPoint) type);
      case Decimal -> decimal(path, field, (ArrowType.Decimal) type);
      case Utf8, LargeUtf8, Utf8View -> "VARCHAR";
      case Binary, LargeBinary, BinaryView, FixedSizeBinary -> "BLOB";
      case Date -> "DATE";
      // TIME holds microseconds; nanoseconds are truncated.
      case Time -> "TIME";
      case Timestamp -> timestamp((ArrowType.Timestamp) type);
      case Duration, Interval -> "INTERVAL";
      case List, LargeList, ListView, LargeListView -> child(field, 0, path) + "[]";
      case FixedSizeList ->
          child(field, 0, path) + "[" + ((ArrowType.FixedSizeList) type).getListSize() + "]";
      case Struct -> struct(path, field);
      case Map -> map(path, field);
      default ->
          throw unsupported(
              path, field, "has no DuckDB column type here; cast it to a plainer type first");
    };
  }

  private static String integer(ArrowType.Int type) {
    String name =
        switch (type.getBitWidth()) {
          case 8 -> "TINYINT";
          case 16 -> "SMALLINT";
          case 32 -> "INTEGER";
          default -> "BIGINT";
        };
    return type.getIsSigned() ? name : "U" + name;
  }

  /** DuckDB 1.5's Arrow import knows no half floats ("Unsupported Internal Arrow Type e"). */
  private static String floatingPoint(String path, Field field, ArrowType.FloatingPoint type) {
    return switch (type.getPrecision()) {
      case SINGLE -> "FLOAT";
      case DOUBLE -> "DOUBLE";
      case HALF ->
          throw unsupported(
              path,
              field,
              "is a half float, which DuckDB cannot read; send it as a single-precision float");
    };
  }

  private static String decimal(String path, Field field, ArrowType.Decimal type) {
    if (type.getPrecision() > 38 || type.getScale() < 0 || type.getScale() > type.getPrecision()) {
      throw unsupported(
          path,
          field,
          "does not fit DuckDB's DECIMAL, which has 1 to 38 digits and a scale from 0 to the"
              + " precision; cast it to a DECIMAL(38, s) or to a DOUBLE");
    }
    return "DECIMAL(" + type.getPrecision() + ", " + type.getScale() + ")";
  }

  /**
   * An instant when the type has a time zone, whichever zone it names (Arrow stores UTC values),
   * otherwise a local date-time; nanoseconds keep their own type.
   */
  private static String timestamp(ArrowType.Timestamp type) {
    if (type.getTimezone() != null) {
      return "TIMESTAMPTZ";
    }
    return type.getUnit() == TimeUnit.NANOSECOND ? "TIMESTAMP_NS" : "TIMESTAMP";
  }

  private static String struct(String path, Field field) {
    if (field.getChildren().isEmpty()) {
      throw unsupported(path, field, "is a struct without fields, which DuckDB cannot store");
    }
    List<String> members = new ArrayList<>(field.getChildren().size());
    for (Field child : field.getChildren()) {
      members.add(QuerySql.quoteIdentifier(child.getName()) + ' ' + duckDbType(child, path + "."));
    }
    return "STRUCT(" + String.join(", ", members) + ")";
  }

  /** A map's single child is its entries struct, whose two fields are the key and the value. */
  private static String map(String path, Field field) {
    Field entries = field.getChildren().get(0);
    return "MAP("
        + duckDbType(entries.getChildren().get(0), path + ".")
        + ", "
        + duckDbType(entries.getChildren().get(1), path + ".")
        + ")";
  }

  private static String child(Field field, int index, String path) {
    return duckDbType(field.getChildren().get(index), path + ".");
  }

  private static IllegalArgumentException unsupported(String path, Field field, String why) {
    return new IllegalArgumentException(
        "Column '" + path + "' of Arrow type " + field.getType() + ' ' + why);
  }
}
