package io.flightsql.spark.write;

import java.util.Collections;
import java.util.EnumSet;
import java.util.Set;
import org.apache.spark.sql.connector.catalog.SupportsWrite;
import org.apache.spark.sql.connector.catalog.TableCapability;
import org.apache.spark.sql.connector.write.LogicalWriteInfo;
import org.apache.spark.sql.connector.write.Write;
import org.apache.spark.sql.connector.write.WriteBuilder;
import org.apache.spark.sql.types.StructType;

/**
 * The target of the DataSourceV2 append that carries out a planned write ({@link WritePlan}). Users
 * do not see it: {@code df.write.format("flightsql")} goes through {@link
 * FlightSqlDataSource#createRelation}, which applies the save mode and then appends through this
 * table. Driver only.
 */
final class FlightSqlWriteTable implements SupportsWrite {
  private static final Set<TableCapability> CAPABILITIES =
      Collections.unmodifiableSet(EnumSet.of(TableCapability.BATCH_WRITE));

  private final StructType schema;
  private final WritePlan plan;

  FlightSqlWriteTable(StructType schema, WritePlan plan) {
    this.schema = schema;
    this.plan = plan;
  }

  @Override
  public String name() {
    return "flightsql:" + plan.target();
  }

  @Override
  @SuppressWarnings("deprecation")
  public StructType schema() {
    return schema;
  }

  @Override
  public Set<TableCapability> capabilities() {
    return CAPABILITIES;
  }

  @Override
  public WriteBuilder newWriteBuilder(LogicalWriteInfo info) {
    StructType writeSchema = info.schema();
    return new WriteBuilder() {
      @Override
      public Write build() {
        return new FlightSqlWrite(plan, writeSchema);
      }
    };
  }
}
