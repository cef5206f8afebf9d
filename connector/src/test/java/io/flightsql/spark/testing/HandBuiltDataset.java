package io.flightsql.spark.testing;

import com.google.protobuf.ByteString;
import io.grpc.Status;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.apache.arrow.flight.impl.Flight;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.VectorUnloader;
import org.apache.arrow.vector.compression.CompressionCodec;
import org.apache.arrow.vector.compression.NoCompressionCodec;
import org.apache.arrow.vector.ipc.WriteChannel;
import org.apache.arrow.vector.ipc.message.ArrowDictionaryBatch;
import org.apache.arrow.vector.ipc.message.ArrowMessage;
import org.apache.arrow.vector.ipc.message.ArrowRecordBatch;
import org.apache.arrow.vector.ipc.message.IpcOption;
import org.apache.arrow.vector.ipc.message.MessageSerializer;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.DictionaryEncoding;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * One dataset of {@link HandBuiltFlightSqlServer}, already serialized: the schema as Flight puts it
 * in FlightInfo and SchemaResult, and for each endpoint the FlightData messages of its DoGet
 * stream. It holds byte arrays only, no Arrow memory, so the vectors it was built from can be
 * closed as soon as each builder call returns.
 */
public final class HandBuiltDataset {
  private final String name;
  private final Schema schema;
  private final byte[] encapsulatedSchema;
  private final List<Endpoint> endpoints;

  private HandBuiltDataset(
      String name, Schema schema, byte[] encapsulatedSchema, List<Endpoint> endpoints) {
    this.name = name;
    this.schema = schema;
    this.encapsulatedSchema = encapsulatedSchema;
    this.endpoints = endpoints;
  }

  public String name() {
    return name;
  }

  /**
   * The schema as it goes over the wire: a dictionary-encoded column has its value type and the
   * encoding, as {@code FlightInfo.getSchema()} shows it to clients.
   */
  public Schema schema() {
    return schema;
  }

  byte[] encapsulatedSchema() {
    return encapsulatedSchema;
  }

  List<Endpoint> endpoints() {
    return endpoints;
  }

  long rowCount() {
    long rows = 0;
    for (Endpoint endpoint : endpoints) {
      rows += endpoint.rowCount;
    }
    return rows;
  }

  /** The DoGet stream of one endpoint: its messages, schema first, and how it ends. */
  static final class Endpoint {
    private final List<Flight.FlightData> messages;
    private final Status failure;
    private final long rowCount;

    Endpoint(List<Flight.FlightData> messages, Status failure, long rowCount) {
      this.messages = messages;
      this.failure = failure;
      this.rowCount = rowCount;
    }

    List<Flight.FlightData> messages() {
      return messages;
    }

    /** The status the stream ends with after its messages, or null when it completes. */
    Status failure() {
      return failure;
    }
  }

  /**
   * Describes a dataset as the messages of its streams, in order. Every call serializes what it is
   * given at once, so the caller may reuse or close its vectors right after. Messages go to the
   * current endpoint; {@link #endpoint()} starts the next one. Each endpoint's stream begins with
   * the schema, which is written by {@link #register()}.
   */
  public static final class Builder {
    private final String name;
    private final Schema schema;
    private final Consumer<HandBuiltDataset> registrar;
    private final Map<Long, Field> dictionaryValues = new HashMap<>();
    private final List<PendingEndpoint> endpoints = new ArrayList<>();
    private Schema streamSchema;

    Builder(String name, Schema schema, Consumer<HandBuiltDataset> registrar) {
      this.name = name;
      this.schema = schema;
      this.registrar = registrar;
      endpoints.add(new PendingEndpoint());
    }

    /**
     * A dictionary batch that sets, or replaces, dictionary {@code id}. Sent after some record
     * batches, it is a replacement, which the IPC streaming format allows.
     */
    public Builder dictionary(FieldVector values, long id) {
      return dictionaryBatch(values, id, false);
    }

    /** A dictionary batch with isDelta set: its values extend dictionary {@code id}. */
    public Builder dictionaryDelta(FieldVector values, long id) {
      return dictionaryBatch(values, id, true);
    }

    private Builder dictionaryBatch(FieldVector values, long id, boolean delta) {
      // Not closed: closing the root would close the caller's vector.
      VectorSchemaRoot single = VectorSchemaRoot.of(values);
      try (ArrowDictionaryBatch batch =
          new ArrowDictionaryBatch(id, new VectorUnloader(single).getRecordBatch(), delta)) {
        current().add(flightData(batch, batch.getDictionary(), Long.MAX_VALUE));
      }
      dictionaryValues.putIfAbsent(id, values.getField());
      return this;
    }

