package io.flightsql.spark.server;

import static io.flightsql.spark.server.CallRunner.queryFailed;

import com.google.protobuf.Any;
import com.google.protobuf.Message;
import java.sql.SQLException;
import java.util.List;
import org.apache.arrow.flight.FlightDescriptor;
import org.apache.arrow.flight.FlightEndpoint;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightProducer.ServerStreamListener;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.Ticket;
import org.apache.arrow.flight.sql.FlightSqlProducer.Schemas;
import org.apache.arrow.flight.sql.SqlInfoBuilder;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandGetCatalogs;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandGetDbSchemas;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandGetSqlInfo;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandGetTableTypes;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandGetTables;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * The server and catalog metadata commands: GetSqlInfo ({@link DuckDbSqlInfo}), GetCatalogs,
 * GetDbSchemas, GetTables and GetTableTypes ({@link DuckDbCatalog}). Each FlightInfo has a single
 * endpoint whose ticket is the command itself, which DoGet then answers from DuckDB.
 *
 * <p>Thread-safe.
 */
final class MetadataCommands {

  private final CallRunner runner;
  private final SqlInfoBuilder sqlInfo;
  private final DuckDbCatalog catalog;

  MetadataCommands(CallRunner runner, SqlInfoBuilder sqlInfo, DuckDbCatalog catalog) {
    this.runner = runner;
    this.sqlInfo = sqlInfo;
    this.catalog = catalog;
  }

  FlightInfo sqlInfo(CommandGetSqlInfo command, FlightDescriptor descriptor) {
    return metadataInfo(command, Schemas.GET_SQL_INFO_SCHEMA, descriptor);
  }

  void streamSqlInfo(CommandGetSqlInfo command, ServerStreamListener listener) {
    sqlInfo.send(command.getInfoList(), listener);
  }

  FlightInfo catalogs(CommandGetCatalogs command, FlightDescriptor descriptor) {
    return metadataInfo(command, Schemas.GET_CATALOGS_SCHEMA, descriptor);
  }

  void streamCatalogs(ServerStreamListener listener) {
    streamMetadata(listener, () -> catalog.streamCatalogs(listener));
  }

  FlightInfo schemas(CommandGetDbSchemas command, FlightDescriptor descriptor) {
    return metadataInfo(command, Schemas.GET_SCHEMAS_SCHEMA, descriptor);
  }

  void streamSchemas(CommandGetDbSchemas command, ServerStreamListener listener) {
    streamMetadata(listener, () -> catalog.streamSchemas(command, listener));
  }

  FlightInfo tables(CommandGetTables command, FlightDescriptor descriptor) {
    Schema schema =
        command.getIncludeSchema()
            ? Schemas.GET_TABLES_SCHEMA
            : Schemas.GET_TABLES_SCHEMA_NO_SCHEMA;
    return metadataInfo(command, schema, descriptor);
  }

  void streamTables(CommandGetTables command, ServerStreamListener listener) {
    streamMetadata(listener, () -> catalog.streamTables(command, listener));
  }

  FlightInfo tableTypes(CommandGetTableTypes command, FlightDescriptor descriptor) {
    return metadataInfo(command, Schemas.GET_TABLE_TYPES_SCHEMA, descriptor);
  }

  void streamTableTypes(ServerStreamListener listener) {
    streamMetadata(listener, () -> catalog.streamTableTypes(listener));
  }

  /** A FlightInfo whose single endpoint hands {@code command} back to this server's DoGet. */
  private static FlightInfo metadataInfo(
      Message command, Schema schema, FlightDescriptor descriptor) {
    FlightEndpoint endpoint = new FlightEndpoint(new Ticket(Any.pack(command).toByteArray()));
    return new FlightInfo(schema, descriptor, List.of(endpoint), -1, -1);
  }

  /** A catalog command's body, which may fail on DuckDB's side. */
  private interface MetadataStream {
    void run() throws SQLException;
  }

  private void streamMetadata(ServerStreamListener listener, MetadataStream body) {
    try {
      runner.track(
          () -> {
            body.run();
            return null;
          });
    } catch (SQLException e) {
      listener.error(queryFailed(e));
    } catch (FlightRuntimeException e) {
      listener.error(e);
    }
  }
}
