package io.flightsql.spark.it.fuzz;

import java.math.BigDecimal;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * How the fuzzer makes its tables on one kind of server: the column types it declares for each
 * {@link Family} the server stores faithfully, SQL literals of the values, the statements that
 * (re)create a table, and whether the server has schemas that can shadow an unqualified name.
 * Families and values a server cannot store (SQLite crashes on types outside its short list, Derby
 * has no NaN) are left out here, so that every difference the fuzzer reports is the connector's.
 */
enum FuzzDialect {
  DUCKDB("duckdb", true) {
    @Override
    Map<Family, String> types() {
      return allTypes("INTEGER", "VARCHAR", "REAL", "TIMESTAMP", "TIMESTAMPTZ");
    }
  },
  DERBY("derby", true) {
    @Override
    Map<Family, String> types() {
      Map<Family, String> types = allTypes("INT", "VARCHAR(40)", "REAL", "TIMESTAMP", null);
      types.remove(Family.DECIMAL_38_10);
      types.put(Family.DECIMAL_18_4, "DECIMAL(18,4)");
      return types;
    }

    @Override
    boolean stores(Object value) {
      // Derby has no NaN or infinities and keeps no negative zero; its REAL stops above 1e-37.
      // The example sends timestamps in milliseconds.
      return !Family.nonFinite(value)
          && !Family.negativeZero(value)
          && !(value instanceof Float f && f != 0 && Math.abs(f) < 1.2e-37f)
          && !(value instanceof LocalDateTime t && t.getNano() % 1_000_000 != 0);
    }

    @Override
    String literal(Family family, Object value) {
      if (value == null) {
        return "CAST(NULL AS " + types().get(family) + ")";
      }
      if (family == Family.DATE) {
        return "DATE('" + value + "')";
      }
      if (family == Family.TIMESTAMP) {
        return "TIMESTAMP('" + Family.SQL_TIMESTAMP.format((LocalDateTime) value) + "')";
      }
      if (family == Family.DOUBLE || family == Family.REAL) {
        // A literal with an exponent is a DOUBLE in Derby, one without a DECIMAL.
        String text = value.toString();
        return text.contains("E") ? text : text + "E0";
      }
      return super.literal(family, value);
    }

    @Override
    void dropIfExists(Consumer<String> update, String table) {
      try {
        update.accept("DROP TABLE " + table);
      } catch (RuntimeException e) {
        // Derby has no IF EXISTS: the table was not there.
      }
    }

    @Override
    void createShadowSchema(Consumer<String> update) {
      try {
        update.accept("CREATE SCHEMA " + SHADOW_SCHEMA);
      } catch (RuntimeException e) {
        // It exists from an earlier case.
      }
    }
  },
  SQLITE("sqlite", false) {
    @Override
    Map<Family, String> types() {
      Map<Family, String> types = new EnumMap<>(Family.class);
      types.put(Family.BIGINT, "INTEGER");
      types.put(Family.DOUBLE, "DOUBLE");
      types.put(Family.REAL, "FLOAT");
      types.put(Family.STRING, "TEXT");
      return types;
    }

    @Override
    boolean stores(Object value) {
      // SQLite stores NaN as NULL; its FLOAT is a double, which the example sends as float32.
      return !Family.nonFinite(value) && !Family.negativeZero(value) && !(value instanceof Float);
    }

    @Override
    List<Object> values(Family family) {
      if (family == Family.REAL) {
        // Values a float32 holds exactly, which SQLite's double keeps as written.
        return List.of(0.0f, 1.5f, -2.25f, 0.5f, 1024.0f, (float) -Math.pow(2, 100));
      }
      return super.values(family);
    }

    @Override
    String literal(Family family, Object value) {
      if (value instanceof Float f) {
        return Double.toString(f);
      }
      return value == null ? "NULL" : super.literal(family, value);
    }
  },
  SAIL("sail", false) {
    @Override
    Map<Family, String> types() {
      Map<Family, String> types = allTypes("INT", "STRING", "FLOAT", "TIMESTAMP_NTZ", "TIMESTAMP");
      return types;
    }

    @Override
    String literal(Family family, Object value) {
      return family.sparkLiteral(value);
    }

    /** One statement: Sail's Parquet tables are written whole, by a query. */
    @Override
    void create(Consumer<String> update, FuzzTable table, String schema) {
      update.accept("DROP TABLE IF EXISTS " + table.name());
      List<String> casts = new ArrayList<>();
      for (FuzzTable.Column column : table.columns()) {
        casts.add(
            "CAST(" + column.name() + " AS " + type(column.family()) + ") AS " + column.name());
      }
      String select = "SELECT " + String.join(", ", casts);
      if (table.rows().isEmpty()) {
        List<String> nulls = new ArrayList<>();
        for (FuzzTable.Column column : table.columns()) {
          nulls.add("NULL AS " + column.name());
        }
        select += " FROM (SELECT " + String.join(", ", nulls) + ") v WHERE false";
      } else {
        select +=
            " FROM VALUES " + String.join(", ", valueRows(table)) + " AS v(" + names(table) + ")";
      }
      update.accept("CREATE TABLE " + table.name() + " USING parquet AS " + select);
    }
  },
  /**
   * Deephaven takes no DDL through Flight SQL: the fuzzer reads the table its start-up script made
   * ({@link DeephavenFuzzTable}) and generates only reads.
   */
  DEEPHAVEN("deephaven", false) {
    @Override
    Map<Family, String> types() {
      return DeephavenFuzzTable.TYPES;
    }

    /** Deephaven keeps the smallest value of each width as its NULL. */
    @Override
    boolean stores(Object value) {
      return !(value instanceof Short s && s == Short.MIN_VALUE)
          && !(value instanceof Integer i && i == Integer.MIN_VALUE)
          && !(value instanceof Long l && l == Long.MIN_VALUE);
    }

    @Override
    void create(Consumer<String> update, FuzzTable table, String schema) {
      throw new UnsupportedOperationException("Deephaven's tables come from its start-up script");
    }
  };

