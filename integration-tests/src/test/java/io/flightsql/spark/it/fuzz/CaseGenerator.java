package io.flightsql.spark.it.fuzz;

import io.flightsql.spark.it.fuzz.FuzzRead.Aggregate;
import io.flightsql.spark.it.fuzz.FuzzRead.Order;
import io.flightsql.spark.it.fuzz.FuzzRead.Shape;
import io.flightsql.spark.it.fuzz.FuzzRead.Source;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;

/**
 * Draws tables and reads from one seed. Each column draws its rows from a few values of its family
 * (edges first, NULL often), so that ties, groups, duplicate join keys, sums that overflow a narrow
 * type and means that are not whole numbers come up within a few cases. Known bugs that are
 * excluded shape what is drawn, as {@link KnownBug} says.
 */
final class CaseGenerator {
  private static final String[] COMPARISONS = {"=", "<>", "<", "<=", ">", ">="};

  private final Random random;
  private final FuzzDialect dialect;
  private final Set<KnownBug> excluded;
  private final List<Family> families;
  private int tables;

  CaseGenerator(long seed, FuzzDialect dialect, Set<KnownBug> excluded) {
    this.random = new Random(seed);
    this.dialect = dialect;
    this.excluded = excluded;
    this.families = new ArrayList<>(dialect.types().keySet());
  }

  /**
   * A new table. Names come from a pool of three, so that later cases drop and make again a table
   * an earlier case read, with other columns, unless {@link KnownBug#STALE_TABLE_SCHEMA} is
   * excluded.
   */
  FuzzTable table() {
    tables++;
    // Every draw is made whatever is excluded, so that an exclusion changes only what it must.
    int reused = random.nextInt(3);
    String name =
        excluded.contains(KnownBug.STALE_TABLE_SCHEMA)
            ? "fz_t" + tables
            : "fz_" + (char) ('a' + reused);
    int columnCount = 2 + random.nextInt(4);
    List<FuzzTable.Column> columns = new ArrayList<>();
    List<List<Object>> pools = new ArrayList<>();
    for (int i = 0; i < columnCount; i++) {
      Family family = families.get(random.nextInt(families.size()));
      columns.add(
          new FuzzTable.Column("c" + i + "_" + family.name().toLowerCase(Locale.ROOT), family));
      pools.add(pool(dialect.values(family)));
    }
    int rowCount = random.nextInt(10) == 0 ? 0 : 1 + random.nextInt(9);
    List<List<Object>> rows = new ArrayList<>();
    for (int r = 0; r < rowCount; r++) {
      List<Object> row = new ArrayList<>();
      for (List<Object> pool : pools) {
        row.add(pool.get(random.nextInt(pool.size())));
      }
      rows.add(row);
    }
    boolean shadowed =
        random.nextInt(4) == 0
            && dialect.schemas()
            && !excluded.contains(KnownBug.SHADOWED_TABLE_NAME);
    return new FuzzTable(name, columns, rows, shadowed);
  }

  /** Two to four values, edges more often, and NULL in most pools. */
  private List<Object> pool(List<Object> values) {
    List<Object> pool = new ArrayList<>();
    int size = 2 + random.nextInt(3);
    for (int i = 0; i < size; i++) {
      int index =
          random.nextBoolean()
              ? random.nextInt(Math.min(2, values.size()))
              : random.nextInt(values.size());
      pool.add(values.get(index));
    }
    if (random.nextInt(3) > 0) {
      pool.add(null);
    }
    return pool;
  }

