package io.flightsql.spark.stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.math.BigDecimal;
import java.time.ZoneId;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Offsets of every ordered type go into a checkpoint's JSON as exact text and come back as the same
 * value; the value just below another is the next one the column can hold; options are parsed as
 * the column's type wants them, and refused by name.
 */
class OffsetColumnTest {
  private static final ZoneId PARIS = ZoneId.of("Europe/Paris");

  private static OffsetColumn column(DataType type) {
    return OffsetColumn.of(
        new StructType(
            new StructField[] {
              DataTypes.createStructField("Seq", type, true),
              DataTypes.createStructField("v", DataTypes.StringType, true)
            }),
        "seq");
  }

  @ParameterizedTest(name = "{0} {1}")
  @CsvSource(
      delimiter = '|',
      value = {
        "bigint | -9223372036854775807 | -9223372036854775807",
        "int | 2147483647 | 2147483647",
        "decimal(38,10) | 9999999999999999999999999999.9999999999"
            + " | 9999999999999999999999999999.9999999999",
        "decimal(20,4) | -0.0001 | -0.0001",
        "date | 1582-10-04 | 1582-10-04",
        "timestamp | 2024-03-31T01:30:00.000001Z | 2024-03-31T01:30:00.000001Z",
        "timestamp | 1969-12-31T23:59:59.999999Z | 1969-12-31T23:59:59.999999Z",
        "timestamp_ntz | 0001-01-01T00:00:00.000000 | 0001-01-01T00:00:00.000000",
      })
  void everyValueRoundTripsThroughTheCheckpointsJson(String type, String text, String again) {
    OffsetColumn column = column(DataType.fromDDL(type));
    Object value = column.parseText(text);
    FlightSqlOffset offset = FlightSqlOffset.of(column, value);
    FlightSqlOffset read = FlightSqlOffset.parse(offset.json());
    assertThat(read.json()).isEqualTo(offset.json());
    assertThat(read.value(column)).isEqualTo(value);
    assertThat(column.text(read.value(column))).isEqualTo(again);
  }

  @Test
  void theJsonNamesTheColumnAndItsType() {
    OffsetColumn column = column(DataTypes.createDecimalType(20, 4));
    assertThat(FlightSqlOffset.of(column, new BigDecimal("12.5000")).json())
        .isEqualTo("{\"offsetColumn\":\"Seq\",\"type\":\"decimal(20,4)\",\"value\":\"12.5000\"}");
    assertThat(FlightSqlOffset.of(column, null).json())
        .isEqualTo("{\"offsetColumn\":\"Seq\",\"type\":\"decimal(20,4)\",\"value\":null}");
    assertThat(FlightSqlOffset.parse(FlightSqlOffset.of(column, null).json()).value(column))
        .isNull();
  }

  @Test
  void anOffsetOfAnotherColumnOrTypeIsRefused() {
    FlightSqlOffset saved = FlightSqlOffset.of(column(DataTypes.LongType), 5L);
    assertThatThrownBy(() -> saved.value(column(DataTypes.IntegerType)))
        .hasMessageContaining("holds offsets of column 'Seq' (bigint)")
        .hasMessageContaining("'offsetColumn' is now 'Seq' (int)");
    assertThatThrownBy(() -> FlightSqlOffset.parse("{\"offset\":5}"))
        .hasMessageContaining("Not an offset of a flightsql stream");
  }

  @Test
  void theValueJustBelowIsTheNextTheColumnCanHold() {
    assertThat(column(DataTypes.LongType).predecessor(10L)).isEqualTo(9L);
    assertThat(column(DataTypes.LongType).predecessor(Long.MIN_VALUE)).isNull();
    assertThat(column(DataTypes.ShortType).predecessor((long) Short.MIN_VALUE)).isNull();
    assertThat(column(DataTypes.createDecimalType(6, 2)).predecessor(new BigDecimal("1.00")))
        .isEqualTo(new BigDecimal("0.99"));
    assertThat(column(DataTypes.createDecimalType(5, 2)).predecessor(new BigDecimal("-999.99")))
        .as("-1000.00 has more digits than decimal(5,2)")
        .isNull();
    OffsetColumn timestamps = column(DataTypes.TimestampType);
    assertThat(
            timestamps.text(
                timestamps.predecessor(timestamps.parseText("2024-01-01T00:00:00.000000Z"))))
        .isEqualTo("2023-12-31T23:59:59.999999Z");
    OffsetColumn dates = column(DataTypes.DateType);
    assertThat(dates.text(dates.predecessor(dates.parseText("2024-03-01"))))
        .isEqualTo("2024-02-29");
  }

