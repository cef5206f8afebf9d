package io.flightsql.spark.it.fuzz;

import java.util.ArrayList;
import java.util.List;

/**
 * A table a case creates: its name, columns (each of one {@link Family}), rows (Java values, null
 * for NULL), and whether a table of the same name with other rows sits in another schema.
 */
record FuzzTable(String name, List<Column> columns, List<List<Object>> rows, boolean shadowed) {
  record Column(String name, Family family) {}

  FuzzTable {
    columns = List.copyOf(columns);
    rows =
        rows.stream()
            .map(row -> java.util.Collections.unmodifiableList(new ArrayList<>(row)))
            .toList();
  }

  Column column(String name) {
    for (Column column : columns) {
      if (column.name().equalsIgnoreCase(name)) {
        return column;
      }
    }
    throw new IllegalArgumentException("No column " + name + " in " + this.name);
  }

  FuzzTable withRows(List<List<Object>> rows) {
    return new FuzzTable(name, columns, rows, shadowed);
  }

  FuzzTable withoutShadow() {
    return new FuzzTable(name, columns, rows, false);
  }

  /** This table without one column. */
  FuzzTable without(String columnName) {
    int index = columns.indexOf(column(columnName));
    List<Column> kept = new ArrayList<>(columns);
    kept.remove(index);
    List<List<Object>> keptRows = new ArrayList<>();
    for (List<Object> row : rows) {
      List<Object> copy = new ArrayList<>(row);
      copy.remove(index);
      keptRows.add(copy);
    }
    return new FuzzTable(name, kept, keptRows, shadowed);
  }

  /** The rows as canonical texts, one list per row, as {@link Family#canonical} writes them. */
  List<List<String>> canonicalRows() {
    List<List<String>> texts = new ArrayList<>();
    for (List<Object> row : rows) {
      List<String> text = new ArrayList<>();
      for (int i = 0; i < row.size(); i++) {
        text.add(columns.get(i).family().canonical(row.get(i)));
      }
      texts.add(text);
    }
    return texts;
  }

  /** The table as the statements that make it on a server of the dialect, and its rows. */
  String describe(FuzzDialect dialect) {
    StringBuilder text = new StringBuilder();
    List<String> declared = new ArrayList<>();
    for (Column column : columns) {
      declared.add(column.name() + " " + dialect.type(column.family()));
    }
    text.append("CREATE TABLE ")
        .append(name)
        .append(" (")
        .append(String.join(", ", declared))
        .append(");\n");
    if (!rows.isEmpty()) {
      text.append("INSERT INTO ")
          .append(name)
          .append(" VALUES\n  ")
          .append(String.join(",\n  ", dialect.valueRows(this)))
          .append(";\n");
    }
    if (shadowed) {
      text.append("-- and ")
          .append(FuzzDialect.SHADOW_SCHEMA)
          .append('.')
          .append(name)
          .append(" (c_shadow VARCHAR) holding one row, 'shadow'\n");
    }
    return text.toString();
  }
}