  /** A read of the table. */
  FuzzRead read(FuzzTable table) {
    Source source =
        pick(Source.TABLE, Source.TABLE, Source.TABLE, Source.QUERY, Source.USER_SCHEMA);
    List<Integer> schemaOrder = new ArrayList<>();
    for (int i = 0; i < table.columns().size(); i++) {
      schemaOrder.add(i);
    }
    List<Integer> shuffled = new ArrayList<>(schemaOrder);
    Collections.shuffle(shuffled, random);
    if (shuffled.size() > 1 && shuffled.get(0) == 0 && shuffled.get(1) == 1) {
      // Another order than the table's, always.
      Collections.swap(shuffled, 0, 1);
    }
    if (source == Source.USER_SCHEMA && !excluded.contains(KnownBug.USER_SCHEMA_BY_POSITION)) {
      schemaOrder = shuffled;
    }
    int shape = random.nextInt(20);
    if (shape < 8) {
      return rows(table, source, schemaOrder);
    }
    if (shape < 15) {
      return aggregate(table, source, schemaOrder);
    }
    if (shape < 19) {
      return join(table, source, schemaOrder);
    }
    return new FuzzRead(
        Shape.SAMPLE,
        source,
        schemaOrder,
        someColumns(table),
        maybeWhere(table),
        null,
        null,
        List.of(),
        List.of(),
        null,
        null,
        null,
        null,
        1 + random.nextInt(99));
  }

  private FuzzRead rows(FuzzTable table, Source source, List<Integer> schemaOrder) {
    List<String> select = someColumns(table);
    List<Order> order = new ArrayList<>();
    if (random.nextBoolean()) {
      // The first keys at random, then every other column returned, so that ties are broken.
      List<String> keys = new ArrayList<>(select);
      Collections.shuffle(keys, random);
      for (String key : keys) {
        order.add(new Order(key, random.nextBoolean(), random.nextBoolean()));
      }
    }
    Integer limit = random.nextInt(3) == 0 ? null : random.nextInt(6);
    Integer offset = random.nextInt(3) == 0 ? 1 + random.nextInt(4) : null;
    if (order.isEmpty() && limit == null && offset == null) {
      limit = random.nextInt(3) == 0 ? 2 : null;
    }
    return new FuzzRead(
        Shape.ROWS,
        source,
        schemaOrder,
        select,
        maybeWhere(table),
        null,
        null,
        List.of(),
        order,
        limit,
        offset,
        null,
        null,
        0);
  }

  private FuzzRead aggregate(FuzzTable table, Source source, List<Integer> schemaOrder) {
    List<Aggregate> aggregates = new ArrayList<>();
    int count = 1 + random.nextInt(3);
    for (int i = 0; i < count; i++) {
      // The function first, then a column it takes: sums and means of numbers are the most
      // often wrong, so they come up most.
      String function = pick("COUNT", "SUM", "AVG", "SUM", "AVG", "MIN", "MAX");
      List<FuzzTable.Column> columns = new ArrayList<>();
      for (FuzzTable.Column column : table.columns()) {
        if (takes(function, column.family())) {
          columns.add(column);
        }
      }
      if (columns.isEmpty()) {
        function = "COUNT";
        columns.addAll(table.columns());
      }
      FuzzTable.Column column = columns.get(random.nextInt(columns.size()));
      boolean star = function.equals("COUNT") && random.nextBoolean();
      aggregates.add(new Aggregate(function, star ? null : column.name()));
    }
    String groupBy =
        random.nextBoolean()
            ? table.columns().get(random.nextInt(table.columns().size())).name()
            : null;
    return new FuzzRead(
        Shape.AGGREGATE,
        source,
        schemaOrder,
        List.of(),
        maybeWhere(table),
        null,
        groupBy,
        aggregates,
        List.of(),
        null,
        null,
        null,
        null,
        0);
  }

  /** Whether the aggregate function takes a column of the family on this server. */
  private boolean takes(String function, Family family) {
    switch (function) {
      case "SUM":
      case "AVG":
        return family.numeric()
            && !(dialect == FuzzDialect.DERBY
                && family.integral()
                && excluded.contains(KnownBug.DERBY_INTEGER_AGGREGATES));
      case "MIN":
      case "MAX":
        return family != Family.BOOLEAN
            && !(dialect == FuzzDialect.SAIL
                && family.floating()
                && excluded.contains(KnownBug.SAIL_GROUPED_MIN_MAX_OF_INFINITY));
      default:
        return true;
    }
  }

