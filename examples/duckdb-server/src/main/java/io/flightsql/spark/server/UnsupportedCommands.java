package io.flightsql.spark.server;

import static io.flightsql.spark.server.CallRunner.unsupported;

import org.apache.arrow.flight.Criteria;
import org.apache.arrow.flight.FlightDescriptor;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.sql.FlightSqlProducer;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandGetCrossReference;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandGetExportedKeys;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandGetImportedKeys;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandGetPrimaryKeys;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandGetXdbcTypeInfo;

/**
 * The Flight SQL commands that the server does not support, in one place: GetXdbcTypeInfo,
 * GetPrimaryKeys, GetExportedKeys, GetImportedKeys, GetCrossReference and ListFlights. Each answers
 * {@code UNIMPLEMENTED} with a message naming it. {@link DuckDbFlightSqlProducer} implements the
 * rest.
 */
abstract class UnsupportedCommands implements FlightSqlProducer {

  /**
   * Narrows {@link AutoCloseable#close()}: the producer's close throws no checked exception, in
   * particular no {@link InterruptedException}.
   */
  @Override
  public abstract void close();

  @Override
  public FlightInfo getFlightInfoTypeInfo(
      CommandGetXdbcTypeInfo command, CallContext context, FlightDescriptor descriptor) {
    throw unsupported("GetXdbcTypeInfo");
  }

  @Override
  public void getStreamTypeInfo(
      CommandGetXdbcTypeInfo command, CallContext context, ServerStreamListener listener) {
    listener.error(unsupported("GetXdbcTypeInfo"));
  }

  @Override
  public FlightInfo getFlightInfoPrimaryKeys(
      CommandGetPrimaryKeys command, CallContext context, FlightDescriptor descriptor) {
    throw unsupported("GetPrimaryKeys");
  }

  @Override
  public void getStreamPrimaryKeys(
      CommandGetPrimaryKeys command, CallContext context, ServerStreamListener listener) {
    listener.error(unsupported("GetPrimaryKeys"));
  }

  @Override
  public FlightInfo getFlightInfoExportedKeys(
      CommandGetExportedKeys command, CallContext context, FlightDescriptor descriptor) {
    throw unsupported("GetExportedKeys");
  }

  @Override
  public void getStreamExportedKeys(
      CommandGetExportedKeys command, CallContext context, ServerStreamListener listener) {
    listener.error(unsupported("GetExportedKeys"));
  }

  @Override
  public FlightInfo getFlightInfoImportedKeys(
      CommandGetImportedKeys command, CallContext context, FlightDescriptor descriptor) {
    throw unsupported("GetImportedKeys");
  }

  @Override
  public void getStreamImportedKeys(
      CommandGetImportedKeys command, CallContext context, ServerStreamListener listener) {
    listener.error(unsupported("GetImportedKeys"));
  }

  @Override
  public FlightInfo getFlightInfoCrossReference(
      CommandGetCrossReference command, CallContext context, FlightDescriptor descriptor) {
    throw unsupported("GetCrossReference");
  }

  @Override
  public void getStreamCrossReference(
      CommandGetCrossReference command, CallContext context, ServerStreamListener listener) {
    listener.error(unsupported("GetCrossReference"));
  }

  @Override
  public void listFlights(
      CallContext context, Criteria criteria, StreamListener<FlightInfo> listener) {
    listener.onError(unsupported("ListFlights"));
  }
}
