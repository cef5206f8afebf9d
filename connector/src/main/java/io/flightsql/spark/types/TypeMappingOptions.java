package io.flightsql.spark.types;

import java.io.Serializable;
import java.util.Locale;
import java.util.Objects;

/**
 * The choices a user can make about Arrow values that Spark cannot hold exactly. Immutable and
 * Serializable: built on the driver from the read options and shipped with each partition, so that
 * planning and reading decide the same way.
 */
public final class TypeMappingOptions implements Serializable {
  private static final long serialVersionUID = 1L;

  /** What to do with decimals wider than Spark's 38 digits (option {@code decimalOverflow}). */
  public enum DecimalOverflow {
    /** Refuse the column while planning, naming the option. The default. */
    ERROR,
    /** Read the column as a string holding each value's exact decimal text. */
    STRING,
    /** Read the column as DECIMAL(38, s); a value with more digits than that reads as NULL. */
    NULL;

    /** The option's value as users write it. */
    public String optionValue() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  /**
   * What to do with a value that carries nanoseconds, which Spark's microsecond timestamps, times
   * and intervals cannot hold (option {@code nanoseconds}).
   */
  public enum Nanoseconds {
    /** Drop the digits below a microsecond, rounding towards the past. The default. */
    TRUNCATE,
    /** Fail the task on the first value whose nanoseconds are not a whole microsecond. */
    ERROR;

    public String optionValue() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  private final DecimalOverflow decimalOverflow;
  private final Nanoseconds nanoseconds;
  private final boolean sparkTime;
  private final boolean mixedUnionsAsText;

  private TypeMappingOptions(
      DecimalOverflow decimalOverflow,
      Nanoseconds nanoseconds,
      boolean sparkTime,
      boolean mixedUnionsAsText) {
    this.decimalOverflow = Objects.requireNonNull(decimalOverflow);
    this.nanoseconds = Objects.requireNonNull(nanoseconds);
    this.sparkTime = sparkTime;
    this.mixedUnionsAsText = mixedUnionsAsText;
  }

  /** The defaults, with TIME columns as the running Spark session allows ({@link #sparkTime}). */
  public static TypeMappingOptions defaults() {
    return of(DecimalOverflow.ERROR, Nanoseconds.TRUNCATE);
  }

  public static TypeMappingOptions of(DecimalOverflow decimalOverflow, Nanoseconds nanoseconds) {
    return new TypeMappingOptions(decimalOverflow, nanoseconds, SparkTimeType.enabled(), false);
  }

  /** The same options, with Arrow times read as Spark's TIME ({@code true}) or as longs. */
  public TypeMappingOptions withSparkTime(boolean useSparkTime) {
    if (useSparkTime && !SparkTimeType.AVAILABLE) {
      throw new IllegalArgumentException("This version of Spark has no TIME type");
    }
    return new TypeMappingOptions(decimalOverflow, nanoseconds, useSparkTime, mixedUnionsAsText);
  }

  /**
   * The same options, with unions of several scalar types read as strings ({@code true}, option
   * {@code mixedUnions=string}) or refused while planning.
   */
  public TypeMappingOptions withMixedUnionsAsText(boolean asText) {
    return new TypeMappingOptions(decimalOverflow, nanoseconds, sparkTime, asText);
  }

  /** Whether a union of several scalar types reads as the text of each value. */
  public boolean mixedUnionsAsText() {
    return mixedUnionsAsText;
  }

  public DecimalOverflow decimalOverflow() {
    return decimalOverflow;
  }

  public Nanoseconds nanoseconds() {
    return nanoseconds;
  }

  /**
   * Whether Arrow times read as Spark's TIME type. Only Spark 4.1 and later have it, and only with
   * {@code spark.sql.timeType.enabled=true} does Spark accept it in a query; otherwise times read
   * as longs of microseconds since midnight. Decided on the driver and shipped with the plan.
   */
  public boolean sparkTime() {
    return sparkTime;
  }

  @Override
  public boolean equals(Object o) {
    if (!(o instanceof TypeMappingOptions)) {
      return false;
    }
    TypeMappingOptions other = (TypeMappingOptions) o;
    return decimalOverflow == other.decimalOverflow
        && nanoseconds == other.nanoseconds
        && sparkTime == other.sparkTime
        && mixedUnionsAsText == other.mixedUnionsAsText;
  }

  @Override
  public int hashCode() {
    return Objects.hash(decimalOverflow, nanoseconds, sparkTime, mixedUnionsAsText);
  }

  @Override
  public String toString() {
    return "decimalOverflow="
        + decimalOverflow.optionValue()
        + ", nanoseconds="
        + nanoseconds.optionValue()
        + ", time="
        + (sparkTime ? "TIME" : "long")
        + ", mixedUnions="
        + (mixedUnionsAsText ? "string" : "error");
  }
}
