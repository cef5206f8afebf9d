package io.flightsql.spark.write;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * How a DataFrame's columns meet an existing table's, by name, as Spark's JDBC source matches them:
 * under {@code spark.sql.caseSensitive} (case-insensitive by default), in any order. Every
 * DataFrame column must name a table column; every table column declared NOT NULL must be given.
 * The write then uses the table's own spelling of each name, in the table's order. Immutable.
 */
final class ColumnMatch implements Serializable {
  private static final long serialVersionUID = 1L;

  /** For each written column, in the table's order: its DataFrame name and its table name. */
  private final List<String> dataFrameNames;

  private final List<String> tableNames;

  private ColumnMatch(List<String> dataFrameNames, List<String> tableNames) {
    this.dataFrameNames = Collections.unmodifiableList(dataFrameNames);
    this.tableNames = Collections.unmodifiableList(tableNames);
  }

  /**
   * Matches {@code data}'s columns to {@code table}'s.
   *
   * @param tableName the table, for messages
   * @throws IllegalArgumentException naming the DataFrame columns the table lacks, or the NOT NULL
   *     table columns the DataFrame lacks, or a name that matches twice
   */
  static ColumnMatch of(StructType data, Schema table, String tableName, boolean caseSensitive) {
    Map<String, Field> byKey = new HashMap<>();
    for (Field field : table.getFields()) {
      Field earlier = byKey.put(key(field.getName(), caseSensitive), field);
      if (earlier != null) {
        throw new IllegalArgumentException(
            "Table "
                + tableName
                + " has columns '"
                + earlier.getName()
                + "' and '"
                + field.getName()
                + "', which are one name when case is ignored; set spark.sql.caseSensitive=true"
                + " to write to it.");
      }
    }
    Map<String, String> given = new HashMap<>();
    List<String> unknown = new ArrayList<>();
    for (StructField column : data.fields()) {
      String k = key(column.name(), caseSensitive);
      if (given.put(k, column.name()) != null) {
        throw new IllegalArgumentException(
            "The DataFrame has column '"
                + column.name()
                + "' twice"
                + (caseSensitive ? "" : " (case ignored, as spark.sql.caseSensitive is false)")
                + "; rename one before writing to "
                + tableName
                + ".");
      }
      if (!byKey.containsKey(k)) {
        unknown.add(column.name());
      }
    }
    List<String> allNames = new ArrayList<>();
    for (Field field : table.getFields()) {
      allNames.add(field.getName());
    }
    if (!unknown.isEmpty()) {
      throw new IllegalArgumentException(
          "Table "
              + tableName
              + " has no column named "
              + quotedList(unknown)
              + "; its columns are "
              + quotedList(allNames)
              + ". Columns are matched by name"
              + (caseSensitive
                  ? ", with case (spark.sql.caseSensitive is true)"
                  : ", ignoring case (spark.sql.caseSensitive)")
              + ": rename or drop the DataFrame's columns to match.");
    }
    List<String> missingNotNull = new ArrayList<>();
    List<String> fromData = new ArrayList<>();
    List<String> toTable = new ArrayList<>();
    for (Field field : table.getFields()) {
      String dataName = given.get(key(field.getName(), caseSensitive));
      if (dataName != null) {
        fromData.add(dataName);
        toTable.add(field.getName());
      } else if (!field.isNullable()) {
        missingNotNull.add(field.getName());
      }
    }
    if (!missingNotNull.isEmpty()) {
      throw new IllegalArgumentException(
          "Table "
              + tableName
              + " has NOT NULL column"
              + (missingNotNull.size() > 1 ? "s " : " ")
              + quotedList(missingNotNull)
              + ", which the DataFrame does not have; add "
              + (missingNotNull.size() > 1 ? "them" : "it")
              + " to the DataFrame.");
    }
    return new ColumnMatch(fromData, toTable);
  }

  private static String key(String name, boolean caseSensitive) {
    return caseSensitive ? name : name.toLowerCase(Locale.ROOT);
  }

  private static String quotedList(List<String> names) {
    StringBuilder out = new StringBuilder();
    for (String name : names) {
      out.append(out.length() > 0 ? ", " : "").append('\'').append(name).append('\'');
    }
    return out.toString();
  }

  /** Whether the DataFrame's columns already are the table's, in its order and spelling. */
  boolean identity(StructType data) {
    return java.util.Arrays.asList(data.fieldNames()).equals(tableNames);
  }

  /** {@code data}'s columns in the table's order, named as the table names them. */
  Dataset<Row> apply(Dataset<Row> data) {
    if (identity(data.schema())) {
      return data;
    }
    Column[] columns = new Column[tableNames.size()];
    for (int i = 0; i < columns.length; i++) {
      columns[i] = data.col(quotedForSpark(dataFrameNames.get(i))).as(tableNames.get(i));
    }
    return data.select(columns);
  }

  private static String quotedForSpark(String name) {
    return "`" + name.replace("`", "``") + "`";
  }

  /**
   * The schema of the rows {@link #apply} gives for {@code data}: the table's names, in the table's
   * order, with the DataFrame's types.
   */
  StructType written(StructType data) {
    StructField[] fields = new StructField[tableNames.size()];
    for (int i = 0; i < fields.length; i++) {
      StructField source = data.apply(data.fieldIndex(dataFrameNames.get(i)));
      fields[i] =
          new StructField(
              tableNames.get(i), source.dataType(), source.nullable(), source.metadata());
    }
    return new StructType(fields);
  }

  /**
   * For each written column, in the table's order, its position among {@code data}'s columns: how
   * rows of {@code data} that cannot go through {@link #apply} (a streaming query's) are reordered.
   */
  int[] positions(StructType data) {
    int[] positions = new int[dataFrameNames.size()];
    for (int i = 0; i < positions.length; i++) {
      positions[i] = data.fieldIndex(dataFrameNames.get(i));
    }
    return positions;
  }

  /** The table's names of the written columns, in the table's order. */
  List<String> tableNames() {
    return tableNames;
  }
}
