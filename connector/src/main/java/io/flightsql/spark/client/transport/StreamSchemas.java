package io.flightsql.spark.client.transport;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.vector.dictionary.DictionaryProvider;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.arrow.vector.util.DictionaryUtility;

/**
 * The schema of a stream as the server described it. A stream's root holds dictionary-encoded
 * columns as their index vectors, so its fields carry the index type; GetSchema and FlightInfo (and
 * so the planned Spark schema) carry the value type.
 */
public final class StreamSchemas {
  private StreamSchemas() {}

  /** The field as the schema message has it: a dictionary-encoded field with its value type. */
  public static Field valueField(Field rootField, DictionaryProvider dictionaries) {
    return DictionaryUtility.toMessageFormat(rootField, dictionaries, new HashSet<>());
  }

  public static Schema schema(FlightStream stream) {
    Schema root = stream.getSchema();
    DictionaryProvider dictionaries = stream.getDictionaryProvider();
    List<Field> fields = new ArrayList<>();
    for (Field field : root.getFields()) {
      fields.add(valueField(field, dictionaries));
    }
    return new Schema(fields, root.getCustomMetadata());
  }
}
