package io.flightsql.spark.client.transport;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.net.ConnectException;
import org.apache.arrow.flight.CallStatus;
import org.apache.arrow.flight.FlightStatusCode;
import org.junit.jupiter.api.Test;

class FlightErrorsTest {
  private static final FlightUri SERVER = FlightUri.of("db.internal", 32010, false);

  @Test
  void messageNamesRpcServerStatusAndServerMessage() {
    FlightSqlConnectorException e =
        FlightErrors.rpcFailed(
            "GetFlightInfo",
            SERVER,
            CallStatus.INVALID_ARGUMENT
                .withDescription("Parser Error: syntax error")
                .toRuntimeException());
    assertThat(e.getMessage())
        .isEqualTo(
            "[flightsql] GetFlightInfo failed for grpc://db.internal:32010: INVALID_ARGUMENT:"
                + " Parser Error: syntax error");
    assertThat(e.statusCode()).isEqualTo("INVALID_ARGUMENT");
    assertThat(e.serverMessage()).isEqualTo("Parser Error: syntax error");
  }

  @Test
  void unavailableAddsTheRootCauseAndWhatToCheck() {
    FlightSqlConnectorException e =
        FlightErrors.rpcFailed(
            "GetSchema",
            SERVER,
            CallStatus.UNAVAILABLE
                .withDescription("io exception")
                .withCause(new ConnectException("Connection refused: db.internal/10.0.0.1:32010"))
                .toRuntimeException());
    assertThat(e.getMessage())
        .startsWith(
            "[flightsql] GetSchema failed for grpc://db.internal:32010: UNAVAILABLE: io exception")
        .contains("Connection refused")
        .contains("option 'uri'");
  }