  private FuzzRead join(FuzzTable table, Source source, List<Integer> schemaOrder) {
    List<FuzzTable.Column> keys = new ArrayList<>();
    for (FuzzTable.Column column : table.columns()) {
      if (!column.family().floating()) {
        keys.add(column);
      }
    }
    if (keys.isEmpty()) {
      keys.addAll(table.columns());
    }
    String key = keys.get(random.nextInt(keys.size())).name();
    List<String> select = new ArrayList<>();
    for (String column : someColumns(table)) {
      select.add((random.nextBoolean() ? "l." : "r.") + column);
    }
    return new FuzzRead(
        Shape.JOIN,
        source,
        schemaOrder,
        select,
        maybeWhere(table),
        maybeWhere(table),
        null,
        List.of(),
        List.of(),
        null,
        null,
        key,
        random.nextInt(3) == 0 ? "LEFT JOIN" : "JOIN",
        0);
  }

  private List<String> someColumns(FuzzTable table) {
    List<String> names = new ArrayList<>();
    for (FuzzTable.Column column : table.columns()) {
      if (random.nextInt(3) > 0) {
        names.add(column.name());
      }
    }
    if (names.isEmpty()) {
      names.add(table.columns().get(random.nextInt(table.columns().size())).name());
    }
    return names;
  }

  private Predicate maybeWhere(FuzzTable table) {
    return random.nextInt(3) == 0 ? null : predicate(table, 2);
  }

  private Predicate predicate(FuzzTable table, int depth) {
    int kind = random.nextInt(depth > 0 ? 10 : 7);
    if (kind >= 7) {
      Predicate left = predicate(table, depth - 1);
      if (kind == 9) {
        return new Predicate.Not(left);
      }
      return new Predicate.Junction(kind == 7 ? "AND" : "OR", left, predicate(table, depth - 1));
    }
    FuzzTable.Column column = table.columns().get(random.nextInt(table.columns().size()));
    Family family = column.family();
    List<Object> values = dialect.values(family);
    Object value = columnValue(table, column, values);
    if (kind == 0) {
      return new Predicate.IsNull(column.name(), random.nextBoolean());
    }
    if (kind == 1) {
      List<Object> in = new ArrayList<>();
      for (int i = 0, n = 1 + random.nextInt(3); i < n; i++) {
        in.add(columnValue(table, column, values));
      }
      in.removeIf(v -> v == null);
      if (!in.isEmpty()) {
        return new Predicate.In(column.name(), family, in);
      }
    }
    if (family == Family.STRING && kind >= 4 && value != null) {
      return text(column.name(), (String) value);
    }
    if (value == null) {
      return new Predicate.IsNull(column.name(), random.nextBoolean());
    }
    String op = family == Family.BOOLEAN ? "=" : COMPARISONS[random.nextInt(COMPARISONS.length)];
    return new Predicate.Compare(column.name(), op, family, value);
  }

  /** A value from the column's rows most of the time, else from its family. */
  private Object columnValue(FuzzTable table, FuzzTable.Column column, List<Object> values) {
    int index = table.columns().indexOf(column);
    if (!table.rows().isEmpty() && random.nextInt(4) > 0) {
      return table.rows().get(random.nextInt(table.rows().size())).get(index);
    }
    return values.get(random.nextInt(values.size()));
  }

  /** LIKE, startswith, contains or endswith over a part of a value, with its % and _ as text. */
  private Predicate text(String column, String value) {
    int from = value.isEmpty() ? 0 : random.nextInt(value.length());
    int to = from + (value.isEmpty() ? 0 : random.nextInt(value.length() - from + 1));
    String part = value.substring(from, to);
    switch (random.nextInt(5)) {
      case 0:
        return new Predicate.Text(column, "startswith", value.substring(0, to));
      case 1:
        return new Predicate.Text(column, "contains", part);
      case 2:
        return new Predicate.Text(column, "endswith", value.substring(from));
      case 3:
        return new Predicate.Text(column, "LIKE", value.substring(0, to) + "%");
      default:
        return new Predicate.Text(column, "LIKE", "%" + part.replace('a', '_') + "%");
    }
  }

  @SafeVarargs
  private <T> T pick(T... choices) {
    return choices[random.nextInt(choices.length)];
  }

  /** The families drawn from, for the summary. */
  Map<Family, String> types() {
    return dialect.types();
  }
}
