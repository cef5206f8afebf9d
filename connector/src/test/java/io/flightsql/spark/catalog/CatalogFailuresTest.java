package io.flightsql.spark.catalog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.flightsql.spark.testing.ArrowLeakCheckExtension;
import io.flightsql.spark.testing.EmbeddedServerExtension;
import io.flightsql.spark.testing.SparkSessionExtension;
import org.apache.arrow.flight.CallHeaders;
import org.apache.arrow.flight.CallInfo;
import org.apache.arrow.flight.CallStatus;
import org.apache.arrow.flight.FlightMethod;
import org.apache.arrow.flight.FlightServerMiddleware;
import org.apache.arrow.flight.RequestContext;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The catalog tells a table that is not there from a server that cannot say: on a server without
 * GetTables, where a table is looked for with a query that returns no row, a refusal of that query
 * for want of permission or of a connection surfaces as itself, with the server's words, and never
 * as "table not found".
 */
@ExtendWith(ArrowLeakCheckExtension.class)
class CatalogFailuresTest {
  @RegisterExtension
  @Order(1)
  static final EmbeddedServerExtension duckDb =
      EmbeddedServerExtension.duckDb(
          server ->
              server
                  .lineitemRows(0)
                  .without("GetTables")
                  .middleware(
                      FlightServerMiddleware.Key.of("refusals"), CatalogFailuresTest::refuse));

  @RegisterExtension
  @Order(2)
  static final SparkSessionExtension spark = SparkSessionExtension.local();

  /** The server's answer to every GetSchema while set: how it refuses to describe a table. */
  private static volatile CallStatus refusal;

  @BeforeAll
  static void tableAndCatalog() {
    duckDb.server().execute("CREATE TABLE orders (id INTEGER)");
    SparkSession session = spark.session();
    session.conf().set("spark.sql.catalog.strict", "io.flightsql.spark.FlightSqlCatalog");
    session.conf().set("spark.sql.catalog.strict.uri", duckDb.uri());
    session.conf().set("spark.sql.catalog.strict.maxRetries", "1");
  }

  private static FlightServerMiddleware refuse(
      CallInfo info, CallHeaders headers, RequestContext context) {
    CallStatus status = refusal;
    if (status != null && info.method() == FlightMethod.GET_SCHEMA) {
      throw status.toRuntimeException();
    }
    return new FlightServerMiddleware() {
      @Override
      public void onBeforeSendingHeaders(CallHeaders outgoing) {}

      @Override
      public void onCallCompleted(CallStatus status) {}

      @Override
      public void onCallErrored(Throwable err) {}
    };
  }

  @AfterEach
  void allowAgain() {
    refusal = null;
  }

  @Test
  void aTableTheServerMayNotDescribeIsNotCalledMissing() {
    assertThat(
            spark
                .session()
                .sql("SELECT count(*) FROM strict.memory.main.orders")
                .first()
                .getLong(0))
        .isZero();
    refusal = CallStatus.UNAUTHORIZED.withDescription("user anonymous may not describe orders");
    assertThatThrownBy(
            () -> spark.session().sql("DESCRIBE TABLE strict.memory.main.orders").collect())
        .hasMessageContaining("[flightsql] GetSchema failed for " + duckDb.uri())
        .hasMessageContaining("UNAUTHORIZED: user anonymous may not describe orders")
        .hasMessageContaining("check the user's permissions")
        .hasMessageNotContaining("TABLE_OR_VIEW_NOT_FOUND");
    assertThatThrownBy(() -> spark.session().catalog().tableExists("strict.memory.main.orders"))
        .hasMessageContaining("UNAUTHORIZED: user anonymous may not describe orders");
  }

  @Test
  void aServerThatCannotBeReachedIsNotCalledEmpty() {
    refusal = CallStatus.UNAVAILABLE.withDescription("the planner is restarting");
    assertThatThrownBy(
            () -> spark.session().sql("DESCRIBE TABLE strict.memory.main.orders").collect())
        .hasMessageContaining("UNAVAILABLE: the planner is restarting")
        .hasMessageNotContaining("TABLE_OR_VIEW_NOT_FOUND");
  }

  @Test
  void aTableTheServerDoesNotHaveIsStillMissing() {
    assertThat(spark.session().catalog().tableExists("strict.memory.main.no_such_table")).isFalse();
    assertThatThrownBy(
            () -> spark.session().sql("DESCRIBE TABLE strict.memory.main.no_such_table").collect())
        .isInstanceOf(org.apache.spark.sql.AnalysisException.class)
        .hasMessageContaining("TABLE_OR_VIEW_NOT_FOUND")
        .hasMessageContaining("no_such_table");
  }
}