  @Test
  void theWrappedExceptionSerializesWithItsStatus() throws Exception {
    FlightSqlConnectorException e =
        FlightErrors.rpcFailed(
            "DoGet", SERVER, CallStatus.INTERNAL.withDescription("boom").toRuntimeException());
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
      out.writeObject(e);
    }
    try (ObjectInputStream in =
        new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
      FlightSqlConnectorException copy = (FlightSqlConnectorException) in.readObject();
      assertThat(copy.getMessage()).isEqualTo(e.getMessage());
      assertThat(copy.statusCode()).isEqualTo("INTERNAL");
      assertThat(copy.getCause().getMessage()).contains("FlightRuntimeException").contains("boom");
    }
  }

  @Test
  void authenticationTimeoutAndTlsFailuresNameTheOptionsToCheck() {
    assertThat(
            FlightErrors.rpcFailed(
                    "GetFlightInfo",
                    SERVER,
                    CallStatus.UNAUTHENTICATED.withDescription("bad token").toRuntimeException())
                .getMessage())
        .endsWith(
            "UNAUTHENTICATED: bad token. Check the credentials: options 'username' and"
                + " 'password' (or 'passwordEnv', 'passwordFile'), or 'token' (or 'tokenEnv',"
                + " 'tokenFile')");
    assertThat(
            FlightErrors.rpcFailed(
                    "GetFlightInfo",
                    SERVER,
                    CallStatus.TIMED_OUT.withDescription("deadline exceeded").toRuntimeException())
                .getMessage())
        .contains("TIMED_OUT: deadline exceeded. The call passed its deadline (gRPC")
        .contains("option 'callTimeout'");
    assertThat(
            FlightErrors.rpcFailed(
                    "GetSchema",
                    SERVER,
                    CallStatus.UNAVAILABLE
                        .withDescription("io exception")
                        .withCause(
                            new javax.net.ssl.SSLHandshakeException(
                                "PKIX path building failed: unable to find valid certification"
                                    + " path to requested target"))
                        .toRuntimeException())
                .getMessage())
        .contains("option 'tlsRootCerts'")
        .contains("'disableCertificateVerification'");
    assertThat(
            FlightErrors.rpcFailed(
                    "GetSchema",
                    SERVER,
                    CallStatus.UNAVAILABLE
                        .withDescription("ssl exception")
                        .withCause(
                            new javax.net.ssl.SSLHandshakeException(
                                "Received fatal alert: certificate_required"))
                        .toRuntimeException())
                .getMessage())
        .contains("options 'clientCertificate' and 'clientKey'");
  }

  @Test
  void aFailureWrappedInAnotherExceptionKeepsTheStatusOfTheServer() {
    RuntimeException wrapped =
        new IllegalStateException(
            "Closing a stream of grpc://db.internal:32010 failed",
            CallStatus.UNAVAILABLE.withDescription("Network closed").toRuntimeException());
    FlightSqlConnectorException e = FlightErrors.rpcFailed("DoGet", SERVER, wrapped);
    assertThat(e.statusCode()).isEqualTo("UNAVAILABLE");
    assertThat(e.getMessage())
        .startsWith(
            "[flightsql] DoGet failed for grpc://db.internal:32010: UNAVAILABLE: Network closed")
        .contains("option 'uri'")
        .doesNotContain("UNKNOWN");
    assertThat(FlightErrors.isUnavailable(wrapped)).isTrue();
    assertThat(FlightErrors.isAboutTheCall(wrapped)).isTrue();
    assertThat(FlightErrors.isUnimplemented(new RuntimeException(e))).isFalse();
    assertThat(FlightErrors.statusOf(new IllegalStateException("no status"))).isEqualTo("UNKNOWN");
  }

  @Test
  void theHelperWritesTheOneFormOfEveryError() {
    FlightSqlConnectorException e =
        FlightErrors.failure(
            "Planning",
            SERVER,
            FlightStatusCode.TIMED_OUT,
            "the query was not planned within option 'queryTimeout' (1000 ms)",
            "Raise 'queryTimeout'",
            CallStatus.TIMED_OUT.withDescription("deadline").toRuntimeException());
    assertThat(e)
        .hasMessage(
            "[flightsql] Planning failed for grpc://db.internal:32010: TIMED_OUT: the query was not"
                + " planned within option 'queryTimeout' (1000 ms). Raise 'queryTimeout'");
    assertThat(e.statusCode()).isEqualTo("TIMED_OUT");
    assertThat(e.serverMessage())
        .isEqualTo("the query was not planned within option 'queryTimeout' (1000 ms)");
    assertThat(e.getCause()).hasMessage("org.apache.arrow.flight.FlightRuntimeException: deadline");
    assertThat(
            FlightErrors.failure(
                "DoPut", SERVER, FlightStatusCode.CANCELLED, "interrupted", null, null))
        .hasMessage("[flightsql] DoPut failed for grpc://db.internal:32010: CANCELLED: interrupted")
        .hasNoCause();
    assertThat(FlightErrors.message("Catalog 'c' does not alter tables"))
        .isEqualTo("[flightsql] Catalog 'c' does not alter tables");
  }

  @Test
  void aResetStreamIsRetryableAndAboutTheCallButOtherInternalErrorsAreNeither() {
    RuntimeException reset =
        CallStatus.INTERNAL
            .withDescription("RST_STREAM closed stream. HTTP/2 error code: INTERNAL_ERROR")
            .toRuntimeException();
    RuntimeException goReset =
        CallStatus.INTERNAL
            .withDescription("stream terminated by RST_STREAM with error code: INTERNAL_ERROR")
            .toRuntimeException();
    RuntimeException query =
        CallStatus.INTERNAL.withDescription("Binder Error: no such column").toRuntimeException();
    assertThat(FlightErrors.isRetryable(reset)).isTrue();
    assertThat(FlightErrors.isRetryable(goReset)).isTrue();
    assertThat(FlightErrors.isRetryable(FlightErrors.rpcFailed("GetFlightInfo", SERVER, reset)))
        .isTrue();
    assertThat(FlightErrors.isAboutTheCall(reset)).isTrue();
    assertThat(FlightErrors.isRetryable(query)).isFalse();
    assertThat(FlightErrors.isAboutTheCall(query)).isFalse();
    assertThat(
            FlightErrors.isAboutTheCall(
                CallStatus.RESOURCE_EXHAUSTED
                    .withDescription("too_many_pings")
                    .toRuntimeException()))
        .isTrue();
  }

  @Test
  void aConnectionClosedByKeepaliveNamesTheOption() {
    assertThat(
            FlightErrors.rpcFailed(
                "GetFlightInfo",
                SERVER,
                CallStatus.UNAVAILABLE
                    .withDescription("Keepalive failed. The connection is likely gone")
                    .toRuntimeException()))
        .hasMessageContaining("UNAVAILABLE: Keepalive failed. The connection is likely gone.")
        .hasMessageContaining("went silent for option 'keepAliveTime'")
        .hasMessageContaining("within 20 s more");
  }
}
