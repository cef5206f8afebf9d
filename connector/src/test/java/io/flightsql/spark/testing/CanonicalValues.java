package io.flightsql.spark.testing;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.sql.Blob;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Struct;
import java.sql.Timestamp;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.spark.sql.Row;
import org.apache.spark.unsafe.types.CalendarInterval;
import scala.jdk.javaapi.CollectionConverters;

/**
 * Brings the rows Spark collects and the rows DuckDB's JDBC driver returns for the same query to
 * one canonical Java form, nested values included, so that two results compare with {@code equals},
 * value for value and NULL for NULL:
 *
 * <ul>
 *   <li>exact numbers (every integer type, decimals, DuckDB's BigInteger HUGEINT and UBIGINT) as
 *       BigDecimal without trailing zeros; floats and doubles as Float and Double, whose {@code
 *       equals} tells -0.0 from 0.0 and takes NaN as equal to itself;
 *   <li>strings and UUIDs as String; byte strings as {@link Binary} (hex);
 *   <li>dates as LocalDate, timestamps without zone as LocalDateTime, with zone as Instant, times
 *       as LocalTime (or as microseconds since midnight, see {@link Times}), intervals as {@link
 *       Interval};
 *   <li>lists as List, structs as {@link StructValue} (names and values in order), maps as Map
 *       (compared whatever the entry order, since Spark does not keep it, and printed sorted).
 * </ul>
 *
 * <p>Spark's values are told apart by their Java class (with {@code
 * spark.sql.datetime.java8API.enabled}). DuckDB's JDBC values are read as the column's DuckDB type
 * says, since its classes are ambiguous: an INTERVAL is a String such as {@code "1 month 2 days
 * 00:00:03"}, nested timestamps are {@link Timestamp}s.
 *
 * <p>Spark keeps microseconds, so DuckDB's TIMESTAMP_NS and TIME_NS values are truncated to the
 * microsecond towards the past here, as the connector does: {@code 1969-12-31 23:59:59.999999999}
 * compares as {@code 1969-12-31 23:59:59.999999}.
 *
 * <p>DuckDB's JDBC driver returns nested TIMESTAMPs as {@link Timestamp}, whose fields follow the
 * Julian calendar before 1582-10-15 and lose the era of years BC; nested timestamps in a comparison
 * must therefore lie between 1582-10-15 and the year 294247. Top-level timestamps have no such
 * limit: they are read as LocalDateTime.
 */
public final class CanonicalValues {
  private CanonicalValues() {}

  /** How TIME values compare, matching how the connector reads them in the session. */
  public enum Times {
    /** As LocalTime: Spark's TIME type ({@code spark.sql.timeType.enabled=true}). */
    LOCAL_TIME,
    /** As a long of microseconds since midnight: without Spark's TIME type. */
    MICROS
  }

  /** A byte string, compared and printed as hex. */
  public record Binary(String hex) {
    static Binary of(byte[] bytes) {
      return new Binary(HexFormat.of().formatHex(bytes));
    }

    @Override
    public String toString() {
      return "0x" + hex;
    }
  }

  /** An interval in Spark's CalendarInterval parts: months, days and microseconds. */
  public record Interval(int months, int days, long micros) {}

