package io.flightsql.spark.write;

import io.flightsql.spark.config.FlightSqlWriteConfig;
import io.flightsql.spark.types.SparkToArrow;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SaveMode;
import org.apache.spark.sql.connector.catalog.Table;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/**
 * The write path's entry for {@code df.write.format("flightsql").mode(...).save()}: checks and
 * prepares the table as the save mode says (on the driver, before any task runs), then streams the
 * rows through a DataSourceV2 append whose table ({@link FlightSqlWriteTable}) gives tasks Spark's
 * commit protocol and the job a rows-written metric. Driver only.
 */
public final class FlightSqlSaveMode {
  /** Spark's setting for how names match, which writes follow as Spark's JDBC source does. */
  private static final String CASE_SENSITIVE = "spark.sql.caseSensitive";

  private FlightSqlSaveMode() {}

  /**
   * Writes {@code data} as {@code mode} says.
   *
   * @param options the write's options, session configuration included
   * @param format the data source class through which the nested append goes
   */
  public static void save(
      FlightSqlWriteConfig config,
      Map<String, String> options,
      SaveMode mode,
      Dataset<Row> data,
      String format) {
    StructType schema = data.schema();
    // Fails naming the column, before anything reaches the server, for a type Arrow cannot carry.
    SparkToArrow.toArrowSchema(schema);
    boolean caseSensitive =
        Boolean.parseBoolean(data.sparkSession().conf().get(CASE_SENSITIVE, "false"));
    WritePlanner planner = new WritePlanner(config, schema, caseSensitive);
    WritePlan plan = planner.plan(mode);
    if (plan == null) {
      return;
    }
    Dataset<Row> rows = planner.columns().map(match -> match.apply(data)).orElse(data);
    plan.register();
    try {
      Map<String, String> writeOptions = new HashMap<>(options);
      writeOptions.put(WritePlan.PLAN_OPTION, plan.id());
      rows.write().format(format).options(writeOptions).mode(SaveMode.Append).save();
    } finally {
      plan.unregister();
    }
  }

  /**
   * The table of the nested append that {@link #save} started, when {@code properties} name its
   * plan; empty for any other table the data source is asked for.
   */
  public static Optional<Table> appendTable(StructType schema, Map<String, String> properties) {
    String planId = new CaseInsensitiveStringMap(properties).get(WritePlan.PLAN_OPTION);
    return planId == null
        ? Optional.empty()
        : Optional.of(new FlightSqlWriteTable(schema, WritePlan.registered(planId)));
  }
}