    /** A record batch of the root's vectors and row count. */
    public Builder batch(VectorSchemaRoot root) {
      return batch(root, NoCompressionCodec.INSTANCE);
    }

    /**
     * A record batch of the root's vectors and row count, its buffers compressed by {@code codec},
     * as the IPC format lets a server send them (a codec that writes garbage makes a batch no
     * client can decompress).
     */
    public Builder batch(VectorSchemaRoot root, CompressionCodec codec) {
      checkColumns(root);
      try (ArrowRecordBatch batch = new VectorUnloader(root, true, codec, true).getRecordBatch()) {
        current().add(flightData(batch, batch, Long.MAX_VALUE));
      }
      current().rowCount += root.getRowCount();
      return this;
    }

    /**
     * A record batch of the root's vectors whose buffers {@code corruption} changes after they are
     * unloaded and before they are serialized, as a broken or hostile server might send them: the
     * batch keeps its row counts and buffer sizes, so offsets, indices or type ids can say what no
     * Arrow writer would. The buffers are listed in IPC order: column by column, depth first, each
     * vector's own (validity, then offsets or type ids, then data) before its children's.
     */
    public Builder corruptedBatch(VectorSchemaRoot root, Consumer<List<ArrowBuf>> corruption) {
      checkColumns(root);
      try (ArrowRecordBatch batch = new VectorUnloader(root).getRecordBatch()) {
        corruption.accept(batch.getBuffers());
        current().add(flightData(batch, batch, Long.MAX_VALUE));
      }
      current().rowCount += root.getRowCount();
      return this;
    }

    /**
     * A record batch whose message carries only the first {@code bodyBytes} bytes of the body its
     * header describes, as from a server cut off part way through the batch (0: the header alone).
     */
    public Builder truncatedBatch(VectorSchemaRoot root, long bodyBytes) {
      checkColumns(root);
      try (ArrowRecordBatch batch = new VectorUnloader(root).getRecordBatch()) {
        current().add(flightData(batch, batch, bodyBytes));
      }
      current().rowCount += root.getRowCount();
      return this;
    }

    /**
     * Makes each endpoint's stream begin with {@code announced} as its schema message, instead of
     * the dataset's schema that GetSchema and GetFlightInfo give: a server whose stream disagrees
     * with what it planned. Record batches must then be of {@code announced}.
     */
    public Builder streamSchema(Schema announced) {
      this.streamSchema = announced;
      return this;
    }

    /** Ends the current endpoint's messages; the ones that follow go to a new endpoint. */
    public Builder endpoint() {
      endpoints.add(new PendingEndpoint());
      return this;
    }

    /**
     * Ends the current endpoint's stream with {@code status} after the messages sent so far,
     * instead of completing it: {@code .batch(a).batch(b).fail(status)} fails after two batches.
     */
    public Builder fail(Status status) {
      if (status.isOk()) {
        throw new IllegalArgumentException("A failing stream needs a status other than OK");
      }
      current().failure = status;
      return this;
    }

    /** Serves the dataset, replacing any dataset registered before under the same name. */
    public HandBuiltDataset register() {
      List<Field> fields = new ArrayList<>();
      for (Field field : schema.getFields()) {
        fields.add(wireField(field));
      }
      Schema wireSchema = new Schema(fields, schema.getCustomMetadata());
      Schema streamWireSchema = wireSchema;
      if (streamSchema != null) {
        List<Field> streamFields = new ArrayList<>();
        for (Field field : streamSchema.getFields()) {
          streamFields.add(wireField(field));
        }
        streamWireSchema = new Schema(streamFields, streamSchema.getCustomMetadata());
      }
      Flight.FlightData schemaMessage =
          Flight.FlightData.newBuilder()
              .setDataHeader(
                  ByteString.copyFrom(
                      MessageSerializer.serializeMetadata(streamWireSchema, IpcOption.DEFAULT)))
              .build();
      List<Endpoint> built = new ArrayList<>();
      for (PendingEndpoint pending : endpoints) {
        List<Flight.FlightData> messages = new ArrayList<>();
        messages.add(schemaMessage);
        messages.addAll(pending.messages);
        built.add(
            new Endpoint(
                Collections.unmodifiableList(messages), pending.failure, pending.rowCount));
      }
      HandBuiltDataset dataset =
          new HandBuiltDataset(
              name, wireSchema, encapsulate(wireSchema), Collections.unmodifiableList(built));
      registrar.accept(dataset);
      return dataset;
    }

