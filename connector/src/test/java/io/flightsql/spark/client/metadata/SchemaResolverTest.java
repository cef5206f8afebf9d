package io.flightsql.spark.client.metadata;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.flightsql.spark.client.transport.FlightSqlConnectorException;
import io.flightsql.spark.client.transport.FlightUri;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;
import org.apache.arrow.flight.CallStatus;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;

class SchemaResolverTest {
  private static final FlightUri H = FlightUri.parse("grpc://h:1");
  private static final Schema SCHEMA =
      new Schema(Collections.singletonList(Field.nullable("x", new ArrowType.Int(32, true))));
  private static final Schema EMPTY = new Schema(Collections.emptyList());
  private final List<String> called = new ArrayList<>();

  private SchemaResolver.Source source(String rpc, Supplier<Optional<Schema>> answer) {
    return SchemaResolver.Source.of(
        rpc,
        () -> {
          called.add(rpc);
          return answer.get();
        });
  }

  private static Supplier<Optional<Schema>> failing(CallStatus status, String message) {
    return () -> {
      throw status.withDescription(message).toRuntimeException();
    };
  }

  @Test
  void stopsAtTheFirstSourceWithASchema() {
    Schema schema =
        SchemaResolver.resolve(
            Arrays.asList(
                source("GetSchema", () -> Optional.of(SCHEMA)),
                source("GetFlightInfo", () -> Optional.of(EMPTY))),
            H);
    assertThat(schema).isEqualTo(SCHEMA);
    assertThat(called).containsExactly("GetSchema");
  }

  @Test
  void fallsThroughUnimplementedAndMissingSchemas() {
    Schema schema =
        SchemaResolver.resolve(
            Arrays.asList(
                source("GetSchema", failing(CallStatus.UNIMPLEMENTED, "GetSchema not implemented")),
                source("CreatePreparedStatement", () -> Optional.of(EMPTY)),
                source("GetFlightInfo", Optional::empty),
                source("DoGet", () -> Optional.of(SCHEMA))),
            H);
    assertThat(schema).isEqualTo(SCHEMA);
    assertThat(called)
        .containsExactly("GetSchema", "CreatePreparedStatement", "GetFlightInfo", "DoGet");
  }

  @Test
  void aRejectedQueryEndsTheSearchWithTheServersOwnError() {
    assertThatThrownBy(
            () ->
                SchemaResolver.resolve(
                    Arrays.asList(
                        source("GetSchema", failing(CallStatus.UNIMPLEMENTED, "not implemented")),
                        source(
                            "CreatePreparedStatement",
                            failing(CallStatus.INVALID_ARGUMENT, "no such table: foo")),
                        source(
                            "GetFlightInfo",
                            failing(CallStatus.INVALID_ARGUMENT, "no such table: foo"))),
                    H))
        .isInstanceOf(FlightSqlConnectorException.class)
        .hasMessage(
            "[flightsql] CreatePreparedStatement failed for grpc://h:1: INVALID_ARGUMENT: no such table: foo")
        .satisfies(e -> assertThat(e.getSuppressed()).hasSize(1));
    assertThat(called).containsExactly("GetSchema", "CreatePreparedStatement");
  }

  @Test
  void vagueInternalErrorsPassToTheNextWay() {
    Schema schema =
        SchemaResolver.resolve(
            Arrays.asList(
                source(
                    "GetSchema",
                    failing(CallStatus.INTERNAL, "There was an error servicing your request.")),
                source("GetFlightInfo", () -> Optional.of(SCHEMA))),
            H);
    assertThat(schema).isEqualTo(SCHEMA);
  }

  @Test
  void anUnreachableServerEndsTheSearchAtOnce() {
    assertThatThrownBy(
            () ->
                SchemaResolver.resolve(
                    Arrays.asList(
                        source("GetSchema", failing(CallStatus.UNAVAILABLE, "io exception")),
                        source("GetFlightInfo", () -> Optional.of(SCHEMA))),
                    H))
        .hasMessageStartingWith(
            "[flightsql] GetSchema failed for grpc://h:1: UNAVAILABLE: io exception");
    assertThat(called).containsExactly("GetSchema");
  }

  @Test
  void noSourceWithASchemaSaysWhatWasTried() {
    assertThatThrownBy(
            () ->
                SchemaResolver.resolve(
                    Arrays.asList(
                        source("GetSchema", failing(CallStatus.UNIMPLEMENTED, "no")),
                        source("GetFlightInfo", Optional::empty)),
                    H))
        .hasMessage(
            "[flightsql] Schema inference failed for grpc://h:1: UNKNOWN: the server gave no"
                + " result schema for the query (tried GetSchema, GetFlightInfo). Give the read its"
                + " schema (DataFrameReader.schema) to skip inference");
  }
}
