package io.flightsql.spark.it.fuzz;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.spark.sql.DataFrameReader;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * Runs one case three ways and says how they differ: makes the table on the server (unless the last
 * case left it as it is), reads it whole without pushdown and checks that against the rows written,
 * then runs the read's SQL over the connector with pushdown (the defaults), over the connector with
 * every pushdown off, and over Spark's own copy of the rows ({@code createDataFrame} of the whole
 * read), and compares the answers' types and rows as {@link FuzzRead#comparison()} says.
 */
final class CaseRunner {
  /** Options that keep all the work of a read in Spark. */
  static final Map<String, String> NO_PUSHDOWN =
      Map.of(
          "pushDownPredicate", "false",
          "pushDownAggregate", "false",
          "pushDownLimit", "false",
          "pushDownOffset", "false",
          "pushDownTopN", "false",
          "pushDownJoin", "false",
          "pushDownTableSample", "false");

  private final SparkSession spark;
  private final FuzzTarget target;
  private FuzzTable onServer;

  /** The table on the server as read whole without pushdown, once after it was made. */
  private List<Row> wholeRows;

  private StructType wholeSchema;
  private int skipped;

  CaseRunner(SparkSession spark, FuzzTarget target) {
    this.spark = spark;
    this.target = target;
  }

  /** The case's failure, or null when all three ways agree (or Spark itself fails the read). */
  Failure run(FuzzTable table, FuzzRead read) {
    try {
      make(table);
    } catch (Exception e) {
      onServer = null;
      throw new IllegalStateException("Could not make " + table.describe(target.dialect()), e);
    }
    if (wholeRows == null) {
      Failure failure = readWhole(table);
      if (failure != null) {
        return failure;
      }
    }
    StructType schema = wholeSchema;
    Dataset<Row> local = spark.createDataFrame(wholeRows, schema);
    StructType userSchema = null;
    if (read.source() == FuzzRead.Source.USER_SCHEMA) {
      List<StructField> fields = new ArrayList<>();
      read.schemaOrder().forEach(i -> fields.add(schema.fields()[i]));
      userSchema = new StructType(fields.toArray(new StructField[0]));
      local = local.selectExpr(names(userSchema));
    }
    local.createOrReplaceTempView("fz_local");
    try {
      reader(Map.of(), read, userSchema).load().createOrReplaceTempView("fz_pushed");
      reader(NO_PUSHDOWN, read, userSchema).load().createOrReplaceTempView("fz_unpushed");
    } catch (Exception e) {
      return new Failure("load failed", Failure.message(e));
    }

    Answer expected = Answer.of(spark, read.sql("fz_local"), read.digits(table));
    if (expected.error() != null) {
      // Spark's own answer is an error (an ANSI overflow): nothing to compare with.
      skipped++;
      return null;
    }
    Answer whole2 = null;
    if (read.comparison() == FuzzRead.Comparison.SUBSET
        || read.comparison() == FuzzRead.Comparison.COUNT) {
      whole2 = Answer.of(spark, read.unbounded().sql("fz_local"), read.digits(table));
    }
    for (String way : List.of("pushed", "unpushed")) {
      Answer actual = Answer.of(spark, read.sql("fz_" + way), read.digits(table));
      String difference = difference(read, expected, whole2, actual);
      if (difference != null) {
        return new Failure(
            way + " read " + difference.substring(0, difference.indexOf(':')), difference);
      }
    }
    return null;
  }

  /** Cases where Spark itself failed the read over its own copy, so nothing was compared. */
  int skipped() {
    return skipped;
  }