  @Test
  void startingOffsetsAreValuesOfTheColumnsType() {
    assertThat(column(DataTypes.LongType).parseStart(" 42 ", PARIS)).isEqualTo(42L);
    assertThat(column(DataTypes.createDecimalType(10, 3)).parseStart("1.5", PARIS))
        .isEqualTo(new BigDecimal("1.500"));
    OffsetColumn timestamps = column(DataTypes.TimestampType);
    assertThat(timestamps.text(timestamps.parseStart("2024-07-01 12:00:00", PARIS)))
        .as("a wall-clock time in the session time zone")
        .isEqualTo("2024-07-01T10:00:00.000000Z");
    assertThat(timestamps.text(timestamps.parseStart("2024-07-01T12:00:00.5Z", PARIS)))
        .isEqualTo("2024-07-01T12:00:00.500000Z");
    OffsetColumn local = column(DataTypes.TimestampNTZType);
    assertThat(local.text(local.parseStart("2024-07-01 12:00:00", PARIS)))
        .isEqualTo("2024-07-01T12:00:00.000000");
    assertThatThrownBy(() -> column(DataTypes.createDecimalType(10, 3)).parseStart("1.2345", PARIS))
        .hasMessageStartingWith(
            "Invalid value '1.2345' for option 'startingOffsets': expected `earliest`, `latest`,"
                + " or a value of the offset column")
        .hasMessageEndingWith("(the offset column 'Seq' is decimal(10,3))");
    assertThatThrownBy(() -> column(DataTypes.DateType).parseStart("yesterday", PARIS))
        .hasMessageContaining("Invalid value 'yesterday' for option 'startingOffsets'");
  }

  @Test
  void theLagIsAnAmountOfTheColumnsType() {
    OffsetColumn timestamps = column(DataTypes.TimestampType);
    Object lag = timestamps.parseLag("90s");
    assertThat(lag).isEqualTo(90_000_000L);
    assertThat(
            timestamps.text(
                timestamps.minus(timestamps.parseText("2024-01-01T00:01:00.000000Z"), lag)))
        .isEqualTo("2023-12-31T23:59:30.000000Z");
    assertThat(column(DataTypes.DateType).parseLag("48h")).isEqualTo(2L);
    assertThat(
            column(DataTypes.createDecimalType(10, 2))
                .minus(
                    new BigDecimal("10.00"),
                    column(DataTypes.createDecimalType(10, 2)).parseLag("0.005")))
        .as("rounded down to the column's scale")
        .isEqualTo(new BigDecimal("9.99"));
    assertThatThrownBy(() -> column(DataTypes.DateType).parseLag("36h"))
        .hasMessageContaining("Invalid value '36h' for option 'offsetLag'")
        .hasMessageContaining("whole days");
    assertThatThrownBy(() -> column(DataTypes.LongType).parseLag("-1"))
        .hasMessageContaining("which takes a non-negative number");
  }

  @Test
  void anOffsetColumnIsAColumnOfAnOrderedType() {
    StructType schema =
        new StructType(
            new StructField[] {
              DataTypes.createStructField("id", DataTypes.LongType, true),
              DataTypes.createStructField("ID", DataTypes.LongType, true),
              DataTypes.createStructField("score", DataTypes.DoubleType, true)
            });
    assertThat(OffsetColumn.of(schema, "ID").name()).isEqualTo("ID");
    assertThatThrownBy(() -> OffsetColumn.of(schema, "Id"))
        .hasMessageContaining("it matches 2 columns when case is ignored");
    assertThatThrownBy(() -> OffsetColumn.of(schema, "score"))
        .hasMessageContaining("column 'score' is double");
    assertThatThrownBy(() -> OffsetColumn.of(schema, "nope"))
        .hasMessageContaining("its columns are id, ID, score");
  }
}
