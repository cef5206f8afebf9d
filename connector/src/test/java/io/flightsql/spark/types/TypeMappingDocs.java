package io.flightsql.spark.types;

import io.flightsql.spark.types.TypeMappingOptions.DecimalOverflow;
import io.flightsql.spark.types.TypeMappingOptions.Nanoseconds;
import java.util.Arrays;
import java.util.Collections;
import org.apache.arrow.vector.extension.OpaqueType;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.IntervalUnit;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.UnionMode;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.DictionaryEncoding;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;

/**
 * Renders {@code docs/types.md} from {@link ArrowToSpark} and {@link SparkToArrow}. Test code, not
 * shipped: {@link TypeMappingDocsTest} fails when the committed file differs, and rewrites it when
 * run with {@code -Dflightsql.updateDocs=true}. The Spark and Arrow type columns of its tables are
 * not written by hand: each row names an example type and asks the mapping what it maps to, and
 * each documented error is the message the mapping really raises.
 */
final class TypeMappingDocs {
  private static final TypeMappingOptions READ = TypeMappingOptions.defaults().withSparkTime(true);
  private static final TypeMappingOptions READ_NO_TIME = READ.withSparkTime(false);

  private final StringBuilder md = new StringBuilder();

  private TypeMappingDocs() {}

  static String render() {
    return new TypeMappingDocs().document();
  }

  private static Field field(String name, ArrowType type, Field... children) {
    return new Field(name, FieldType.nullable(type), Arrays.asList(children));
  }

  private static Field item(ArrowType type) {
    return field("item", type);
  }

  private static final Field INT32 = item(new ArrowType.Int(32, true));

  private String document() {
    md.append("# Types\n\n")
        .append("<!-- Generated from io.flightsql.spark.types.ArrowToSpark and SparkToArrow; do")
        .append(" not edit by hand.\n     Regenerate from the repository root with\n")
        .append("     mvn -q -pl connector -am test -Dtest=TypeMappingDocsTest")
        .append(" -Dsurefire.failIfNoSpecifiedTests=false -Dflightsql.updateDocs=true\n-->\n\n")
        .append("How each Arrow type a Flight SQL server sends is read into Spark, and how each")
        .append(" Spark type is sent as\nArrow. Reads follow the table in")
        .append(" `io.flightsql.spark.types.ArrowToSpark`, writes its inverse in\n`SparkToArrow`;")
        .append(" the Spark and Arrow types below are what that code returns for each")
        .append(" example. The\ncolumn vectors that read the values (`io.flightsql.spark.vector`)")
        .append(" read Arrow buffers in place: no\nrow is converted before Spark asks for it, and")
        .append(" strings are not copied.\n\n");
    readTable();
    options();
    values();
    errors();
    writeTable();
    return md.toString();
  }

  private void readRow(String arrow, Field example, TypeMappingOptions options, String notes) {
    DataType spark = ArrowToSpark.toSparkType(example, options);
    md.append("| ")
        .append(arrow)
        .append(" | `")
        .append(spark.sql())
        .append("` | ")
        .append(notes)
        .append(" |\n");
  }

  private void readRow(String arrow, ArrowType example, String notes) {
    readRow(arrow, field("c", example), READ, notes);
  }

