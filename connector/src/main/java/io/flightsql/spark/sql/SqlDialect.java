package io.flightsql.spark.sql;

import io.flightsql.spark.client.TableRef;
import io.flightsql.spark.types.UnsupportedSparkTypeException;
import java.util.Locale;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.BinaryType;
import org.apache.spark.sql.types.BooleanType;
import org.apache.spark.sql.types.ByteType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DateType;
import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.sql.types.DoubleType;
import org.apache.spark.sql.types.FloatType;
import org.apache.spark.sql.types.IntegerType;
import org.apache.spark.sql.types.LongType;
import org.apache.spark.sql.types.MapType;
import org.apache.spark.sql.types.ShortType;
import org.apache.spark.sql.types.StringType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.types.TimestampNTZType;
import org.apache.spark.sql.types.TimestampType;

/**
 * The SQL the connector writes for a server: the column types of a CREATE TABLE, and the statements
 * around a write (INSERT, DELETE, DROP). Identifiers are quoted with the server's quote character
 * (GetSqlInfo), doubled inside. Chosen by option {@code dialect}, or from the server's name.
 */
public enum SqlDialect {
  /** ANSI SQL types, for servers the connector does not know. */
  ANSI,
  /** DuckDB, with its nested types. */
  DUCKDB,
  /** SQLite as arrow-go's Flight SQL example reads its declared types. */
  SQLITE,
  /** Apache Derby (Arrow Java's Flight SQL example). */
  DERBY,
  /**
   * MySQL's syntax as Apache Doris and StarRocks speak it: backtick-quoted identifiers, backslash
   * escapes in string literals.
   */
  MYSQL;

  /** The dialect a server's name (FLIGHT_SQL_SERVER_NAME) suggests; ANSI when it says nothing. */
  public static SqlDialect forServerName(String serverName) {
    String name = serverName == null ? "" : serverName.toLowerCase(Locale.ROOT);
    if (name.contains("duckdb")) {
      return DUCKDB;
    }
    if (name.contains("derby")) {
      return DERBY;
    }
    if (name.contains("sqlite")) {
      return SQLITE;
    }
    if (name.contains("mysql") || name.contains("doris") || name.contains("starrocks")) {
      return MYSQL;
    }
    return ANSI;
  }

  /**
   * The dialect of a read from a server that calls itself {@code serverName}, version {@code
   * serverVersion} (GetSqlInfo). The version counts too: arrow-go's SQLite example is named {@code
   * db_name} and says {@code sqlite 3} only in its version. Writes keep choosing by the name alone.
   */
  public static SqlDialect forServer(String serverName, String serverVersion) {
    SqlDialect byName = forServerName(serverName);
    return byName != ANSI ? byName : forServerName(serverVersion);
  }

  /** The dialect of a lower-case name that option {@code dialect} allows, {@code auto} aside. */
  public static SqlDialect fromOptionValue(String name) {
    return valueOf(name.toUpperCase(Locale.ROOT));
  }

  public String optionValue() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** {@code CREATE TABLE} for a DataFrame's schema. */
  public String createTable(TableRef table, StructType schema, String quote) {
    StringBuilder sql = new StringBuilder("CREATE TABLE ").append(table.sql(quote)).append(" (");
    StructField[] fields = schema.fields();
    for (int i = 0; i < fields.length; i++) {
      if (i > 0) {
        sql.append(", ");
      }
      sql.append(TableRef.quote(fields[i].name(), quote))
          .append(' ')
          .append(columnType(fields[i].dataType(), fields[i].name(), quote));
      if (!fields[i].nullable()) {
        sql.append(" NOT NULL");
      }
    }
    return sql.append(')').toString();
  }

  /** {@code INSERT INTO t (c1, ...) VALUES (?, ...)}, the statement a prepared write binds. */
  public String insert(TableRef table, StructType schema, String quote) {
    StringBuilder columns = new StringBuilder();
    StringBuilder marks = new StringBuilder();
    for (StructField field : schema.fields()) {
      if (columns.length() > 0) {
        columns.append(", ");
        marks.append(", ");
      }
      columns.append(TableRef.quote(field.name(), quote));
      marks.append('?');
    }
    return "INSERT INTO " + table.sql(quote) + " (" + columns + ") VALUES (" + marks + ")";
  }

  /** Copies every row of {@code source} into {@code target}, column by column. */
  public String insertSelect(TableRef target, TableRef source, StructType schema, String quote) {
    StringBuilder columns = new StringBuilder();
    for (StructField field : schema.fields()) {
      if (columns.length() > 0) {
        columns.append(", ");
      }
      columns.append(TableRef.quote(field.name(), quote));
    }
    return "INSERT INTO "
        + target.sql(quote)
        + " ("
        + columns
        + ") SELECT "
        + columns
        + " FROM "
        + source.sql(quote);
  }

  public String deleteAll(TableRef table, String quote) {
    return "DELETE FROM " + table.sql(quote);
  }

  public String dropTable(TableRef table, String quote) {
    return "DROP TABLE " + table.sql(quote);
  }

