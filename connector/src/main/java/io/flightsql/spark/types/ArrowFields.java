package io.flightsql.spark.types;

import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;

/**
 * What an Arrow field is made of, below the type mapping: its storage type under extension types,
 * its values under a dictionary, the canonical 8-bit boolean, union members of the Null type, and
 * how messages name it.
 */
public final class ArrowFields {
  /** Field metadata naming the extension type of a field that Arrow Java does not know. */
  static final String EXTENSION_NAME = "ARROW:extension:name";

  private ArrowFields() {}

  /** An extension type's storage type (what its values are made of); any other type itself. */
  public static ArrowType storageType(ArrowType type) {
    ArrowType current = type;
    while (current instanceof ArrowType.ExtensionType) {
      current = ((ArrowType.ExtensionType) current).storageType();
    }
    return current;
  }

  /**
   * The field with its dictionary encoding and extension type removed: the field whose values a
   * dictionary-encoded or extension column holds.
   */
  public static Field valueField(Field field) {
    if (field.getDictionary() == null && !(field.getType() instanceof ArrowType.ExtensionType)) {
      return field;
    }
    FieldType plain =
        new FieldType(field.isNullable(), storageType(field.getType()), null, field.getMetadata());
    return new Field(field.getName(), plain, field.getChildren());
  }

  /**
   * Whether the field is Arrow's canonical 8-bit boolean ({@code arrow.bool8}, an int8 per value,
   * non-zero for true), which DuckDB sends for BOOLEAN with {@code arrow_lossless_conversion}.
   * Unlike other extension types, it reads as what it means rather than as its storage type.
   */
  public static boolean isBool8(Field plain) {
    return "arrow.bool8".equals(plain.getMetadata().get(EXTENSION_NAME))
        && plain.getType().equals(new ArrowType.Int(8, true));
  }

  /** A union member of the Null type: its rows are NULL. */
  public static boolean isNullMember(Field member) {
    return member.getDictionary() == null
        && storageType(member.getType()).getTypeID() == ArrowType.ArrowTypeID.Null;
  }

  /** An Arrow type as the error messages and docs show it. */
  public static String describe(Field field) {
    String type = field.getType().toString();
    if (field.getDictionary() != null) {
      return "dictionary<" + type + ", indices " + field.getDictionary().getIndexType() + ">";
    }
    return type;
  }
}