    private PendingEndpoint current() {
      PendingEndpoint endpoint = endpoints.get(endpoints.size() - 1);
      if (endpoint.failure != null) {
        throw new IllegalStateException(
            "The stream of this endpoint of '" + name + "' already fails; call endpoint() first");
      }
      return endpoint;
    }

    /**
     * Catches a batch built for another schema. Only the kind of each column is compared, so a test
     * can still send buffers the vectors would not write themselves (e.g. union type ids of another
     * Arrow implementation) under the dataset's schema.
     */
    private void checkColumns(VectorSchemaRoot root) {
      List<Field> expected = (streamSchema != null ? streamSchema : schema).getFields();
      List<FieldVector> vectors = root.getFieldVectors();
      if (vectors.size() != expected.size()) {
        throw new IllegalArgumentException(
            "A batch of "
                + vectors.size()
                + " columns for dataset '"
                + name
                + "', whose schema has "
                + expected.size());
      }
      for (int i = 0; i < vectors.size(); i++) {
        Field field = expected.get(i);
        ArrowType want =
            field.getDictionary() != null ? field.getDictionary().getIndexType() : field.getType();
        ArrowType got = vectors.get(i).getField().getType();
        if (storage(want).getTypeID() != storage(got).getTypeID()) {
          throw new IllegalArgumentException(
              "Column '"
                  + field.getName()
                  + "' of dataset '"
                  + name
                  + "' is "
                  + want
                  + ", but the batch has "
                  + got);
        }
      }
    }

    private static ArrowType storage(ArrowType type) {
      return type instanceof ArrowType.ExtensionType
          ? ((ArrowType.ExtensionType) type).storageType()
          : type;
    }

    /** The field as IPC writes it: a dictionary-encoded column takes its dictionary's type. */
    private Field wireField(Field field) {
      DictionaryEncoding encoding = field.getDictionary();
      ArrowType type = field.getType();
      List<Field> children = field.getChildren();
      if (encoding != null) {
        Field values = dictionaryValues.get(encoding.getId());
        if (values == null) {
          throw new IllegalStateException(
              "Column '"
                  + field.getName()
                  + "' of dataset '"
                  + name
                  + "' is encoded with dictionary "
                  + encoding.getId()
                  + ", but no dictionary batch with that id was added");
        }
        type = values.getType();
        children = values.getChildren();
      }
      List<Field> wireChildren = new ArrayList<>();
      for (Field child : children) {
        wireChildren.add(wireField(child));
      }
      return new Field(
          field.getName(),
          new FieldType(field.isNullable(), type, encoding, field.getMetadata()),
          wireChildren);
    }
  }

  private static final class PendingEndpoint {
    private final List<Flight.FlightData> messages = new ArrayList<>();
    private Status failure;
    private long rowCount;

    void add(Flight.FlightData message) {
      messages.add(message);
    }
  }

  /**
   * The message as Arrow's own Flight server frames it: the flatbuffer Message in data_header, the
   * buffers in data_body, each at the offset the header gives and padded to 8 bytes; the body is
   * cut after {@code bodyBytes} bytes when it is longer.
   */
  private static Flight.FlightData flightData(
      ArrowMessage header, ArrowRecordBatch body, long bodyBytes) {
    ByteBuffer metadata = MessageSerializer.serializeMetadata(header, IpcOption.DEFAULT);
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (WriteChannel channel = new WriteChannel(Channels.newChannel(bytes))) {
      long written = MessageSerializer.writeBatchBuffers(channel, body);
      if (written != header.computeBodyLength()) {
        throw new IllegalStateException(
            "Wrote " + written + " body bytes, the header says " + header.computeBodyLength());
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return Flight.FlightData.newBuilder()
        .setDataHeader(ByteString.copyFrom(metadata))
        .setDataBody(
            ByteString.copyFrom(
                bytes.toByteArray(), 0, (int) Math.min(bodyBytes, (long) bytes.size())))
        .build();
  }

  /** The schema as Flight's FlightInfo and SchemaResult carry it: an encapsulated IPC message. */
  private static byte[] encapsulate(Schema schema) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (WriteChannel channel = new WriteChannel(Channels.newChannel(bytes))) {
      MessageSerializer.serialize(channel, schema, IpcOption.DEFAULT);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return bytes.toByteArray();
  }
}