  private void readTable() {
    md.append("## Reading: Arrow to Spark\n\n")
        .append("| Arrow type | Spark type | Notes |\n")
        .append("| --- | --- | --- |\n");
    readRow("bool", ArrowType.Bool.INSTANCE, "");
    readRow("int8", new ArrowType.Int(8, true), "");
    readRow("int16", new ArrowType.Int(16, true), "");
    readRow("int32", new ArrowType.Int(32, true), "");
    readRow("int64", new ArrowType.Int(64, true), "");
    readRow("uint8", new ArrowType.Int(8, false), "the next wider signed type holds every value");
    readRow("uint16", new ArrowType.Int(16, false), "");
    readRow("uint32", new ArrowType.Int(32, false), "");
    readRow("uint64", new ArrowType.Int(64, false), "the narrowest decimal that holds 2^64 - 1");
    readRow(
        "float16",
        new ArrowType.FloatingPoint(FloatingPointPrecision.HALF),
        "every half-precision value exactly");
    readRow(
        "float32",
        new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE),
        "NaN, ±Infinity and -0.0 kept");
    readRow(
        "float64",
        new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE),
        "NaN, ±Infinity and -0.0 kept");
    readRow(
        "decimal128(p, s)",
        new ArrowType.Decimal(20, 4, 128),
        "p ≤ 18 is read as an unscaled long, with no BigDecimal per value");
    readRow("decimal256(p, s), p ≤ 38", new ArrowType.Decimal(38, 4, 256), "");
    readRow(
        "decimal(p, s), s < 0",
        new ArrowType.Decimal(5, -3, 128),
        "the example is decimal(5, -3): the zeros of the negative scale become digits");
    readRow(
        "decimal256(p, s), p > 38",
        field("c", new ArrowType.Decimal(76, 10, 256)),
        TypeMappingOptions.of(DecimalOverflow.STRING, Nanoseconds.TRUNCATE),
        "with `decimalOverflow=string`: each value's exact decimal text");
    readRow(
        "decimal256(p, s), p > 38",
        field("c", new ArrowType.Decimal(76, 10, 256)),
        TypeMappingOptions.of(DecimalOverflow.NULL, Nanoseconds.TRUNCATE),
        "with `decimalOverflow=null`: DECIMAL(38, min(s, 38)), NULL where a value does not fit;"
            + " by default an error");
    readRow("utf8, large_utf8", ArrowType.Utf8.INSTANCE, "a `UTF8String` over the Arrow buffer");
    readRow(
        "utf8_view", ArrowType.Utf8View.INSTANCE, "inline and out-of-line views alike, not copied");
    readRow("binary, large_binary, binary_view", ArrowType.Binary.INSTANCE, "");
    readRow("fixed_size_binary(n)", new ArrowType.FixedSizeBinary(16), "");
    readRow("null", ArrowType.Null.INSTANCE, "every value NULL");
    readRow("date32", new ArrowType.Date(DateUnit.DAY), "");
    readRow(
        "date64",
        new ArrowType.Date(DateUnit.MILLISECOND),
        "milliseconds to days, rounding towards the past");
    readRow(
        "timestamp(unit, zone)",
        new ArrowType.Timestamp(TimeUnit.MICROSECOND, "Europe/Paris"),
        "an instant: the zone never shifts the value, whatever `spark.sql.session.timeZone` is");
    readRow(
        "timestamp(unit), no zone",
        new ArrowType.Timestamp(TimeUnit.MICROSECOND, null),
        "a local date-time, read as written");
    readRow(
        "time32(s)",
        new ArrowType.Time(TimeUnit.SECOND, 32),
        "with `spark.sql.timeType.enabled=true` (Spark 4.1+)");
    readRow("time32(ms)", new ArrowType.Time(TimeUnit.MILLISECOND, 32), "");
    readRow("time64(us), time64(ns)", new ArrowType.Time(TimeUnit.NANOSECOND, 64), "");
    readRow(
        "time32, time64",
        field("c", new ArrowType.Time(TimeUnit.MICROSECOND, 64)),
        READ_NO_TIME,
        "otherwise (Spark's default, and before 4.1): microseconds since midnight");
    readRow("duration(unit)", new ArrowType.Duration(TimeUnit.MILLISECOND), "microseconds");
    readRow("interval(year_month)", new ArrowType.Interval(IntervalUnit.YEAR_MONTH), "months");
    readRow(
        "interval(day_time)",
        new ArrowType.Interval(IntervalUnit.DAY_TIME),
        "has no months, so an exact duration: days × 24 h + milliseconds");
    readRow(
        "interval(month_day_nano)",
        new ArrowType.Interval(IntervalUnit.MONTH_DAY_NANO),
        "months, days and microseconds kept apart, as the server sent them");
    readRow("list<T>, large_list<T>", ArrowType.List.INSTANCE, INT32, "");
    readRow("fixed_size_list<T>[n]", new ArrowType.FixedSizeList(3), INT32, "");
    readRow(
        "list_view<T>, large_list_view<T>",
        ArrowType.ListView.INSTANCE,
        INT32,
        "views may overlap and come in any order");
    readRow(
        "struct<a: T, ...>",
        ArrowType.Struct.INSTANCE,
        field("a", new ArrowType.Int(32, true)),
        "a NULL struct and a struct of NULLs stay apart");
    readRow(
        "map<K, V>",
        new ArrowType.Map(false),
        new Field(
            "entries",
            FieldType.notNullable(ArrowType.Struct.INSTANCE),
            Arrays.asList(
                new Field("key", FieldType.notNullable(ArrowType.Utf8.INSTANCE), null),
                field("value", new ArrowType.Int(32, true)))),
        "keys are never NULL");
    readRow(
        "dictionary<T, indices>",
        new Field(
            "c",
            new FieldType(true, ArrowType.Utf8.INSTANCE, new DictionaryEncoding(0, false, null)),
            Collections.emptyList()),
        READ,
        "the value type, looked up through the dictionary per access (nothing decoded ahead),"
            + " following dictionaries the stream replaces between batches");
    readRow(
        "dense_union, sparse_union of null and T",
        new ArrowType.Union(UnionMode.Dense, new int[] {0, 1}),
        new Field[] {field("null", ArrowType.Null.INSTANCE), INT32},
        "a union whose members other than null share one type reads as that type; any other"
            + " union is an error, or STRING with `mixedUnions=string`");
    readRow(
        "run_end_encoded<ends, T>",
        ArrowType.RunEndEncoded.INSTANCE,
        new Field[] {item(new ArrowType.Int(32, true)), field("values", ArrowType.Utf8.INSTANCE)},
        "the values' type");
    readRow(
        "arrow.bool8 (extension over int8)",
        new Field(
            "c",
            new FieldType(
                true,
                new ArrowType.Int(8, true),
                null,
                Collections.singletonMap("ARROW:extension:name", "arrow.bool8")),
            null),
        READ,
        "non-zero is true; DuckDB sends it with `arrow_lossless_conversion`");
    readRow(
        "other extension types (arrow.uuid, arrow.json, arrow.opaque, ...)",
        new OpaqueType(new ArrowType.FixedSizeBinary(16), "uuid", "example"),
        "their storage type: arrow.uuid is binary, arrow.json a string");
    md.append("\n")
        .append("Nullability comes from the Arrow field, except that dictionary-encoded, union and")
        .append(" null columns,\nand every decimal read with `decimalOverflow=null`, are always")
        .append(" nullable. Nested types nest to any\ndepth: a list of maps of structs reads as")
        .append(" `ARRAY<MAP<..., STRUCT<...>>>`.\n\n");
  }

  private void readRow(String arrow, ArrowType example, Field child, String notes) {
    readRow(arrow, field("c", example, child), READ, notes);
  }

  private void readRow(String arrow, ArrowType example, Field[] children, String notes) {
    readRow(arrow, field("c", example, children), READ, notes);
  }

  private void options() {
    md.append("## Options that change the mapping\n\n")
        .append("| Option | Values | What it does |\n")
        .append("| --- | --- | --- |\n")
        .append("| `decimalOverflow` | `error` (default), `string`, `null` | Decimals wider than")
        .append(" 38 digits: refused while planning, read as exact text, or read as DECIMAL(38, s)")
        .append(" with NULL for values that do not fit. With `null`, any decimal value with more")
        .append(" digits than its Spark type reads as NULL instead of failing the task. |\n")
        .append("| `nanoseconds` | `truncate` (default), `error` | Timestamps, times, durations")
        .append(" and month_day_nano intervals in nanoseconds: digits below a microsecond are")
        .append(" dropped (rounding towards the past, so `-1.5 µs` reads as `-2 µs`), or the task")
        .append(" fails at the first value that is not a whole microsecond. |\n")
        .append("| `mixedUnions` | `error` (default), `string` | A union whose members have")
        .append(" different (scalar) types: refused while planning, or read as STRING, each value")
        .append(" as the text of whichever member holds it. arrow-go's SQLite example sends such a")
        .append(" union for every column without a declared type. |\n")
        .append("| `spark.sql.timeType.enabled` (Spark conf) | `false` (default), `true` | Arrow")
        .append(" times read as Spark's TIME type when `true` (Spark 4.1+); otherwise as BIGINT")
        .append(" microseconds since midnight. Decided when the query is planned. |\n\n");
  }

  private void values() {
    md.append("## Values\n\n")
        .append("- Unsigned integers and float16 are widened, so every value is kept exactly.\n")
        .append("- A decimal value with more digits than its declared precision (DuckDB sends")
        .append(" HUGEINT as\n  decimal128(38, 0), yet its extremes have 39 digits) fails the task")
        .append(" with an error naming the\n  column, instead of turning into NULL as Spark's")
        .append(" own row writer would; `decimalOverflow=null`\n  reads it as NULL.\n")
        .append("- Timestamps and dates keep their value whatever `spark.sql.session.timeZone` is:")
        .append(" an instant\n  stays the same instant, a local date-time the same wall-clock")
        .append(" reading. Seconds and\n  milliseconds are widened to microseconds; a value")
        .append(" outside Spark's range fails the task\n  naming the column.\n")
        .append(
            "- A time of day of 24:00:00 (which DuckDB allows) fails the task under Spark's TIME")
        .append(" type, naming the\n  column; read as BIGINT it is 86,400,000,000 microseconds.\n")
        .append("- Strings are not copied or validated: Spark reads the server's UTF-8 bytes as")
        .append(" they are.\n\n");
  }

  private void errors() {
    md.append("## Errors\n\n")
        .append("Types Spark cannot represent fail while the query is planned, before any task")
        .append(" runs, naming the\ncolumn (a dotted path for nested fields), its Arrow type")
        .append(" and the way out:\n\n");
    error(field("amount", new ArrowType.Decimal(76, 10, 256)));
    error(
        field(
            "event",
            ArrowType.Struct.INSTANCE,
            field(
                "payload",
                new ArrowType.Union(UnionMode.Dense, new int[] {0, 1}),
                field("i", new ArrowType.Int(32, true)),
                field("s", ArrowType.Utf8.INSTANCE))));
    md.append("Values met while reading fail the task with an `ArrowValueException` naming the")
        .append(" column, its\nArrow type, the value and the option that allows it, for")
        .append(" example:\n\n")
        .append("```\nColumn 'ts' (Arrow Timestamp(NANOSECOND, UTC)) holds the value 1001, which")
        .append(" has nanoseconds that\nSpark's microseconds cannot hold, and option")
        .append(" 'nanoseconds' is 'error'. Set it to 'truncate' to read\nsuch values truncated")
        .append(" to the microsecond.\n```\n\n");
  }

  private void error(Field field) {
    try {
      ArrowToSpark.toSparkType(field, READ);
      throw new IllegalStateException("The example " + field + " maps without an error");
    } catch (UnsupportedArrowTypeException e) {
      md.append("```\n").append(wrap(e.getMessage())).append("\n```\n\n");
    }
  }

  /** Wraps a message at about 100 characters, so the document reads without scrolling. */
  private static String wrap(String text) {
    StringBuilder out = new StringBuilder();
    int lineLength = 0;
    for (String word : text.split(" ")) {
      if (lineLength > 0 && lineLength + 1 + word.length() > 100) {
        out.append('\n');
        lineLength = 0;
      } else if (lineLength > 0) {
        out.append(' ');
        lineLength++;
      }
      out.append(word);
      lineLength += word.length();
    }
    return out.toString();
  }

  private void writeRow(DataType spark, String notes) {
    Field arrow = SparkToArrow.toArrowField("c", spark, true);
    md.append("| `")
        .append(spark.sql())
        .append("` | ")
        .append(arrow.getType())
        .append(arrow.getChildren().isEmpty() ? "" : " " + arrow.getChildren())
        .append(" | ")
        .append(notes)
        .append(" |\n");
  }

  private void writeTable() {
    md.append("## Writing: Spark to Arrow\n\n")
        .append("The mapping writes use. Every Spark type a read produces goes back to an Arrow")
        .append(" type that reads\nas the same Spark type; where several Arrow types read as")
        .append(" one Spark type, the plainest is\nsent.\n\n")
        .append("| Spark type | Arrow type | Notes |\n")
        .append("| --- | --- | --- |\n");
    writeRow(DataTypes.BooleanType, "");
    writeRow(DataTypes.ByteType, "");
    writeRow(DataTypes.ShortType, "");
    writeRow(DataTypes.IntegerType, "");
    writeRow(DataTypes.LongType, "");
    writeRow(DataTypes.FloatType, "");
    writeRow(DataTypes.DoubleType, "");
    writeRow(DataTypes.createDecimalType(38, 10), "always decimal128, Spark's decimals fit it");
    writeRow(DataTypes.StringType, "also CHAR and VARCHAR");
    writeRow(DataTypes.BinaryType, "");
    writeRow(DataTypes.DateType, "");
    writeRow(DataTypes.TimestampType, "an instant in UTC");
    writeRow(DataTypes.TimestampNTZType, "");
    writeRow(DataType.fromDDL("TIME(0)"), "Spark 4.1+");
    writeRow(DataType.fromDDL("TIME(3)"), "");
    writeRow(DataType.fromDDL("TIME(6)"), "");
    writeRow(
        DataTypes.createDayTimeIntervalType(),
        "any day-time interval; the fields (e.g. HOUR TO MINUTE) are not kept");
    writeRow(DataTypes.createYearMonthIntervalType(), "");
    writeRow(
        DataTypes.CalendarIntervalType,
        "Spark itself refuses to write it (`Cannot use \"INTERVAL\" type in the table schema`),"
            + " in every save mode: cast the column to STRING first");
    writeRow(DataTypes.NullType, "");
    writeRow(DataTypes.createArrayType(DataTypes.IntegerType, true), "");
    writeRow(
        DataTypes.createMapType(DataTypes.StringType, DataTypes.IntegerType, true),
        "keys not nullable");
    writeRow(new org.apache.spark.sql.types.StructType().add("a", DataTypes.IntegerType), "");
    md.append("\nUser-defined types are sent as their SQL type. Types with no Arrow counterpart")
        .append(" (VARIANT and the\ngeospatial types) are refused before any task runs, naming")
        .append(" the column.\n");
  }
}