  /**
   * The SQL type of a column.
   *
   * @throws UnsupportedSparkTypeException for a type this dialect cannot create, naming the column
   */
  public String columnType(DataType type, String path, String quote) {
    switch (this) {
      case SQLITE:
        return sqliteType(type, path);
      case DERBY:
        return derbyType(type, path);
      default:
        return standardType(type, path, quote);
    }
  }

  private String standardType(DataType type, String path, String quote) {
    if (type instanceof BooleanType) {
      return "BOOLEAN";
    }
    if (type instanceof ByteType) {
      return this == DUCKDB ? "TINYINT" : "SMALLINT";
    }
    if (type instanceof ShortType) {
      return "SMALLINT";
    }
    if (type instanceof IntegerType) {
      return "INTEGER";
    }
    if (type instanceof LongType) {
      return "BIGINT";
    }
    if (type instanceof FloatType) {
      return "REAL";
    }
    if (type instanceof DoubleType) {
      return "DOUBLE PRECISION";
    }
    if (type instanceof DecimalType) {
      return "DECIMAL("
          + ((DecimalType) type).precision()
          + ", "
          + ((DecimalType) type).scale()
          + ")";
    }
    if (type instanceof StringType) {
      // MySQL's VARCHAR needs a length; its TEXT types do not.
      return this == MYSQL ? "LONGTEXT" : "VARCHAR";
    }
    if (type instanceof BinaryType) {
      return this == DUCKDB ? "BLOB" : this == MYSQL ? "LONGBLOB" : "VARBINARY";
    }
    if (type instanceof DateType) {
      return "DATE";
    }
    if (type instanceof TimestampType && this != MYSQL) {
      return "TIMESTAMP WITH TIME ZONE";
    }
    if (type instanceof TimestampNTZType) {
      return this == MYSQL ? "DATETIME(6)" : "TIMESTAMP";
    }
    if (this == DUCKDB) {
      String nested = duckDbNestedType(type, path, quote);
      if (nested != null) {
        return nested;
      }
    }
    throw cannotCreate(type, path);
  }

  private String duckDbNestedType(DataType type, String path, String quote) {
    if (type instanceof ArrayType) {
      return standardType(((ArrayType) type).elementType(), path + ".element", quote) + "[]";
    }
    if (type instanceof MapType) {
      MapType map = (MapType) type;
      return "MAP("
          + standardType(map.keyType(), path + ".key", quote)
          + ", "
          + standardType(map.valueType(), path + ".value", quote)
          + ")";
    }
    if (type instanceof StructType) {
      StringBuilder out = new StringBuilder("STRUCT(");
      StructField[] fields = ((StructType) type).fields();
      for (int i = 0; i < fields.length; i++) {
        if (i > 0) {
          out.append(", ");
        }
        out.append(TableRef.quote(fields[i].name(), quote))
            .append(' ')
            .append(standardType(fields[i].dataType(), path + "." + fields[i].name(), quote));
      }
      return out.append(')').toString();
    }
    String sql = type.sql();
    if (sql.startsWith("INTERVAL")) {
      return "INTERVAL";
    }
    if (sql.startsWith("TIME(")) {
      return "TIME";
    }
    return null;
  }

  /** The declared types arrow-go's SQLite example knows; anything else would crash it. */
  private String sqliteType(DataType type, String path) {
    if (type instanceof ByteType || type instanceof BooleanType) {
      return "tinyint";
    }
    if (type instanceof ShortType || type instanceof IntegerType || type instanceof LongType) {
      return "integer";
    }
    if (type instanceof FloatType) {
      return "float";
    }
    if (type instanceof DoubleType) {
      return "double";
    }
    if (type instanceof StringType) {
      return "text";
    }
    if (type instanceof BinaryType) {
      return "blob";
    }
    if (type instanceof DateType) {
      return "date";
    }
    throw cannotCreate(type, path);
  }

  private String derbyType(DataType type, String path) {
    if (type instanceof BooleanType) {
      return "BOOLEAN";
    }
    if (type instanceof ByteType || type instanceof ShortType) {
      return "SMALLINT";
    }
    if (type instanceof IntegerType) {
      return "INTEGER";
    }
    if (type instanceof LongType) {
      return "BIGINT";
    }
    if (type instanceof FloatType) {
      return "REAL";
    }
    if (type instanceof DoubleType) {
      return "DOUBLE";
    }
    if (type instanceof DecimalType && ((DecimalType) type).precision() <= 31) {
      return "DECIMAL("
          + ((DecimalType) type).precision()
          + ", "
          + ((DecimalType) type).scale()
          + ")";
    }
    if (type instanceof StringType) {
      return "VARCHAR(32672)";
    }
    if (type instanceof BinaryType) {
      return "VARCHAR(32672) FOR BIT DATA";
    }
    if (type instanceof DateType) {
      return "DATE";
    }
    if (type instanceof TimestampNTZType) {
      return "TIMESTAMP";
    }
    throw cannotCreate(type, path);
  }

  private UnsupportedSparkTypeException cannotCreate(DataType type, String path) {
    return new UnsupportedSparkTypeException(
        "Column '"
            + path
            + "' has Spark type "
            + type.simpleString()
            + ", for which spark-flightsql knows no column type in dialect '"
            + optionValue()
            + "'. Create the table yourself and write with mode 'append', cast the column, or"
            + " choose another 'dialect'. See docs/writing.md.");
  }
}
