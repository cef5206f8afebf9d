package io.flightsql.spark.client.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import java.util.Collections;
import org.junit.jupiter.api.Test;

class FlightUriTest {
  @Test
  void parsesTheThreeSchemes() {
    assertThat(FlightUri.parse("grpc://localhost:1").toString()).isEqualTo("grpc://localhost:1");
    assertThat(FlightUri.parse("grpc+tcp://localhost:2"))
        .isEqualTo(FlightUri.of("localhost", 2, false));
    assertThat(FlightUri.parse("GRPC+TLS://Example.COM:443/"))
        .isEqualTo(FlightUri.of("example.com", 443, true));
  }

  @Test
  void rejectsWhatCannotBeAServerAddress() {
    assertThatThrownBy(() -> FlightUri.parse("localhost:1234"))
        .hasMessageContaining("scheme 'localhost'");
    assertThatThrownBy(() -> FlightUri.parse("grpc://:1234"))
        .hasMessageContaining("host is missing");
    assertThatThrownBy(() -> FlightUri.parse("grpc://h:99999")).hasMessageContaining("port");
    assertThatThrownBy(() -> FlightUri.parse("grpc://h:1/db?token=x"))
        .hasMessageContaining("path, query");
    assertThatThrownBy(() -> FlightUri.parse("grpc://h :1"))
        .hasMessageContaining("not a valid URI");
  }

  @Test
  void endpointWithoutLocationsOrWithReuseConnectionReadsFromTheOriginalServer() {
    FlightUri original = FlightUri.parse("grpc://server:1");
    assertThat(EndpointTargets.resolve(original, Collections.emptyList()))
        .containsExactly(original);
    assertThat(
            EndpointTargets.resolve(original, Arrays.asList("arrow-flight-reuse-connection://?")))
        .containsExactly(original);
  }

  @Test
  void locationsAreTriedInOrderWithoutDuplicates() {
    FlightUri original = FlightUri.parse("grpc://server:1");
    assertThat(
            EndpointTargets.resolve(
                original,
                Arrays.asList(
                    "grpc+tcp://a:2",
                    "grpc+tls://b:3",
                    "grpc://a:2",
                    "arrow-flight-reuse-connection://?")))
        .containsExactly(FlightUri.of("a", 2, false), FlightUri.of("b", 3, true), original);
  }

  @Test
  void unusableLocationSchemeIsNamed() {
    assertThatThrownBy(
            () ->
                EndpointTargets.resolve(
                    FlightUri.parse("grpc://s:1"), Arrays.asList("grpc+unix:///tmp/s")))
        .hasMessageContaining("endpoint location")
        .hasMessageContaining("grpc+unix");
  }
}