  /** The other schema that holds a table of the same name as the one a case reads. */
  static final String SHADOW_SCHEMA = "fz_shadow";

  private final String id;
  private final boolean schemas;

  FuzzDialect(String id, boolean schemas) {
    this.id = id;
    this.schemas = schemas;
  }

  /** The name {@code --server} takes. */
  String id() {
    return id;
  }

  /** Whether a table of another schema can shadow an unqualified name. */
  boolean schemas() {
    return schemas;
  }

  /** The families the server stores, with the type declared for each. */
  abstract Map<Family, String> types();

  String type(Family family) {
    return types().get(family);
  }

  /** Whether the server stores and returns this value as written. */
  boolean stores(Object value) {
    return true;
  }

  /** The values of a family the server stores. */
  List<Object> values(Family family) {
    return family.samples().stream().filter(this::stores).toList();
  }

  /** The families common to most servers, with the names of the types that differ. */
  private static Map<Family, String> allTypes(
      String integer, String string, String real, String timestamp, String timestampTz) {
    Map<Family, String> types = new EnumMap<>(Family.class);
    types.put(Family.SMALLINT, "SMALLINT");
    types.put(Family.INT, integer);
    types.put(Family.BIGINT, "BIGINT");
    types.put(Family.DECIMAL_18_4, "DECIMAL(18,4)");
    types.put(Family.DECIMAL_38_10, "DECIMAL(38,10)");
    types.put(Family.DOUBLE, "DOUBLE");
    types.put(Family.REAL, real);
    types.put(Family.STRING, string);
    types.put(Family.BOOLEAN, "BOOLEAN");
    types.put(Family.DATE, "DATE");
    types.put(Family.TIMESTAMP, timestamp);
    if (timestampTz != null) {
      types.put(Family.TIMESTAMP_TZ, timestampTz);
    }
    return types;
  }

  /** A SQL literal of the value, for an INSERT: by default ANSI SQL as DuckDB reads it. */
  String literal(Family family, Object value) {
    if (value == null) {
      return "NULL";
    }
    if (value instanceof Long l && l == Long.MIN_VALUE) {
      return "(" + (Long.MIN_VALUE + 1) + " - 1)";
    }
    switch (family) {
      case DECIMAL_18_4:
      case DECIMAL_38_10:
        return ((BigDecimal) value).toPlainString();
      case DOUBLE:
      case REAL:
        return "CAST('" + value + "' AS " + type(family) + ")";
      case STRING:
        return "'" + ((String) value).replace("'", "''") + "'";
      case BOOLEAN:
        return ((Boolean) value) ? "TRUE" : "FALSE";
      case DATE:
        return "DATE '" + (LocalDate) value + "'";
      case TIMESTAMP:
        return "TIMESTAMP '" + Family.SQL_TIMESTAMP.format((LocalDateTime) value) + "'";
      case TIMESTAMP_TZ:
        return "TIMESTAMPTZ '" + Family.SQL_TIMESTAMP_TZ.format((OffsetDateTime) value) + "'";
      default:
        return value.toString();
    }
  }

  void dropIfExists(Consumer<String> update, String table) {
    update.accept("DROP TABLE IF EXISTS " + table);
  }

  void createShadowSchema(Consumer<String> update) {
    update.accept("CREATE SCHEMA IF NOT EXISTS " + SHADOW_SCHEMA);
  }

  /**
   * Drops and creates the table in {@code schema} (null: the default one) with its rows, by a
   * {@code CREATE TABLE} and one multi-row {@code INSERT}.
   */
  void create(Consumer<String> update, FuzzTable table, String schema) {
    String name = schema == null ? table.name() : schema + "." + table.name();
    dropIfExists(update, name);
    List<String> columns = new ArrayList<>();
    for (FuzzTable.Column column : table.columns()) {
      columns.add(column.name() + " " + type(column.family()));
    }
    update.accept("CREATE TABLE " + name + " (" + String.join(", ", columns) + ")");
    if (!table.rows().isEmpty()) {
      update.accept("INSERT INTO " + name + " VALUES " + String.join(", ", valueRows(table)));
    }
  }

  /** The rows as {@code (v1, v2, ...)} tuples of this dialect's literals. */
  List<String> valueRows(FuzzTable table) {
    List<String> rows = new ArrayList<>();
    for (List<Object> row : table.rows()) {
      List<String> literals = new ArrayList<>();
      for (int i = 0; i < row.size(); i++) {
        literals.add(literal(table.columns().get(i).family(), row.get(i)));
      }
      rows.add("(" + String.join(", ", literals) + ")");
    }
    return rows;
  }

  static String names(FuzzTable table) {
    return String.join(", ", table.columns().stream().map(FuzzTable.Column::name).toList());
  }

  static FuzzDialect of(String id) {
    for (FuzzDialect dialect : values()) {
      if (dialect.id.equalsIgnoreCase(id)) {
        return dialect;
      }
    }
    throw new IllegalArgumentException(
        "Invalid value '"
            + id
            + "' for option '--server': expected one of duckdb, derby, sqlite,"
            + " sail, deephaven");
  }
}
