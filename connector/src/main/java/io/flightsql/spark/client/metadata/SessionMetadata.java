package io.flightsql.spark.client.metadata;

import io.flightsql.spark.client.transport.EndpointStreams;
import io.flightsql.spark.client.transport.FlightErrors;
import io.flightsql.spark.client.transport.FlightSqlConnectorException;
import io.flightsql.spark.client.transport.FlightUri;
import io.flightsql.spark.client.transport.SessionClients;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.apache.arrow.flight.FlightEndpoint;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.sql.FlightSqlClient;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.arrow.vector.util.Text;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a session asks the server of option {@code uri} about, rather than to do: a query's result
 * schema (with its fallbacks), what the server can do (GetSqlInfo) and which tables it has
 * (GetTables). Metadata answers are Arrow streams, read through {@link EndpointStreams} and closed
 * before each method returns. Not thread-safe, like its session.
 */
public final class SessionMetadata {
  private static final Logger LOG = LoggerFactory.getLogger(SessionMetadata.class);

  private static final String GET_SCHEMA = "GetSchema";
  private static final String PREPARE = "CreatePreparedStatement";

  /**
   * The fact, kept in {@link ServerFacts} like an unimplemented call, that the server's prepared
   * statements come without a dataset schema.
   */
  static final String PREPARED_SCHEMA = "CreatePreparedStatement.dataset_schema";

  private final FlightUri server;
  private final SessionClients clients;
  private final EndpointStreams streams;

  public SessionMetadata(SessionClients clients, EndpointStreams streams) {
    this.server = clients.server();
    this.clients = clients;
    this.streams = streams;
  }

  /**
   * See {@code FlightSqlSession.resultSchema(String)}. What a server that gives the schema only by
   * running the query ran is not kept for the read that follows: that read plans the query again,
   * and sees the data as of its own action.
   */
  public Schema resultSchema(String query) {
    ServerFacts facts = ServerFacts.of(clients.settings());
    FlightInfo[] executed = new FlightInfo[1];
    List<String> gaveNothing = new ArrayList<>();
    List<SchemaResolver.Source> sources =
        Arrays.asList(
            SchemaResolver.Source.of(
                GET_SCHEMA,
                () ->
                    unlessLacking(
                        GET_SCHEMA,
                        gaveNothing,
                        () ->
                            Optional.of(clients.forServer().getExecuteSchema(query).getSchema()))),
            SchemaResolver.Source.of(
                PREPARE,
                () ->
                    facts.lacks(PREPARED_SCHEMA)
                        ? Optional.empty()
                        : unlessLacking(PREPARE, gaveNothing, () -> preparedSchema(query, facts))),
            SchemaResolver.Source.of(
                "GetFlightInfo",
                () -> {
                  executed[0] = clients.forServer().execute(query);
                  return executed[0].getSchemaOptional();
                }),
            SchemaResolver.Source.of("DoGet", () -> firstStreamSchema(executed[0], query)));
    Schema schema = SchemaResolver.resolve(sources, server);
    // A call that failed where a later one answered failed for want of the call, not because of
    // the query: not asked again.
    for (String rpc : gaveNothing) {
      facts.noteLacking(rpc);
      LOG.info("{} gave no schema with {}; not asked again for a while", server, rpc);
    }
    return schema;
  }

  private static boolean hasFields(Optional<Schema> schema) {
    return schema.isPresent() && !schema.get().getFields().isEmpty();
  }

  /**
   * {@code call}'s schema, or none without asking where the server gave none with {@code rpc}
   * before in this JVM; an UNIMPLEMENTED answer now is remembered at once, any other failure noted
   * in {@code failed}, remembered if a later call finds the schema: each server costs one such
   * miss.
   */
  private Optional<Schema> unlessLacking(
      String rpc, List<String> failed, Supplier<Optional<Schema>> call) {
    if (ServerFacts.of(clients.settings()).lacks(rpc)) {
      return Optional.empty();
    }
    try {
      return call.get();
    } catch (RuntimeException e) {
      if (FlightErrors.isUnimplemented(e)) {
        ServerFacts.of(clients.settings()).noteLacking(rpc);
        LOG.info("{} does not implement {}; not asked again for a while", server, rpc);
      } else {
        failed.add(rpc);
      }
      throw e;
    }
  }

