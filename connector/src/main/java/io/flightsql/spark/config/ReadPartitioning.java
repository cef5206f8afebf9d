package io.flightsql.spark.config;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;

/**
 * How a read asks to be split by the client, as its options say: not at all (the server's endpoints
 * are the partitions), by ranges of a column ({@code partitionColumn}, {@code lowerBound}, {@code
 * upperBound}, {@code numPartitions}), or by a list of WHERE clauses ({@code predicates}).
 * Immutable and Serializable. The bounds stay text here: their type is the partition column's,
 * which only the read's schema tells (see {@code sql.ColumnPartitioning}).
 */
public final class ReadPartitioning implements Serializable {
  private static final long serialVersionUID = 1L;

  private static final ReadPartitioning NONE = new ReadPartitioning(null, null, null, 0, null);

  private final String column;
  private final String lowerBound;
  private final String upperBound;
  private final int numPartitions;
  private final ArrayList<String> predicates;

  private ReadPartitioning(
      String column,
      String lowerBound,
      String upperBound,
      int numPartitions,
      List<String> predicates) {
    this.column = column;
    this.lowerBound = lowerBound;
    this.upperBound = upperBound;
    this.numPartitions = numPartitions;
    this.predicates = predicates == null ? null : new ArrayList<>(predicates);
  }

  /**
   * Validates the partitioning options of a read.
   *
   * @throws IllegalArgumentException naming the option at fault and what it expects
   */
  static ReadPartitioning from(OptionReader reader) {
    Optional<String> column = reader.given(ReadOptions.PARTITION_COLUMN);
    Optional<String> lower = reader.given(ReadOptions.LOWER_BOUND);
    Optional<String> upper = reader.given(ReadOptions.UPPER_BOUND);
    Optional<String> count = reader.given(ReadOptions.NUM_PARTITIONS);
    boolean predicates = reader.given(ReadOptions.PREDICATES).isPresent();
    List<String> given = new ArrayList<>();
    List<String> missing = new ArrayList<>();
    sort(ReadOptions.PARTITION_COLUMN, column, given, missing);
    sort(ReadOptions.LOWER_BOUND, lower, given, missing);
    sort(ReadOptions.UPPER_BOUND, upper, given, missing);
    sort(ReadOptions.NUM_PARTITIONS, count, given, missing);
    if (predicates) {
      if (!given.isEmpty()) {
        throw new IllegalArgumentException(
            "Option 'predicates' cannot be used together with "
                + quotedList(given)
                + "; use 'predicates' for WHERE clauses of your own, or 'partitionColumn' with"
                + " 'lowerBound', 'upperBound' and 'numPartitions' for ranges of one column");
      }
      return new ReadPartitioning(null, null, null, 0, reader.value(ReadOptions.PREDICATES));
    }
    if (given.isEmpty()) {
      return NONE;
    }
    if (!missing.isEmpty()) {
      throw new IllegalArgumentException(
          "Options 'partitionColumn', 'lowerBound', 'upperBound' and 'numPartitions' must be given"
              + " together: "
              + quotedList(given)
              + (given.size() == 1 ? " is" : " are")
              + " given, "
              + quotedList(missing)
              + (missing.size() == 1 ? " is" : " are")
              + " missing");
    }
    int partitions = reader.value(ReadOptions.NUM_PARTITIONS);
    return new ReadPartitioning(column.get(), lower.get(), upper.get(), partitions, null);
  }

  private static void sort(
      OptionSpec<?> spec, Optional<String> value, List<String> given, List<String> missing) {
    (value.isPresent() ? given : missing).add(spec.name());
  }

  private static String quotedList(List<String> names) {
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < names.size(); i++) {
      if (i > 0) {
        out.append(i == names.size() - 1 ? " and " : ", ");
      }
      out.append('\'').append(names.get(i)).append('\'');
    }
    return out.toString();
  }

  /** Whether the client splits the read; if not, the server's endpoints are its partitions. */
  public boolean isClientSide() {
    return column != null || predicates != null;
  }

  /** The partition column as the user wrote it, when the read is split by ranges of a column. */
  public Optional<String> column() {
    return Optional.ofNullable(column);
  }

  /** Option {@code lowerBound}'s text; only with {@link #column()}. */
  public String lowerBound() {
    return lowerBound;
  }

  /** Option {@code upperBound}'s text; only with {@link #column()}. */
  public String upperBound() {
    return upperBound;
  }

  /** Option {@code numPartitions}; only with {@link #column()}. */
  public int numPartitions() {
    return numPartitions;
  }

  /** The WHERE clauses of option {@code predicates}, one partition each, when given. */
  public Optional<List<String>> predicates() {
    return predicates == null
        ? Optional.empty()
        : Optional.of(Collections.unmodifiableList(predicates));
  }

  @Override
  public String toString() {
    if (column != null) {
      return "partitionColumn="
          + column
          + ", lowerBound="
          + lowerBound
          + ", upperBound="
          + upperBound
          + ", numPartitions="
          + numPartitions;
    }
    if (predicates != null) {
      return "predicates=" + predicates.size();
    }
    return "server endpoints";
  }
}