  private static String difference(FuzzRead read, Answer expected, Answer whole, Answer actual) {
    if (actual.error() != null) {
      return "failed: " + actual.error();
    }
    if (!actual.types().equals(expected.types())) {
      return "returns other types: expected " + expected.types() + ", got " + actual.types();
    }
    switch (read.comparison()) {
      case ORDERED:
        return actual.rows().equals(expected.rows())
            ? null
            : "returns other rows (in order): expected "
                + expected.rows()
                + ", got "
                + actual.rows();
      case MULTISET:
        return actual.sortedRows().equals(expected.sortedRows())
            ? null
            : "returns other rows: expected "
                + expected.sortedRows()
                + ", got "
                + actual.sortedRows();
      case COUNT:
        if (actual.rows().size() != expected.rows().size()) {
          return "returns another number of rows: expected "
              + expected.rows().size()
              + ", got "
              + actual.rows().size()
              + " "
              + actual.rows();
        }
        return subset(whole, actual);
      default:
        return subset(whole, actual);
    }
  }

  /** Null where every row of the answer is one of the whole's (as many times at most). */
  private static String subset(Answer whole, Answer actual) {
    List<List<String>> left = new ArrayList<>(whole.rows());
    for (List<String> row : actual.rows()) {
      if (!left.remove(row)) {
        return "returns rows that are not the read's: " + row + " not in " + whole.sortedRows();
      }
    }
    return null;
  }

  private static String[] names(StructType schema) {
    String[] names = new String[schema.size()];
    for (int i = 0; i < names.length; i++) {
      names[i] = "`" + schema.fields()[i].name() + "`";
    }
    return names;
  }

  private DataFrameReader reader(Map<String, String> options, FuzzRead read, StructType schema) {
    DataFrameReader reader =
        spark
            .read()
            .format("flightsql")
            .option("uri", target.uri())
            .options(target.options())
            .options(options);
    if (read.source() == FuzzRead.Source.QUERY && schema == null) {
      reader.option("query", "SELECT * FROM " + onServer.name());
    } else {
      reader.option("dbtable", onServer.name());
    }
    return schema == null ? reader : reader.schema(schema);
  }

  /**
   * Reads the table just made whole, without pushdown, and checks that against the rows written:
   * what the other reads are compared with is only as good as this read.
   */
  private Failure readWhole(FuzzTable table) {
    List<Row> rows;
    StructType schema;
    try {
      Dataset<Row> whole =
          spark
              .read()
              .format("flightsql")
              .option("uri", target.uri())
              .options(target.options())
              .options(NO_PUSHDOWN)
              .option("dbtable", table.name())
              .load();
      schema = whole.schema();
      rows = whole.collectAsList();
    } catch (Exception e) {
      return new Failure("whole read failed", Failure.message(e));
    }
    List<List<String>> written = Failure.sorted(table.canonicalRows());
    List<List<String>> readBack = new ArrayList<>();
    for (Row row : rows) {
      List<String> values = new ArrayList<>();
      for (int i = 0; i < row.length() && i < table.columns().size(); i++) {
        values.add(table.columns().get(i).family().canonical(row.get(i)));
      }
      readBack.add(values);
    }
    readBack = Failure.sorted(readBack);
    if (schema.size() != table.columns().size() || !written.equals(readBack)) {
      return new Failure(
          "whole read differs from the rows written",
          "written: " + written + "\nread:    " + readBack + "\nschema:  " + schema.simpleString());
    }
    wholeRows = rows;
    wholeSchema = schema;
    return null;
  }

  private void make(FuzzTable table) {
    if (Objects.equals(table, onServer)) {
      return;
    }
    wholeRows = null;
    if (target.dialect() == FuzzDialect.DEEPHAVEN) {
      onServer = table;
      return;
    }
    FuzzDialect dialect = target.dialect();
    if (dialect.schemas()) {
      dialect.createShadowSchema(target.update());
      String shadow = FuzzDialect.SHADOW_SCHEMA + "." + table.name();
      if (table.shadowed()) {
        // Other columns than the table's, so that a read of the wrong one cannot pass unseen.
        FuzzTable namesake =
            new FuzzTable(
                table.name(),
                List.of(new FuzzTable.Column("c_shadow", Family.STRING)),
                List.of(List.of("shadow")),
                false);
        dialect.create(target.update(), namesake, FuzzDialect.SHADOW_SCHEMA);
      } else {
        dialect.dropIfExists(target.update(), shadow);
      }
    }
    dialect.create(target.update(), table, null);
    onServer = table;
  }
}
