package io.flightsql.spark.client.metadata;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.flightsql.spark.client.transport.FlightUri;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/** Which table a name means among those it matches, and what a refusal says. */
class TableChoiceTest {
  private static final FlightUri SERVER = FlightUri.parse("grpc://db:31337");
  private static final TableRef ORDERS = new TableRef(null, null, "orders");
  private static final TableRef MAIN = new TableRef("memory", "main", "orders");
  private static final TableRef ANALYTICS = new TableRef("memory", "analytics", "orders");

  private static Supplier<CurrentSchema> current(String catalog, String schema) {
    return () -> new CurrentSchema(new ServerSchema(catalog, schema), "the query 'q'");
  }

  @Test
  void oneTableIsTheOneWithoutAskingTheServer() {
    AtomicInteger asked = new AtomicInteger();
    Supplier<CurrentSchema> current =
        () -> {
          asked.incrementAndGet();
          return new CurrentSchema(null, "nothing");
        };
    assertThat(TableChoice.choose(ORDERS, List.of(ANALYTICS), false, current, SERVER))
        .isEqualTo(ANALYTICS);
    assertThat(asked).hasValue(0);
  }

  @Test
  void severalTablesMeanTheOneInTheServersCurrentSchema() {
    assertThat(
            TableChoice.choose(
                ORDERS, List.of(ANALYTICS, MAIN), false, current("memory", "main"), SERVER))
        .isEqualTo(MAIN);
    assertThat(
            TableChoice.choose(
                ORDERS, List.of(ANALYTICS, MAIN), false, current(null, "analytics"), SERVER))
        .isEqualTo(ANALYTICS);
    // Derby lists no catalog, and says its schema in capitals.
    TableRef app = new TableRef(null, "APP", "ORDERS");
    TableRef other = new TableRef(null, "OTHER", "ORDERS");
    assertThat(TableChoice.choose(ORDERS, List.of(other, app), true, current(null, "APP"), SERVER))
        .isEqualTo(app);
  }

  @Test
  void aCurrentSchemaThatCannotBeEstablishedRefusesTheNameListingTheTables() {
    Supplier<CurrentSchema> unknown =
        () -> new CurrentSchema(null, "GetSessionOptions is not implemented");
    assertThatThrownBy(
            () -> TableChoice.choose(ORDERS, List.of(ANALYTICS, MAIN), false, unknown, SERVER))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "[flightsql] Table \"orders\" names 2 tables on grpc://db:31337:"
                + " \"memory\".\"analytics\".\"orders\", \"memory\".\"main\".\"orders\". The"
                + " server's SQL takes the one in its current schema, which could not be"
                + " established (GetSessionOptions is not implemented). Name the table with its"
                + " schema, as option 'dbtable' takes it (\"memory\".\"analytics\".\"orders\") or"
                + " as a catalog identifier (<catalog>.memory.analytics.orders), or set option"
                + " 'schema'.");
  }

  @Test
  void aCurrentSchemaHoldingNoneOfThemRefusesTheName() {
    assertThatThrownBy(
            () ->
                TableChoice.choose(
                    ORDERS, List.of(ANALYTICS, MAIN), false, current("memory", "sales"), SERVER))
        .hasMessageContaining(
            "none is in the server's current schema, \"memory\".\"sales\" (said by the query"
                + " 'q')");
  }

  @Test
  void twoSpellingsInTheCurrentSchemaAreRefusedWhenCaseIsIgnored() {
    TableRef upper = new TableRef(null, "APP", "ORDERS");
    TableRef lower = new TableRef(null, "APP", "orders");
    assertThatThrownBy(
            () ->
                TableChoice.choose(
                    ORDERS,
                    List.of(upper, lower, new TableRef(null, "X", "Orders")),
                    true,
                    current(null, "APP"),
                    SERVER))
        .hasMessageContaining("matches several tables on grpc://db:31337 when case is ignored")
        .hasMessageContaining("\"APP\".\"ORDERS\", \"APP\".\"orders\"");
  }
}
