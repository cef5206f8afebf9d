package io.flightsql.spark;

import io.flightsql.spark.client.FlightSqlSession;
import io.flightsql.spark.client.transport.Warmup;
import io.flightsql.spark.config.FlightSqlReadConfig;
import io.flightsql.spark.config.FlightSqlWriteConfig;
import io.flightsql.spark.config.OptionSources;
import io.flightsql.spark.dialect.Dialects;
import io.flightsql.spark.read.FlightSqlTable;
import io.flightsql.spark.read.SourceQuery;
import io.flightsql.spark.types.ArrowToSpark;
import io.flightsql.spark.types.ComparableColumns;
import io.flightsql.spark.types.SparkToArrow;
import io.flightsql.spark.types.UnsupportedSparkTypeException;
import io.flightsql.spark.write.DataFrameWrite;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SQLContext;
import org.apache.spark.sql.SaveMode;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.connector.catalog.Table;
import org.apache.spark.sql.connector.catalog.TableProvider;
import org.apache.spark.sql.connector.expressions.Transform;
import org.apache.spark.sql.sources.BaseRelation;
import org.apache.spark.sql.sources.CreatableRelationProvider;
import org.apache.spark.sql.sources.DataSourceRegister;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import scala.Tuple2;

/**
 * The entry point Spark finds by the short name {@code flightsql}: {@code
 * spark.read.format("flightsql")}, {@code CREATE TEMPORARY VIEW ... USING flightsql}, and {@code
 * df.write.format("flightsql")}. Runs on the driver. Options may also come from session
 * configuration {@code spark.datasource.flightsql.*}, which explicit options override: reads and
 * writes alike merge the two with {@link OptionSources}, which documents the order.
 *
 * <p>Writes come in through {@link #createRelation}, Spark's entry for sources that handle every
 * save mode themselves: {@link DataFrameWrite} plans the write, runs its tasks as one Spark job and
 * commits it, all within this one call. Streaming reads and writes ({@code spark.readStream},
 * {@code df.writeStream}) go through the table, whose scan makes the stream and whose write builder
 * the streaming sink (package {@code stream}).
 */
public final class FlightSqlDataSource
    implements TableProvider, DataSourceRegister, CreatableRelationProvider {
  private static final Logger LOG = LoggerFactory.getLogger(FlightSqlDataSource.class);

  /**
   * The last schema this instance inferred, with its Arrow form's comparable columns: Spark asks
   * the same provider instance for the schema and then for the table, and the scan builder needs to
   * know which columns it may push filters on without asking the server again.
   */
  private StructType inferredSchema;

  private Set<String> inferredComparable;

  public FlightSqlDataSource() {
    Warmup.start();
  }

  @Override
  public String shortName() {
    return "flightsql";
  }

  /** Asks the server for the result schema of the query (or table) and maps it to Spark types. */
  @Override
  public StructType inferSchema(CaseInsensitiveStringMap options) {
    FlightSqlReadConfig config =
        FlightSqlReadConfig.from(
            withSessionConf(SparkSession.active(), options.asCaseSensitiveMap()));
    Schema arrowSchema;
    try (FlightSqlSession session = FlightSqlSession.open(config.connection(), "schema")) {
      String sql =
          SourceQuery.sql(
              config,
              session.sessionHasDefaults(),
              () -> Dialects.resolve(config.dialect(), session.capabilities()).dialect());
      // Nothing run here serves the read: each action plans its query and reads its own rows.
      arrowSchema = session.resultSchema(sql);
    }
    StructType schema = ArrowToSpark.toSparkSchema(arrowSchema, config.typeOptions());
    inferredSchema = schema;
    inferredComparable = ComparableColumns.of(arrowSchema, schema);
    LOG.info("Schema of {} from {}: {}", config.displayName(), config.uri(), schema.simpleString());
    return schema;
  }

  /**
   * A read with a schema of the user's is matched by name against the server's columns when Spark
   * builds its scan, while it optimizes the read; a write, which hands its DataFrame's schema
   * before Spark turns to {@link #createRelation}, never asks, and makes no round trip here.
   */
  @Override
  public boolean supportsExternalMetadata() {
    return true;
  }

  @Override
  public Table getTable(
      StructType schema, Transform[] partitioning, Map<String, String> properties) {
    Map<String, String> options = withSessionConf(SparkSession.active(), properties);
    FlightSqlReadConfig config = FlightSqlReadConfig.from(options);
    if (!schema.equals(inferredSchema)) {
      // Never bound by position: a column could show another one's values.
      return FlightSqlTable.withGivenSchema(schema, config, options);
    }
    return new FlightSqlTable(schema, config, inferredComparable, null, options);
  }

  /**
   * Every type the Spark-to-Arrow mapping knows can be written, intervals and TIME included. Spark
   * 4.0 added this to {@link CreatableRelationProvider} and asks it before a write; Spark 3.5 has
   * no such method, hence no {@code @Override}, so that the connector compiles against both.
   */
  public boolean supportsDataType(DataType type) {
    try {
      SparkToArrow.toArrowField("c", type, true);
      return true;
    } catch (UnsupportedSparkTypeException e) {
      return false;
    }
  }

  @Override
  public BaseRelation createRelation(
      SQLContext sqlContext,
      SaveMode mode,
      scala.collection.immutable.Map<String, String> parameters,
      Dataset<Row> data) {
    Map<String, String> options = withSessionConf(sqlContext.sparkSession(), toJava(parameters));
    DataFrameWrite.save(FlightSqlWriteConfig.from(options), mode, data);
    return new WrittenRelation(sqlContext, data.schema());
  }

  /**
   * The options of a read or write over the session's {@code spark.datasource.flightsql.*}
   * configuration. Reads take the active session: Spark resolves a read while its session is the
   * active one.
   */
  private static Map<String, String> withSessionConf(
      SparkSession session, Map<String, String> options) {
    return OptionSources.explicit(options)
        .withSessionConf(toJava(session.conf().getAll()))
        .merged();
  }

  /**
   * A Scala map as a Java one, by its iterator: the only Scala collection API that Scala 2.12 and
   * 2.13 share in binary form, where Scala 2.13's {@code scala.jdk.javaapi.CollectionConverters}
   * does not exist on 2.12 and 2.12's {@code JavaConverters} is deprecated on 2.13.
   */
  private static Map<String, String> toJava(scala.collection.immutable.Map<String, String> map) {
    Map<String, String> copy = new LinkedHashMap<>();
    scala.collection.Iterator<Tuple2<String, String>> entries = map.iterator();
    while (entries.hasNext()) {
      Tuple2<String, String> entry = entries.next();
      copy.put(entry._1(), entry._2());
    }
    return copy;
  }

  /** What {@link #createRelation} returns: Spark only asks it for its schema. */
  private static final class WrittenRelation extends BaseRelation {
    private final SQLContext sqlContext;
    private final StructType schema;

    WrittenRelation(SQLContext sqlContext, StructType schema) {
      this.sqlContext = sqlContext;
      this.schema = schema;
    }

    @Override
    public SQLContext sqlContext() {
      return sqlContext;
    }

    @Override
    public StructType schema() {
      return schema;
    }
  }
}
