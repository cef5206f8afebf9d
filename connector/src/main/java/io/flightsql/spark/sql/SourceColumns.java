package io.flightsql.spark.sql;

import io.flightsql.spark.dialect.Dialect;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.StringType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * The columns of the relation a read selects from, as pushed expressions name them: Spark's name
 * (matched exactly, else case-insensitively when only one column matches), the column's SQL in the
 * dialect, its Spark type, and whether the server compares its values as Spark does (a column the
 * connector converts, such as a union read as text or an unsigned integer widened, is not; nor is a
 * string column where the server's string comparison is not established as Spark's).
 */
public final class SourceColumns {
  /** One column. */
  public static final class Column {
    private final String name;
    private final String sql;
    private final DataType type;
    private final boolean sameValues;
    private final boolean comparable;

    Column(String name, String sql, DataType type, boolean sameValues, boolean stringsAsSpark) {
      this.name = name;
      this.sql = sql;
      this.type = type;
      this.sameValues = sameValues;
      this.comparable = sameValues && (stringsAsSpark || !(type instanceof StringType));
    }

    public String name() {
      return name;
    }

    /** The quoted identifier; null when the dialect cannot write this name. */
    public String sql() {
      return sql;
    }

    public DataType type() {
      return type;
    }

    /** Whether filters, ordering and aggregates over this column may run on the server. */
    public boolean comparable() {
      return comparable && sql != null;
    }

    /**
     * Whether the server holds this column's values as Spark reads them, whatever its collation:
     * enough for IS NULL, COUNT, and a condition that may keep more rows than Spark's, never fewer
     * (a runtime filter's IN list, which a collation that ignores case or pads spaces makes match
     * more strings).
     */
    public boolean sameValues() {
      return sameValues && sql != null;
    }
  }

  private final Map<String, Column> exact = new HashMap<>();
  private final Map<String, Column> folded = new HashMap<>();
  private final boolean distinctNames;
  private final boolean stringsAsSpark;

  /**
   * Columns of a server that compares strings as Spark does.
   *
   * @param comparable the names of the columns whose values the server compares as Spark does
   */
  public SourceColumns(StructType schema, Set<String> comparable, Dialect dialect) {
    this(schema, comparable, dialect, true);
  }

  /**
   * @param comparable the names of the columns whose values the server holds as Spark reads them
   * @param stringsAsSpark whether the server is known to compare strings as Spark does (by code
   *     point, case-sensitive, trailing spaces counting); where not, no string column is compared,
   *     ordered or grouped on the server
   */
  public SourceColumns(
      StructType schema, Set<String> comparable, Dialect dialect, boolean stringsAsSpark) {
    this.stringsAsSpark = stringsAsSpark;
    boolean distinct = true;
    Map<String, Integer> foldedCount = new HashMap<>();
    for (StructField field : schema.fields()) {
      Column column =
          new Column(
              field.name(),
              dialect.identifier(field.name()).orElse(null),
              field.dataType(),
              comparable.contains(field.name()),
              stringsAsSpark);
      if (exact.put(field.name(), column) != null) {
        distinct = false;
      }
      String key = field.name().toLowerCase(Locale.ROOT);
      folded.put(key, column);
      foldedCount.merge(key, 1, Integer::sum);
    }
    foldedCount.forEach(
        (key, count) -> {
          if (count > 1) {
            folded.remove(key);
          }
        });
    this.distinctNames = distinct;
  }

  /** Whether the server is known to compare strings as Spark does. */
  public boolean stringsAsSpark() {
    return stringsAsSpark;
  }

  /**
   * Whether each column can be named on its own in SQL over the relation: names are distinct, and
   * each one can be quoted. A relation that fails this is read exactly as the user's query says.
   */
  public boolean addressable() {
    return distinctNames && exact.values().stream().allMatch(c -> c.sql != null);
  }

  /** The top-level column a reference names; empty for a nested field or an unknown name. */
  public Optional<Column> resolve(String[] fieldNames) {
    if (fieldNames.length != 1) {
      return Optional.empty();
    }
    Column column = exact.get(fieldNames[0]);
    if (column == null) {
      column = folded.get(fieldNames[0].toLowerCase(Locale.ROOT));
    }
    return Optional.ofNullable(column);
  }
}