  /**
   * The dataset schema of the prepared query; a server that gives none is remembered ({@link
   * #PREPARED_SCHEMA}), and its queries are not prepared for their schema again.
   */
  private Optional<Schema> preparedSchema(String query, ServerFacts facts) {
    Optional<Schema> schema;
    try (FlightSqlClient.PreparedStatement statement = clients.forServer().prepare(query)) {
      schema = Optional.ofNullable(statement.getResultSetSchema());
    }
    if (!hasFields(schema)) {
      facts.noteLacking(PREPARED_SCHEMA);
      LOG.info(
          "{} gives no schema with its prepared statements; not asked again for a while", server);
    }
    return schema;
  }

  /** The schema at the head of the first endpoint's stream, which is then closed. */
  private Optional<Schema> firstStreamSchema(FlightInfo knownInfo, String query) {
    FlightInfo info = knownInfo != null ? knownInfo : clients.forServer().execute(query);
    if (info.getEndpoints().isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(streams.schema(info.getEndpoints().get(0)));
  }

  /**
   * See {@code FlightSqlSession.capabilities()}: remembered per server and user ({@link
   * ServerFacts}), asked with GetSqlInfo, and where that gives no identifier quote, with the {@link
   * QuotingProbe}.
   */
  public ServerCapabilities capabilities() {
    return ServerFacts.of(clients.settings())
        .capabilities(
            () -> {
              ServerCapabilities said = sqlInfo();
              return said.quotingKnown()
                  ? said
                  : new QuotingProbe(server, clients, streams).establish(said);
            });
  }

  private ServerCapabilities sqlInfo() {
    Map<Integer, Object> values = new HashMap<>();
    try {
      // Everything the server has: asking for ids a server lacks fails on some servers.
      readRows(
          "GetSqlInfo",
          () -> clients.forServer().getSqlInfo(),
          (root, i) -> {
            Object value = root.getVector(1).getObject(i);
            values.put(
                ((Number) root.getVector(0).getObject(i)).intValue(),
                value instanceof Text ? value.toString() : value);
          });
    } catch (FlightSqlConnectorException e) {
      if ("UNIMPLEMENTED".equals(e.statusCode())) {
        LOG.info("{} does not implement GetSqlInfo; assuming no transactions", server);
        return ServerCapabilities.unknown();
      }
      throw e;
    }
    return ServerCapabilities.fromSqlInfo(values);
  }

  /** See {@code FlightSqlSession.countRows(String)}. */
  public long countRows(String query) {
    long rows = 0;
    try {
      for (FlightEndpoint endpoint : clients.forServer().executeBounded(query).getEndpoints()) {
        rows += streams.countRows(endpoint);
      }
    } catch (FlightSqlConnectorException e) {
      throw e;
    } catch (RuntimeException e) {
      throw SessionClients.failed("GetFlightInfo", server, e);
    }
    return rows;
  }

  /** See {@code FlightSqlSession.findTable(TableRef, NameLookup, boolean)}. */
  public Optional<ServerTable> findTable(TableRef table, NameLookup lookup, boolean withColumns) {
    Supplier<CurrentSchema> current = () -> CurrentSchema.ask(clients, streams, lookup);
    List<ServerTable> exact = new ArrayList<>();
    for (ServerTable t : tables(table.catalog(), table.schema(), table.name(), withColumns)) {
      if (sameTable(t.ref(), table, true)) {
        exact.add(t);
      }
    }
    if (!exact.isEmpty()) {
      List<TableRef> refs = exact.stream().map(ServerTable::ref).collect(Collectors.toList());
      TableRef chosen = TableChoice.choose(table, refs, false, current, server);
      // Asked again for the one table: a server may give each table of a shared name the columns
      // of all of them (Arrow's Derby example keys GetTables' columns by the table's name alone).
      return exact.size() == 1 || !withColumns
          ? exact.stream().filter(t -> t.ref().equals(chosen)).findFirst()
          : listed(chosen, withColumns);
    }
    if (lookup.caseSensitive()) {
      return Optional.empty();
    }
    // GetTables patterns match case as the server does: list the server's tables and compare.
    List<TableRef> matches = new ArrayList<>();
    for (ServerTable t : tables(null, null, null, false)) {
      if (sameTable(t.ref(), table, false)) {
        matches.add(t.ref());
      }
    }
    if (matches.isEmpty()) {
      return Optional.empty();
    }
    return listed(TableChoice.choose(table, matches, true, current, server), withColumns);
  }

  /** The table as GetTables lists it when asked for it by its exact catalog, schema and name. */
  private Optional<ServerTable> listed(TableRef found, boolean withColumns) {
    for (ServerTable t : tables(found.catalog(), found.schema(), found.name(), withColumns)) {
      if (sameTable(t.ref(), found, true)) {
        return Optional.of(t);
      }
    }
    return Optional.empty();
  }

  /**
   * See {@code FlightSqlSession.findTable(TableRef, NameLookup, boolean, String)}: the table, with
   * the columns of {@code probeSql}'s answer, or empty when the server refuses the query.
   */
  public Optional<ServerTable> probeTable(TableRef table, String probeSql) {
    try {
      return Optional.of(new ServerTable(table, "TABLE", resultSchema(probeSql)));
    } catch (FlightSqlConnectorException e) {
      if (FlightErrors.isAboutTheCall(e)) {
        throw e;
      }
      LOG.debug("{} refused {}, taken to mean that {} does not exist", server, probeSql, table);
      return Optional.empty();
    }
  }

  /** Whether {@code listed} is the table {@code wanted} names; absent parts of wanted match any. */
  private static boolean sameTable(TableRef listed, TableRef wanted, boolean caseSensitive) {
    return samePart(listed.name(), wanted.name(), caseSensitive)
        && (wanted.schema() == null || samePart(listed.schema(), wanted.schema(), caseSensitive))
        && (wanted.catalog() == null
            || samePart(listed.catalog(), wanted.catalog(), caseSensitive));
  }

  private static boolean samePart(String listed, String wanted, boolean caseSensitive) {
    return listed != null
        && (caseSensitive ? listed.equals(wanted) : listed.equalsIgnoreCase(wanted));
  }

  /** See {@code FlightSqlSession.tablesStartingWith(TableRef, String)}. */
  public List<TableRef> tablesStartingWith(TableRef place, String prefix) {
    List<TableRef> out = new ArrayList<>();
    for (ServerTable t : tables(place.catalog(), place.schema(), prefix + "%", false)) {
      TableRef ref = t.ref();
      if (ref.name().startsWith(prefix)
          && (place.schema() == null || place.schema().equals(ref.schema()))) {
        out.add(ref);
      }
    }
    return out;
  }

  /** See {@code FlightSqlSession.catalogs()}. */
  public List<String> catalogs() {
    List<String> out = new ArrayList<>();
    readRows(
        "GetCatalogs",
        () -> clients.forServer().getCatalogs(),
        (root, i) -> {
          String name = text(root.getVector("catalog_name"), i);
          if (name != null && !name.isEmpty()) {
            out.add(name);
          }
        });
    return out;
  }

  /** See {@code FlightSqlSession.schemas(String)}. */
  public List<ServerSchema> schemas(String catalog) {
    List<ServerSchema> out = new ArrayList<>();
    readRows(
        "GetDbSchemas",
        () -> clients.forServer().getSchemas(catalog),
        (root, i) ->
            out.add(
                new ServerSchema(
                    text(root.getVector("catalog_name"), i),
                    text(root.getVector("db_schema_name"), i))));
    return out;
  }

  /**
   * See {@code FlightSqlSession.tables(String, String, String, boolean)}. GetTables takes LIKE
   * patterns: names are sent as they are, which may match more, and callers compare exactly.
   */
  public List<ServerTable> tables(
      String catalog, String schema, String pattern, boolean withColumns) {
    List<ServerTable> out = new ArrayList<>();
    readRows(
        "GetTables",
        () -> clients.forServer().getTables(catalog, schema, pattern, withColumns),
        (root, i) -> {
          FieldVector columns = withColumns ? root.getVector("table_schema") : null;
          Object serialized = columns == null ? null : columns.getObject(i);
          out.add(
              new ServerTable(
                  new TableRef(
                      text(root.getVector("catalog_name"), i),
                      text(root.getVector("db_schema_name"), i),
                      text(root.getVector("table_name"), i)),
                  text(root.getVector("table_type"), i),
                  serialized instanceof byte[] && ((byte[]) serialized).length > 0
                      ? Schema.deserializeMessage(ByteBuffer.wrap((byte[]) serialized))
                      : null));
        });
    return out;
  }

  /**
   * Runs a metadata command and hands every row of every endpoint to {@code visitor}; any failure
   * is a {@link FlightSqlConnectorException} naming {@code rpc}.
   */
  private void readRows(
      String rpc, Supplier<FlightInfo> command, EndpointStreams.RowVisitor visitor) {
    try {
      for (FlightEndpoint endpoint : command.get().getEndpoints()) {
        streams.forEachRow(endpoint, visitor);
      }
    } catch (FlightSqlConnectorException e) {
      throw e;
    } catch (RuntimeException e) {
      throw SessionClients.failed(rpc, server, e);
    }
  }

  private static String text(FieldVector vector, int row) {
    Object value = vector.getObject(row);
    return value == null ? null : value.toString();
  }
}
