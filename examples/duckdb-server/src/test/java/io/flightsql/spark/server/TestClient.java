package io.flightsql.spark.server;

import java.math.BigDecimal;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.FlightEndpoint;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.flight.Location;
import org.apache.arrow.flight.Ticket;
import org.apache.arrow.flight.sql.FlightSqlClient;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.util.AutoCloseables;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.ValueVector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.dictionary.DictionaryEncoder;
import org.apache.arrow.vector.dictionary.DictionaryProvider;
import org.apache.arrow.vector.types.pojo.DictionaryEncoding;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * A plain Arrow Flight SQL client for the tests, with helpers that turn streams into rows of
 * strings. Closing it checks the client's allocator for leaks.
 */
@SuppressWarnings("try") // FlightStream.close() declares Exception
final class TestClient implements AutoCloseable {

  final BufferAllocator allocator = new RootAllocator();
  final FlightSqlClient sql;
  private final FlightClient flight;

  TestClient(DuckDbFlightSqlServer server) {
    this.flight = FlightClient.builder(allocator, new Location(URI.create(server.uri()))).build();
    this.sql = new FlightSqlClient(flight);
  }

  /** The plain Flight client under {@link #sql}, for requests FlightSqlClient cannot make. */
  FlightClient flight() {
    return flight;
  }

  /** All rows of {@code info}, endpoint after endpoint. */
  List<List<String>> rows(FlightInfo info) throws Exception {
    List<List<String>> rows = new ArrayList<>();
    for (FlightEndpoint endpoint : info.getEndpoints()) {
      rows.addAll(rows(endpoint.getTicket()));
    }
    return rows;
  }

  /** The rows of one ticket. */
  List<List<String>> rows(Ticket ticket) throws Exception {
    return read(ticket).rows();
  }

  /**
   * The schema, rows and batch sizes of one ticket. Dictionary-encoded columns (DuckDB's ENUM) are
   * decoded through the stream's dictionaries, so their values read as DuckDB's JDBC prints them.
   */
  Stream read(Ticket ticket) throws Exception {
    List<List<String>> rows = new ArrayList<>();
    List<Integer> batches = new ArrayList<>();
    try (FlightStream stream = sql.getStream(ticket)) {
      Schema schema = stream.getSchema();
      while (stream.next()) {
        VectorSchemaRoot root = stream.getRoot();
        batches.add(root.getRowCount());
        rows.addAll(rows(root, stream.getDictionaryProvider()));
      }
      return new Stream(schema, rows, batches);
    }
  }

  record Stream(Schema schema, List<List<String>> rows, List<Integer> batches) {}

  static List<List<String>> rows(VectorSchemaRoot root, DictionaryProvider dictionaries)
      throws Exception {
    List<ValueVector> decoded = new ArrayList<>();
    try {
      List<ValueVector> columns = new ArrayList<>();
      for (FieldVector vector : root.getFieldVectors()) {
        DictionaryEncoding encoding = vector.getField().getDictionary();
        if (encoding == null) {
          columns.add(vector);
        } else {
          ValueVector values =
              DictionaryEncoder.decode(vector, dictionaries.lookup(encoding.getId()));
          decoded.add(values);
          columns.add(values);
        }
      }
      List<List<String>> rows = new ArrayList<>();
      for (int row = 0; row < root.getRowCount(); row++) {
        List<String> values = new ArrayList<>();
        for (ValueVector vector : columns) {
          values.add(value(vector, row));
        }
        rows.add(values);
      }
      return rows;
    } finally {
      AutoCloseables.close(decoded);
    }
  }

  /** A value as DuckDB's JDBC {@code getString} prints it, for the types of {@code lineitem}. */
  static String value(ValueVector vector, int row) {
    if (vector.isNull(row)) {
      return null;
    }
    if (vector instanceof DateDayVector days) {
      return LocalDate.ofEpochDay(days.get(row)).toString();
    }
    if (vector instanceof VarBinaryVector bytes) {
      return HexFormat.of().formatHex(bytes.get(row));
    }
    Object value = vector.getObject(row);
    if (value instanceof BigDecimal decimal) {
      return decimal.toPlainString();
    }
    if (value instanceof byte[] bytes) {
      return new String(bytes, StandardCharsets.UTF_8);
    }
    return value.toString();
  }

  /** DuckDB's own answer to {@code sql}, through JDBC. */
  static List<List<String>> jdbcRows(Connection connection, String sql) throws SQLException {
    List<List<String>> rows = new ArrayList<>();
    try (PreparedStatement statement = connection.prepareStatement(sql);
        ResultSet result = statement.executeQuery()) {
      int columns = result.getMetaData().getColumnCount();
      while (result.next()) {
        List<String> values = new ArrayList<>(columns);
        for (int i = 1; i <= columns; i++) {
          values.add(result.getString(i));
        }
        rows.add(values);
      }
    }
    return rows;
  }

  static List<List<String>> jdbcRows(DuckDbFlightSqlServer server, String sql) throws SQLException {
    try (Connection connection = server.newConnection()) {
      return jdbcRows(connection, sql);
    }
  }

  /** A FlightInfo's schema, which every query result has. */
  static Schema schema(FlightInfo info) {
    return info.getSchemaOptional().orElseThrow();
  }

  /** Closes the client, then checks its allocator for leaks. */
  @Override
  public void close() {
    try {
      sql.close();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    } catch (Exception e) {
      throw new IllegalStateException("Could not close the Flight SQL client", e);
    }
    allocator.close();
  }
}