  /** A struct value: its member names and values, in order. */
  public record StructValue(List<String> names, List<Object> values) {
    @Override
    public String toString() {
      StringBuilder text = new StringBuilder("{");
      for (int i = 0; i < names.size(); i++) {
        text.append(i == 0 ? "" : ", ").append(names.get(i)).append('=').append(values.get(i));
      }
      return text.append('}').toString();
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Spark

  public static List<List<Object>> fromSpark(List<Row> rows) {
    List<List<Object>> out = new ArrayList<>();
    for (Row row : rows) {
      List<Object> values = new ArrayList<>();
      for (int i = 0; i < row.length(); i++) {
        values.add(spark(row.get(i)));
      }
      out.add(values);
    }
    return out;
  }

  private static Object spark(Object value) {
    if (value == null
        || value instanceof Boolean
        || value instanceof Float
        || value instanceof Double
        || value instanceof String
        || value instanceof LocalDate
        || value instanceof LocalDateTime
        || value instanceof Instant
        || value instanceof LocalTime) {
      return value;
    }
    if (value instanceof Byte
        || value instanceof Short
        || value instanceof Integer
        || value instanceof Long
        || value instanceof BigDecimal) {
      return exact(value);
    }
    if (value instanceof byte[] bytes) {
      return Binary.of(bytes);
    }
    if (value instanceof CalendarInterval interval) {
      return new Interval(interval.months, interval.days, interval.microseconds);
    }
    if (value instanceof Row row) {
      List<Object> members = new ArrayList<>();
      for (int i = 0; i < row.length(); i++) {
        members.add(spark(row.get(i)));
      }
      return new StructValue(Arrays.asList(row.schema().fieldNames()), members);
    }
    if (value instanceof scala.collection.Map<?, ?> map) {
      Map<Object, Object> entries = new LinkedHashMap<>();
      for (Map.Entry<?, ?> entry : CollectionConverters.asJava(map).entrySet()) {
        entries.put(spark(entry.getKey()), spark(entry.getValue()));
      }
      return sorted(entries);
    }
    if (value instanceof scala.collection.Seq<?> seq) {
      List<Object> elements = new ArrayList<>();
      for (Object element : CollectionConverters.asJava(seq)) {
        elements.add(spark(element));
      }
      return elements;
    }
    throw new IllegalArgumentException(
        "No canonical form for the Spark value " + value + " of " + value.getClass().getName());
  }

  // ---------------------------------------------------------------------------------------------
  // DuckDB's JDBC driver

  /** DuckDB's own answer to {@code sql}, in canonical form. */
  public static List<List<Object>> fromDuckDb(Connection connection, String sql, Times times)
      throws SQLException {
    List<List<Object>> out = new ArrayList<>();
    try (PreparedStatement statement = connection.prepareStatement(sql);
        ResultSet rs = statement.executeQuery()) {
      ResultSetMetaData meta = rs.getMetaData();
      DuckType[] types = new DuckType[meta.getColumnCount()];
      for (int i = 0; i < types.length; i++) {
        types[i] = DuckType.parse(meta.getColumnTypeName(i + 1));
      }
      while (rs.next()) {
        List<Object> values = new ArrayList<>();
        for (int i = 0; i < types.length; i++) {
          // Top-level timestamps as LocalDateTime: the driver computes it from the stored
          // microseconds, whereas its java.sql.Timestamp goes through the Julian calendar.
          Object value =
              types[i].isTimestampWithoutZone()
                  ? rs.getObject(i + 1, LocalDateTime.class)
                  : rs.getObject(i + 1);
          values.add(duckDb(value, types[i], times));
        }
        out.add(values);
      }
    }
    return out;
  }

  private static Object duckDb(Object value, DuckType type, Times times) throws SQLException {
    if (value == null) {
      return null;
    }
    switch (type.name()) {
      case "LIST":
        Object[] items =
            value instanceof java.sql.Array array
                ? (Object[]) array.getArray()
                : ((List<?>) value).toArray();
        List<Object> elements = new ArrayList<>();
        for (Object item : items) {
          elements.add(duckDb(item, type.children().get(0), times));
        }
        return elements;
      case "STRUCT":
        Object[] attributes = ((Struct) value).getAttributes();
        List<Object> members = new ArrayList<>();
        for (int i = 0; i < attributes.length; i++) {
          members.add(duckDb(attributes[i], type.children().get(i), times));
        }
        return new StructValue(type.memberNames(), members);
      case "MAP":
        Map<Object, Object> entries = new LinkedHashMap<>();
        for (Map.Entry<?, ?> entry : ((Map<?, ?>) value).entrySet()) {
          entries.put(
              duckDb(entry.getKey(), type.children().get(0), times),
              duckDb(entry.getValue(), type.children().get(1), times));
        }
        return sorted(entries);
      case "UNION":
        // The driver returns the value of the member the row holds; the unions the connector
        // reads have one type for all their members.
        return duckDb(value, type.children().get(0), times);
      case "BOOLEAN":
      case "VARCHAR":
      case "ENUM":
      case "FLOAT":
      case "DOUBLE":
        return value;
      case "TINYINT":
      case "SMALLINT":
      case "INTEGER":
      case "BIGINT":
      case "HUGEINT":
      case "UTINYINT":
      case "USMALLINT":
      case "UINTEGER":
      case "UBIGINT":
      case "UHUGEINT":
      case "DECIMAL":
        return exact(value);
      case "UUID":
        return ((UUID) value).toString();
      case "BLOB":
      case "GEOMETRY":
        if (value instanceof byte[] bytes) {
          return Binary.of(bytes);
        }
        Blob blob = (Blob) value;
        return Binary.of(blob.getBytes(1, Math.toIntExact(blob.length())));
      case "DATE":
        return value instanceof java.sql.Date date ? date.toLocalDate() : (LocalDate) value;
      case "TIMESTAMP":
      case "TIMESTAMP_S":
      case "TIMESTAMP_MS":
      case "TIMESTAMP_NS":
        LocalDateTime local =
            value instanceof Timestamp timestamp
                ? timestamp.toLocalDateTime()
                : (LocalDateTime) value;
        // Truncating a LocalDateTime rounds towards the past: its nanosecond field is never
        // negative, even before 1970.
        return local.truncatedTo(ChronoUnit.MICROS);
      case "TIMESTAMP WITH TIME ZONE":
        return ((OffsetDateTime) value).toInstant().truncatedTo(ChronoUnit.MICROS);
      case "TIME":
      case "TIME_NS":
        LocalTime time = ((LocalTime) value).truncatedTo(ChronoUnit.MICROS);
        return times == Times.LOCAL_TIME ? time : exact(time.toNanoOfDay() / 1_000L);
      case "INTERVAL":
        return interval((String) value);
      default:
        throw new IllegalArgumentException(
            "No canonical form for DuckDB type " + type.name() + " (value " + value + ")");
    }
  }

  /**
   * An interval from DuckDB's text for it: {@code [n year[s]] [n month[s]] [n day[s]]
   * [[-]hh:mm:ss[.ffffff]]}, each part with its own sign, for example {@code "-1 year -2 months"}
   * or {@code "-3 days -00:00:01.5"}; zero is {@code "00:00:00"}.
   */
  static Interval interval(String text) {
    int months = 0;
    int days = 0;
    long micros = 0;
    String[] tokens = text.trim().split(" ");
    for (int i = 0; i < tokens.length; i++) {
      String token = tokens[i];
      if (token.contains(":")) {
        micros = clockMicros(token);
        continue;
      }
      int amount = Integer.parseInt(token);
      String unit = tokens[++i];
      if (unit.startsWith("year")) {
        months += 12 * amount;
      } else if (unit.startsWith("mon")) {
        months += amount;
      } else if (unit.startsWith("day")) {
        days += amount;
      } else {
        throw new IllegalArgumentException("Unexpected unit '" + unit + "' in interval " + text);
      }
    }
    return new Interval(months, days, micros);
  }

  private static long clockMicros(String clock) {
    boolean negative = clock.startsWith("-");
    String[] parts = (negative ? clock.substring(1) : clock).split(":");
    long hours = Long.parseLong(parts[0]);
    long minutes = Long.parseLong(parts[1]);
    String[] seconds = parts[2].split("\\.");
    long fraction = 0;
    if (seconds.length > 1) {
      String digits = (seconds[1] + "000000").substring(0, 6);
      fraction = Long.parseLong(digits);
    }
    long micros =
        ((hours * 60 + minutes) * 60 + Long.parseLong(seconds[0])) * 1_000_000L + fraction;
    return negative ? -micros : micros;
  }

  // ---------------------------------------------------------------------------------------------
  // Shared

  private static BigDecimal exact(Object number) {
    BigDecimal value;
    if (number instanceof BigDecimal decimal) {
      value = decimal;
    } else if (number instanceof BigInteger integer) {
      value = new BigDecimal(integer);
    } else {
      value = BigDecimal.valueOf(((Number) number).longValue());
    }
    return value.stripTrailingZeros();
  }

  /** The same map, its entries in the order of their keys' text, for readable failures. */
  private static Map<Object, Object> sorted(Map<Object, Object> entries) {
    Map<Object, Object> out = new LinkedHashMap<>();
    entries.entrySet().stream()
        .sorted(Comparator.comparing(entry -> String.valueOf(entry.getKey())))
        .forEach(entry -> out.put(entry.getKey(), entry.getValue()));
    return out;
  }

  /**
   * A DuckDB type as its JDBC driver names it: {@code INTEGER[]}, {@code VARCHAR[3]}, {@code
   * STRUCT(a INTEGER, "b c" VARCHAR[])}, {@code MAP(VARCHAR, INTEGER)}, {@code DECIMAL(18,6)},
   * {@code TIMESTAMP WITH TIME ZONE}. Lists and fixed-size arrays are both {@code LIST}; scalar
   * types lose their parameters.
   */
  record DuckType(String name, List<String> memberNames, List<DuckType> children) {
    static DuckType parse(String text) {
      String type = text.trim();
      if (type.endsWith("]")) {
        DuckType element = parse(type.substring(0, type.lastIndexOf('[')));
        return new DuckType("LIST", List.of("element"), List.of(element));
      }
      int open = type.indexOf('(');
      String base = open < 0 ? type : type.substring(0, open).trim();
      if (!base.equals("STRUCT") && !base.equals("UNION") && !base.equals("MAP")) {
        return new DuckType(base, List.of(), List.of());
      }
      List<String> names = new ArrayList<>();
      List<DuckType> children = new ArrayList<>();
      for (String part : splitTopLevel(type.substring(open + 1, type.lastIndexOf(')')))) {
        if (base.equals("MAP")) {
          names.add(names.isEmpty() ? "key" : "value");
          children.add(parse(part));
          continue;
        }
        int nameEnd = memberNameEnd(part);
        names.add(unquote(part.substring(0, nameEnd)));
        children.add(parse(part.substring(nameEnd)));
      }
      return new DuckType(base, names, children);
    }

    boolean isTimestampWithoutZone() {
      return name.equals("TIMESTAMP") || name.startsWith("TIMESTAMP_");
    }

    /** The parts of a parameter list, split at the commas outside parentheses and quotes. */
    private static List<String> splitTopLevel(String list) {
      List<String> parts = new ArrayList<>();
      int depth = 0;
      boolean quoted = false;
      int start = 0;
      for (int i = 0; i < list.length(); i++) {
        char c = list.charAt(i);
        if (c == '"') {
          quoted = !quoted;
        } else if (!quoted && (c == '(' || c == '[')) {
          depth++;
        } else if (!quoted && (c == ')' || c == ']')) {
          depth--;
        } else if (!quoted && depth == 0 && c == ',') {
          parts.add(list.substring(start, i).trim());
          start = i + 1;
        }
      }
      parts.add(list.substring(start).trim());
      return parts;
    }

    /** Where a member's name ends: after its closing quote, or at the first space. */
    private static int memberNameEnd(String member) {
      if (!member.startsWith("\"")) {
        return member.indexOf(' ');
      }
      int i = 1;
      while (i < member.length()) {
        if (member.charAt(i) == '"') {
          if (i + 1 < member.length() && member.charAt(i + 1) == '"') {
            i += 2;
            continue;
          }
          return i + 1;
        }
        i++;
      }
      throw new IllegalArgumentException("Unterminated member name in " + member);
    }

    private static String unquote(String name) {
      return name.startsWith("\"")
          ? name.substring(1, name.length() - 1).replace("\"\"", "\"")
          : name;
    }
  }
}
