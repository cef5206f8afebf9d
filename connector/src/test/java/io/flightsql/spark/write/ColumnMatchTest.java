package io.flightsql.spark.write;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Test;

class ColumnMatchTest {
  private static final ArrowType INT = new ArrowType.Int(32, true);

  /** A table as Derby creates {@code (id INT NOT NULL, name VARCHAR(20), note VARCHAR(20))}. */
  private static final Schema TABLE =
      new Schema(
          List.of(
              new Field("ID", FieldType.notNullable(INT), null),
              new Field("NAME", FieldType.nullable(ArrowType.Utf8.INSTANCE), null),
              new Field("NOTE", FieldType.nullable(ArrowType.Utf8.INSTANCE), null)));

  private static StructType frame(String... names) {
    StructType schema = new StructType();
    for (String name : names) {
      schema = schema.add(name, DataTypes.StringType);
    }
    return schema;
  }

  @Test
  void matchesByNameIgnoringCaseInTheTablesOrderAndSpelling() {
    ColumnMatch match = ColumnMatch.of(frame("name", "id"), TABLE, "\"t\"", false);
    assertThat(match.tableNames()).containsExactly("ID", "NAME");
    assertThat(match.identity(frame("ID", "NAME"))).isTrue();
    assertThat(match.identity(frame("name", "id"))).isFalse();
  }

  @Test
  void withCaseSensitivityTheSpellingMustBeTheTables() {
    assertThatThrownBy(() -> ColumnMatch.of(frame("id"), TABLE, "\"t\"", true))
        .hasMessage(
            "Table \"t\" has no column named 'id'; its columns are 'ID', 'NAME', 'NOTE'. Columns"
                + " are matched by name, with case (spark.sql.caseSensitive is true): rename or"
                + " drop the DataFrame's columns to match.");
    assertThat(ColumnMatch.of(frame("ID"), TABLE, "\"t\"", true).tableNames())
        .containsExactly("ID");
  }

  @Test
  void aMissingNotNullColumnOrATwiceGivenNameFails() {
    assertThatThrownBy(() -> ColumnMatch.of(frame("name"), TABLE, "\"t\"", false))
        .hasMessage(
            "Table \"t\" has NOT NULL column 'ID', which the DataFrame does not have; add it to"
                + " the DataFrame.");
    assertThatThrownBy(() -> ColumnMatch.of(frame("id", "ID"), TABLE, "\"t\"", false))
        .hasMessageContaining("The DataFrame has column 'ID' twice (case ignored");
  }
}
