package io.flightsql.spark.sql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.flightsql.spark.sql.ColumnPartitioning.ColumnKind;
import java.time.ZoneId;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;

class ColumnPartitioningTest {
  private static final ZoneId UTC = ZoneOffset.UTC;

  private static ColumnPartitioning numbers(long lower, long upper, int n) {
    return ColumnPartitioning.plan(
        "\"id\"", ColumnKind.NUMBER, Long.toString(lower), Long.toString(upper), n, UTC);
  }

  @Test
  void evenRangeIsCutIntoEqualStridesAndTheEndsAreOpen() {
    assertThat(numbers(1, 4, 3).clauses())
        .containsExactly(
            "\"id\" < 2 OR \"id\" IS NULL", "\"id\" >= 2 AND \"id\" < 3", "\"id\" >= 3");
  }

  @Test
  void theRemainderIsSharedByTheFirstAndLastPartitions() {
    // Stride 2 (10 / 4 truncated); the 2 values lost at the top are split: one moves down.
    assertThat(numbers(0, 10, 4).clauses())
        .containsExactly(
            "\"id\" < 3 OR \"id\" IS NULL",
            "\"id\" >= 3 AND \"id\" < 5",
            "\"id\" >= 5 AND \"id\" < 7",
            "\"id\" >= 7");
  }

  @Test
  void morePartitionsThanValuesAreReducedToTheRangeWidth() {
    ColumnPartitioning plan = numbers(0, 3, 10);
    assertThat(plan.clauses()).hasSize(3);
    assertThat(plan.reduced()).isTrue();
    assertThat(plan.requested()).isEqualTo(10);
    assertThat(numbers(0, 3, 3).reduced()).isFalse();
  }

  @Test
  void onePartitionOrEqualBoundsReadTheQueryWhole() {
    assertThat(numbers(0, 100, 1).clauses()).containsExactly((String) null);
    assertThat(numbers(7, 7, 4).clauses()).containsExactly((String) null);
    assertThat(numbers(7, 8, 4).clauses()).containsExactly((String) null);
  }

  @Test
  void negativeBoundsAndTheWholeLongRangeDoNotOverflow() {
    assertThat(numbers(-10, 10, 2).clauses())
        .containsExactly("\"id\" < 0 OR \"id\" IS NULL", "\"id\" >= 0");
    assertThat(numbers(Long.MIN_VALUE, Long.MAX_VALUE, 4).clauses()).hasSize(4);
  }

  @Test
  void lowerBoundAboveUpperBoundIsRefused() {
    assertThatThrownBy(() -> numbers(10, 1, 4))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "Option 'lowerBound' (10) is larger than option 'upperBound' (1): the lower bound of"
                + " the partition column must not exceed its upper bound");
    assertThatThrownBy(() -> numbers(10, 1, 1)).hasMessageContaining("is larger than");
  }

  @Test
  void dateBoundsAreDaysAndRenderAsDateLiterals() {
    ColumnPartitioning plan =
        ColumnPartitioning.plan("\"d\"", ColumnKind.DATE, "2024-01-01", "2024-01-11", 2, UTC);
    assertThat(plan.clauses())
        .containsExactly(
            "\"d\" < DATE '2024-01-06' OR \"d\" IS NULL", "\"d\" >= DATE '2024-01-06'");
  }

  @Test
  void timestampBoundsWithoutAnOffsetAreInTheSessionZone() {
    ColumnPartitioning plan =
        ColumnPartitioning.plan(
            "\"t\"",
            ColumnKind.TIMESTAMP,
            "2024-01-01 01:00:00",
            "2024-01-01T02:00:00Z",
            2,
            ZoneId.of("Europe/Paris"));
    assertThat(plan.clauses())
        .containsExactly(
            "\"t\" < TIMESTAMP WITH TIME ZONE '2024-01-01 01:00:00.000000+00:00' OR \"t\" IS NULL",
            "\"t\" >= TIMESTAMP WITH TIME ZONE '2024-01-01 01:00:00.000000+00:00'");
    assertThat(
            ColumnPartitioning.plan(
                    "\"t\"", ColumnKind.TIMESTAMP, "2024-01-01T00:00+01:00", "2024-01-01", 1, UTC)
                .lowerBound())
        .isEqualTo(1_704_063_600_000_000L);
  }

  @Test
  void timestampNtzBoundsAreWallClockTimes() {
    ColumnPartitioning plan =
        ColumnPartitioning.plan(
            "\"t\"",
            ColumnKind.TIMESTAMP_NTZ,
            "2024-01-01",
            "2024-01-03 00:00:00.000000",
            2,
            ZoneId.of("America/New_York"));
    assertThat(plan.clauses())
        .containsExactly(
            "\"t\" < TIMESTAMP '2024-01-02 00:00:00.000000' OR \"t\" IS NULL",
            "\"t\" >= TIMESTAMP '2024-01-02 00:00:00.000000'");
  }

  @Test
  void beforeTheEpochMicrosecondsRenderExactly() {
    assertThat(PartitionLiterals.literal(ColumnKind.TIMESTAMP_NTZ, -1L))
        .isEqualTo("TIMESTAMP '1969-12-31 23:59:59.999999'");
    assertThat(PartitionLiterals.literal(ColumnKind.DATE, -1L)).isEqualTo("DATE '1969-12-31'");
  }

  @Test
  void boundsThatDoNotParseAsTheColumnsKindNameTheOption() {
    assertThatThrownBy(
            () -> ColumnPartitioning.plan("\"id\"", ColumnKind.NUMBER, "1.5", "10", 2, UTC))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("Invalid value '1.5' for option 'lowerBound': expected")
        .hasMessageEndingWith("(the partition column is numeric: expected a whole number)");
    assertThatThrownBy(
            () ->
                ColumnPartitioning.plan(
                    "\"d\"", ColumnKind.DATE, "2024-01-01", "2024-13-01", 2, UTC))
        .hasMessageStartingWith("Invalid value '2024-13-01' for option 'upperBound'")
        .hasMessageEndingWith("(the partition column is a date: expected yyyy-MM-dd)");
    assertThatThrownBy(
            () ->
                ColumnPartitioning.plan(
                    "\"t\"", ColumnKind.TIMESTAMP, "yesterday", "2024-01-01", 2, UTC))
        .hasMessageStartingWith("Invalid value 'yesterday' for option 'lowerBound'");
  }
}
