package io.flightsql.spark.client.metadata;

/** What a server says of itself, made by hand for tests of the code that reads it. */
public final class Capabilities {
  private Capabilities() {}

  /** What GetSqlInfo said: a name, a version and an identifier quote (empty for none). */
  public static ServerCapabilities said(String name, String version, String quote) {
    return new ServerCapabilities(false, null, false, quote, name, version);
  }

  /** What a server without GetSqlInfo is known by once the quoting probe found {@code quote}. */
  public static ServerCapabilities probed(String quote, boolean sparkSql) {
    return ServerCapabilities.unknown().withProbedQuote(quote, sparkSql);
  }
}
