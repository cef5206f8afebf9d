package io.flightsql.spark.read;

import io.flightsql.spark.client.FlightSqlSession;
import io.flightsql.spark.config.FlightSqlReadConfig;
import io.flightsql.spark.dialect.Dialects;
import io.flightsql.spark.dialect.ResolvedDialect;
import io.flightsql.spark.types.ArrowToSpark;
import io.flightsql.spark.types.ComparableColumns;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * A schema the user gave a read ({@code spark.read.schema(...)}), matched by name against the
 * columns the server gives the source: each column must be there under its exact name and read as
 * the type given. Where the names are the source's in its order, the source is read as it is;
 * otherwise the read selects the columns by name, quoted in the server's dialect, so that a column
 * never shows another one's values. Checked on the driver when Spark first asks the table for its
 * schema, which a read does at load and a write, which also hands the data source its DataFrame's
 * schema, never does.
 */
final class UserSchema {
  /** What the check found: which columns the server compares as Spark does, and the order. */
  static final class Match {
    final Set<String> comparable;
    final boolean sourceOrder;

    Match(Set<String> comparable, boolean sourceOrder) {
      this.comparable = Collections.unmodifiableSet(comparable);
      this.sourceOrder = sourceOrder;
    }
  }

  private UserSchema() {}

  /**
   * Matches {@code schema} with the source's columns.
   *
   * @throws IllegalArgumentException naming a column the source lacks, or whose type cannot be read
   *     as the one given, or a schema that must be selected by name from a server whose quoting is
   *     not known
   */
  static Match check(FlightSqlReadConfig config, StructType schema) {
    try (FlightSqlSession session = FlightSqlSession.open(config.connection(), "schema")) {
      ResolvedDialect[] resolved = new ResolvedDialect[1];
      String sql =
          SourceQuery.sql(
              config,
              session.sessionHasDefaults(),
              () -> {
                resolved[0] = Dialects.resolve(config.dialect(), session.capabilities());
                return resolved[0].dialect();
              });
      Schema arrow = session.resultSchema(sql);
      Match match = match(config, schema, arrow);
      if (!match.sourceOrder) {
        ResolvedDialect dialect =
            resolved[0] != null
                ? resolved[0]
                : Dialects.resolve(config.dialect(), session.capabilities());
        if (!dialect.quotingKnown()) {
          throw new IllegalArgumentException(
              "The schema given to the read of "
                  + config.displayName()
                  + " ("
                  + schema.simpleString()
                  + ") is not the source's columns in their order ("
                  + names(arrow)
                  + "), so the read selects them by name, but "
                  + config.uri()
                  + " does not say how it quotes identifiers. Set option 'dialect' (one of "
                  + Dialects.names()
                  + "), or give the columns in the source's order.");
        }
      }
      return match;
    }
  }

  /** The columns of {@code schema} found by name among {@code arrow}'s, each readable as given. */
  static Match match(FlightSqlReadConfig config, StructType schema, Schema arrow) {
    Map<String, Field> byName = new HashMap<>();
    Set<String> repeated = new HashSet<>();
    for (Field field : arrow.getFields()) {
      if (byName.put(field.getName(), field) != null) {
        repeated.add(field.getName());
      }
    }
    Set<String> comparable = new HashSet<>();
    List<String> given = new ArrayList<>();
    for (StructField column : schema.fields()) {
      given.add(column.name());
      Field field = byName.get(column.name());
      if (field == null || repeated.contains(column.name())) {
        throw new IllegalArgumentException(
            "Column '"
                + column.name()
                + "' of the schema given to the read of "
                + config.displayName()
                + (field == null
                    ? " is not a column of its source"
                    : " names several of its columns")
                + ", whose columns are "
                + names(arrow)
                + ". Columns of a given schema are matched by name, exactly: name them as the"
                + " source does.");
      }
      DataType server;
      try {
        server = ArrowToSpark.toSparkType(field, config.typeOptions());
      } catch (RuntimeException e) {
        throw new IllegalArgumentException(
            "Column '"
                + column.name()
                + "' of the schema given to the read of "
                + config.displayName()
                + " is "
                + column.dataType().simpleString()
                + ", but the server's column is "
                + field.getType()
                + ", which Spark cannot read: "
                + e.getMessage(),
            e);
      }
      if (!server.equals(column.dataType())) {
        throw new IllegalArgumentException(
            "Column '"
                + column.name()
                + "' of the schema given to the read of "
                + config.displayName()
                + " is "
                + column.dataType().simpleString()
                + ", but the server's column is "
                + field.getType()
                + ", which the connector reads as "
                + server.simpleString()
                + " only. Give the column type "
                + server.simpleString()
                + ", or cast it in option 'query'.");
      }
      if (ComparableColumns.holdsSameValues(field, server)) {
        comparable.add(column.name());
      }
    }
    List<String> source = new ArrayList<>();
    for (Field field : arrow.getFields()) {
      source.add(field.getName());
    }
    return new Match(comparable, given.equals(source));
  }

  /** The failure of a read that must select its columns by name, where nothing can be pushed. */
  static IllegalArgumentException unselectable(FlightSqlReadConfig config) {
    return new IllegalArgumentException(
        "The schema given to the read of "
            + config.displayName()
            + " is not its source's columns in their order, so the read selects them by name,"
            + " which the server's dialect cannot write here (see the log). Give the columns in"
            + " the source's order, or set option 'dialect'.");
  }

  private static String names(Schema arrow) {
    List<String> names = new ArrayList<>();
    for (Field field : arrow.getFields()) {
      names.add("'" + field.getName() + "' " + field.getType());
    }
    return String.join(", ", names);
  }
}
