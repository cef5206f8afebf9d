package io.flightsql.spark.dialect;

import io.flightsql.spark.client.metadata.TableRef;
import java.util.Optional;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.BinaryType;
import org.apache.spark.sql.types.ByteType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DoubleType;
import org.apache.spark.sql.types.LongType;
import org.apache.spark.sql.types.MapType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/** DuckDB: plain backslashes, {@code IS NOT DISTINCT FROM}, {@code TIMESTAMPTZ}, nested types. */
final class DuckDbDialect extends Dialect {
  private static final long serialVersionUID = 1L;

  static final String NAME = "duckdb";

  DuckDbDialect(String serverQuote) {
    super(serverQuote, "\"");
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  protected boolean backslashIsPlain() {
    return true;
  }

  @Override
  protected Optional<String> binaryLiteral(String hex) {
    // DuckDB has no X'..' literal; from_hex gives a BLOB.
    return Optional.of("from_hex('" + hex + "')");
  }

  @Override
  protected Optional<String> zonedTimestampLiteral(String utcTimestamp, int year) {
    return Optional.of("TIMESTAMPTZ '" + utcTimestamp + "+00:00'");
  }

  @Override
  public String nullSafeEqual(String left, String right) {
    return "(" + left + " IS NOT DISTINCT FROM " + right + ")";
  }

  @Override
  public String columnType(DataType type, String path) {
    if (type instanceof ArrayType) {
      return columnType(((ArrayType) type).elementType(), path + ".element") + "[]";
    }
    if (type instanceof MapType) {
      MapType map = (MapType) type;
      return "MAP("
          + columnType(map.keyType(), path + ".key")
          + ", "
          + columnType(map.valueType(), path + ".value")
          + ")";
    }
    if (type instanceof StructType) {
      StringBuilder out = new StringBuilder("STRUCT(");
      StructField[] fields = ((StructType) type).fields();
      for (int i = 0; i < fields.length; i++) {
        out.append(i > 0 ? ", " : "")
            .append(quoted(fields[i].name()))
            .append(' ')
            .append(columnType(fields[i].dataType(), path + "." + fields[i].name()));
      }
      return out.append(')').toString();
    }
    return super.columnType(type, path);
  }

  @Override
  protected String typeName(DataType type) {
    if (type instanceof ByteType) {
      return "TINYINT";
    }
    if (type instanceof BinaryType) {
      return "BLOB";
    }
    // Spark's interval and TIME types have no classes common to every Spark version: by name.
    String sql = type.sql();
    if (sql.startsWith("INTERVAL")) {
      return "INTERVAL";
    }
    if (sql.startsWith("TIME(")) {
      return "TIME";
    }
    return super.typeName(type);
  }

  /** Bernoulli sampling of each row; DuckDB's plain {@code TABLESAMPLE n%} samples vectors. */
  @Override
  public Optional<String> tableSample(double fraction, long seed) {
    return Optional.of(
        "TABLESAMPLE bernoulli("
            + percent(fraction)
            + " PERCENT) REPEATABLE ("
            + sampleSeed(seed)
            + ")");
  }

  @Override
  public Optional<String> renameTable(TableRef table, String newName) {
    return Optional.of("ALTER TABLE " + table(table) + " RENAME TO " + quoted(newName));
  }

  @Override
  public Optional<String> currentSchemaQuery() {
    return Optional.of("SELECT current_database(), current_schema()");
  }

  /**
   * DuckDB sums BIGINTs as HUGEINTs, and the cast back to BIGINT around the pushed SUM fails where
   * the sum leaves BIGINT's range; its sum of doubles past the range is an infinity.
   */
  @Override
  public boolean sumOverflowsAsSpark(DataType type) {
    return type instanceof LongType || type instanceof DoubleType;
  }

  /** DuckDB's default collation is binary: strings compare by their bytes. */
  @Override
  public boolean comparesStringsAsSpark() {
    return true;
  }
}
