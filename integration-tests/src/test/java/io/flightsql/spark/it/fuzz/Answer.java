package io.flightsql.spark.it.fuzz;

import java.math.BigDecimal;
import java.math.MathContext;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.StructField;

/**
 * What one way of running a read answered: the result's column types and its rows as texts (floats
 * to {@code digits} significant digits where that is not 0), or the error it failed with.
 */
record Answer(List<String> types, List<List<String>> rows, String error) {
  static Answer of(SparkSession spark, String sql, int digits) {
    try {
      Dataset<Row> result = spark.sql(sql);
      List<String> types = new ArrayList<>();
      for (StructField field : result.schema().fields()) {
        types.add(field.dataType().simpleString());
      }
      List<List<String>> rows = new ArrayList<>();
      for (Row row : result.collectAsList()) {
        List<String> values = new ArrayList<>();
        for (int i = 0; i < row.length(); i++) {
          values.add(text(row.get(i), digits));
        }
        rows.add(values);
      }
      return new Answer(types, rows, null);
    } catch (Exception e) {
      return new Answer(List.of(), List.of(), Failure.message(e));
    }
  }

  List<List<String>> sortedRows() {
    return Failure.sorted(rows);
  }

  private static String text(Object value, int digits) {
    if (value == null) {
      return "NULL";
    }
    if (value instanceof Double || value instanceof Float) {
      double d = ((Number) value).doubleValue();
      if (Double.isNaN(d) || Double.isInfinite(d) || d == 0.0) {
        return Family.canonicalDouble(d);
      }
      if (digits > 0) {
        return new BigDecimal(d).round(new MathContext(digits)).toString();
      }
      return value.toString();
    }
    if (value instanceof BigDecimal decimal) {
      return decimal.toPlainString();
    }
    if (value instanceof byte[] bytes) {
      return Arrays.toString(bytes);
    }
    return value.toString();
  }
}
