package io.flightsql.spark.testing;

import java.nio.ByteBuffer;
import java.util.UUID;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.util.hash.ArrowBufHasher;
import org.apache.arrow.vector.ExtensionTypeVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.FixedSizeBinaryVector;
import org.apache.arrow.vector.ValueVector;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;

/**
 * The canonical {@code arrow.uuid} extension type (16 bytes, big-endian UUID, no parameters), for
 * servers that send it. Arrow Java 18.3 has no UUID type of its own. It is deliberately not
 * registered in {@code ExtensionTypeRegistry}: a client that does not know it receives the plain
 * {@code FixedSizeBinary(16)} storage with the extension's name in the field metadata.
 */
public final class UuidExtensionType extends ArrowType.ExtensionType {
  public static final String NAME = "arrow.uuid";
  public static final UuidExtensionType INSTANCE = new UuidExtensionType();

  private UuidExtensionType() {}

  @Override
  public ArrowType storageType() {
    return new ArrowType.FixedSizeBinary(16);
  }

  @Override
  public String extensionName() {
    return NAME;
  }

  @Override
  public boolean extensionEquals(ArrowType.ExtensionType other) {
    return other instanceof UuidExtensionType;
  }

  @Override
  public String serialize() {
    return "";
  }

  @Override
  public ArrowType deserialize(ArrowType storageType, String serializedData) {
    if (!storageType.equals(storageType())) {
      throw new IllegalArgumentException(NAME + " needs FixedSizeBinary(16), not " + storageType);
    }
    return INSTANCE;
  }

  @Override
  public FieldVector getNewVector(String name, FieldType fieldType, BufferAllocator allocator) {
    return new Vector(new Field(name, fieldType, null), allocator);
  }

  /** The UUID of 16 big-endian bytes. */
  public static UUID uuid(byte[] bytes) {
    ByteBuffer buffer = ByteBuffer.wrap(bytes);
    return new UUID(buffer.getLong(), buffer.getLong());
  }

  /** The 16 big-endian bytes of a UUID. */
  public static byte[] bytes(UUID uuid) {
    return ByteBuffer.allocate(16)
        .putLong(uuid.getMostSignificantBits())
        .putLong(uuid.getLeastSignificantBits())
        .array();
  }

  /** A column of {@code arrow.uuid} over a {@link FixedSizeBinaryVector}. */
  public static final class Vector extends ExtensionTypeVector<FixedSizeBinaryVector> {
    public Vector(Field field, BufferAllocator allocator) {
      super(field, allocator, new FixedSizeBinaryVector(field.getName(), allocator, 16));
    }

    @Override
    public UUID getObject(int index) {
      return isNull(index) ? null : uuid(getUnderlyingVector().get(index));
    }

    public void setSafe(int index, UUID value) {
      getUnderlyingVector().setSafe(index, bytes(value));
    }

    @Override
    public int hashCode(int index) {
      return getUnderlyingVector().hashCode(index);
    }

    @Override
    public int hashCode(int index, ArrowBufHasher hasher) {
      return getUnderlyingVector().hashCode(index, hasher);
    }

    @Override
    public void copyFrom(int fromIndex, int thisIndex, ValueVector from) {
      getUnderlyingVector().copyFrom(fromIndex, thisIndex, ((Vector) from).getUnderlyingVector());
    }

    @Override
    public void copyFromSafe(int fromIndex, int thisIndex, ValueVector from) {
      getUnderlyingVector()
          .copyFromSafe(fromIndex, thisIndex, ((Vector) from).getUnderlyingVector());
    }
  }
}
