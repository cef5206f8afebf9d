package io.flightsql.spark.testing;

import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import org.apache.spark.sql.Row;

/**
 * Brings Spark's collected rows and a JDBC result to one comparable form, value for value: integers
 * as Long, decimals as plain strings without trailing zeros, binaries as hex, dates as LocalDate,
 * timestamps as Instant (with zone) or LocalDateTime (without).
 */
public final class RowValues {
  private RowValues() {}

  public static List<List<Object>> fromSpark(List<Row> rows) {
    List<List<Object>> out = new ArrayList<>();
    for (Row row : rows) {
      List<Object> values = new ArrayList<>();
      for (int i = 0; i < row.length(); i++) {
        values.add(normalize(row.get(i)));
      }
      out.add(values);
    }
    return out;
  }

  public static List<List<Object>> fromJdbc(Connection connection, String sql) throws SQLException {
    List<List<Object>> out = new ArrayList<>();
    try (Statement statement = connection.createStatement();
        ResultSet rs = statement.executeQuery(sql)) {
      ResultSetMetaData meta = rs.getMetaData();
      while (rs.next()) {
        List<Object> values = new ArrayList<>();
        for (int i = 1; i <= meta.getColumnCount(); i++) {
          values.add(jdbcValue(rs, i, meta.getColumnType(i)));
        }
        out.add(values);
      }
    }
    return out;
  }

  private static Object jdbcValue(ResultSet rs, int i, int type) throws SQLException {
    if (rs.getObject(i) == null) {
      return null;
    }
    switch (type) {
      case Types.DATE:
        return rs.getObject(i, LocalDate.class);
      case Types.TIMESTAMP:
        return rs.getObject(i, LocalDateTime.class);
      case Types.TIMESTAMP_WITH_TIMEZONE:
        return rs.getObject(i, OffsetDateTime.class).toInstant();
      case Types.DECIMAL:
      case Types.NUMERIC:
        return normalize(rs.getBigDecimal(i));
      case Types.REAL:
      case Types.FLOAT:
        return normalize(rs.getFloat(i));
      case Types.DOUBLE:
        return normalize(rs.getDouble(i));
      case Types.BLOB:
      case Types.BINARY:
      case Types.VARBINARY:
      case Types.LONGVARBINARY:
        return normalize(rs.getBytes(i));
      default:
        return normalize(rs.getObject(i));
    }
  }

  static Object normalize(Object value) {
    if (value instanceof Byte || value instanceof Short || value instanceof Integer) {
      return ((Number) value).longValue();
    }
    if (value instanceof java.math.BigInteger && ((java.math.BigInteger) value).bitLength() < 64) {
      return ((java.math.BigInteger) value).longValue();
    }
    if (value instanceof BigDecimal) {
      BigDecimal d = ((BigDecimal) value).stripTrailingZeros();
      return d.signum() == 0 ? "0" : d.toPlainString();
    }
    if (value instanceof Float) {
      return "float:" + value;
    }
    if (value instanceof Double) {
      return "double:" + value;
    }
    if (value instanceof byte[]) {
      return "0x" + HexFormat.of().formatHex((byte[]) value);
    }
    if (value instanceof java.sql.Date) {
      return ((java.sql.Date) value).toLocalDate();
    }
    return value;
  }

  public static List<Object> row(Object... values) {
    List<Object> out = new ArrayList<>();
    for (Object v : Arrays.asList(values)) {
      out.add(normalize(v));
    }
    return out;
  }
}
