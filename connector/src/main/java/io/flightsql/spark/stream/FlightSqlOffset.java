package io.flightsql.spark.stream;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.apache.spark.sql.connector.read.streaming.Offset;

/**
 * An offset of a stream: the high-water mark of its offset column, or none yet (before every row).
 * Spark keeps it in the query's checkpoint as its JSON, {@code
 * {"offsetColumn":"id","type":"bigint","value":"42"}}, the value as {@link OffsetColumn#text}
 * writes it, exactly: the digits of an integer or decimal, a timestamp's microseconds; and compares
 * offsets by that JSON, so equal marks have equal text. The column's name and type travel with the
 * value, so that a query restarted with another offset column fails instead of comparing values of
 * one column with another's. Immutable; driver only.
 */
final class FlightSqlOffset extends Offset {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final String column;
  private final String type;

  /** The value's exact text, or null before every row. */
  private final String value;

  private FlightSqlOffset(String column, String type, String value) {
    this.column = column;
    this.type = type;
    this.value = value;
  }

  /** The mark {@code value} of {@code column}; null for none yet. */
  static FlightSqlOffset of(OffsetColumn column, Object value) {
    return new FlightSqlOffset(
        column.name(), column.typeName(), value == null ? null : column.text(value));
  }

  /**
   * The offset of a checkpoint's JSON.
   *
   * @throws IllegalArgumentException when the text is not one
   */
  static FlightSqlOffset parse(String json) {
    JsonNode node;
    try {
      node = JSON.readTree(json);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("Not an offset of a flightsql stream: " + json, e);
    }
    if (node == null
        || !node.isObject()
        || !node.path("offsetColumn").isTextual()
        || !node.path("type").isTextual()
        || !(node.path("value").isTextual() || node.path("value").isNull())) {
      throw new IllegalArgumentException("Not an offset of a flightsql stream: " + json);
    }
    JsonNode value = node.get("value");
    return new FlightSqlOffset(
        node.get("offsetColumn").asText(),
        node.get("type").asText(),
        value.isNull() ? null : value.asText());
  }

  /**
   * The mark as a value of {@code column}; null for none yet.
   *
   * @throws IllegalStateException when this offset is of another column or type: the query was
   *     restarted with another offset column
   */
  Object value(OffsetColumn column) {
    if (!this.column.equals(column.name()) || !type.equals(column.typeName())) {
      throw new IllegalStateException(
          "The checkpoint of this streaming query holds offsets of column '"
              + this.column
              + "' ("
              + type
              + "), and the source's option 'offsetColumn' is now '"
              + column.name()
              + "' ("
              + column.typeName()
              + "): the values of one cannot be compared with the other's. Keep the offset"
              + " column of the query's first run, or start the query with a new checkpoint"
              + " location (and 'startingOffsets' to say where to begin).");
    }
    return value == null ? null : column.parseText(value);
  }

  /** The mark's text, or null for none yet; for logs. */
  String text() {
    return value;
  }

  @Override
  public String json() {
    ObjectNode node = JSON.createObjectNode();
    node.put("offsetColumn", column);
    node.put("type", type);
    node.put("value", value);
    try {
      return JSON.writeValueAsString(node);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("Cannot write the offset of " + column, e);
    }
  }
}
