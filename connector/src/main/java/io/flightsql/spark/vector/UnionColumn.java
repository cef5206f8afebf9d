package io.flightsql.spark.vector;

import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.Arrays;
import java.util.List;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.complex.DenseUnionVector;
import org.apache.arrow.vector.complex.UnionVector;
import org.apache.spark.sql.types.BinaryType;
import org.apache.spark.sql.types.BooleanType;
import org.apache.spark.sql.types.ByteType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DateType;
import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.sql.types.DoubleType;
import org.apache.spark.sql.types.FloatType;
import org.apache.spark.sql.types.IntegerType;
import org.apache.spark.sql.types.LongType;
import org.apache.spark.sql.types.ShortType;
import org.apache.spark.sql.types.StringType;
import org.apache.spark.sql.types.TimestampType;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.unsafe.Platform;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * A dense or sparse union whose members all read as the same Spark type (NULL members aside), or,
 * with mixedUnions=string, as text. Unions have no validity bitmap: a row is NULL when the member
 * it selects has a NULL there, or is of the Null type.
 */
final class UnionColumn extends IndirectColumn {
  private final ArrowBackedColumnVector[] members;
  private final boolean[] nullMember;

  /** The member for each type id (a byte), or -1 for ids the union does not use. */
  private final int[] memberOfTypeId = new int[128];

  private final boolean dense;
  private final boolean asText;
  private long typeIds;
  private long offsets;

  UnionColumn(
      DataType type,
      ArrowBackedColumnVector[] members,
      boolean[] nullMember,
      int[] typeIds,
      boolean dense,
      boolean asText) {
    super(type);
    this.members = members;
    this.nullMember = nullMember;
    this.dense = dense;
    this.asText = asText;
    Arrays.fill(memberOfTypeId, -1);
    for (int i = 0; i < members.length; i++) {
      memberOfTypeId[typeIds == null ? i : typeIds[i]] = i;
    }
  }

  @Override
  void loadBuffers(FieldVector vector) {
    valueCount = vector.getValueCount();
    nullCount = 0;
    validity = 0L;
    if (dense) {
      DenseUnionVector union = (DenseUnionVector) vector;
      typeIds = valueCount > 0 ? union.getTypeBuffer().memoryAddress() : 0L;
      offsets = valueCount > 0 ? union.getOffsetBuffer().memoryAddress() : 0L;
    } else {
      typeIds = valueCount > 0 ? ((UnionVector) vector).getTypeBufferAddress() : 0L;
    }
    List<FieldVector> children = vector.getChildrenFromFields();
    for (int i = 0; i < members.length; i++) {
      members[i].load(children.get(i));
    }
  }

  private int member(int rowId) {
    int member = memberOfTypeId[Platform.getByte(null, typeIds + rowId) & 0x7F];
    if (member < 0) {
      throw new IllegalStateException(
          "Union row " + rowId + " has a type id that its type does not declare");
    }
    return member;
  }

  @Override
  ColumnVector target(int rowId) {
    int member = member(rowId);
    return nullMember[member] ? null : members[member];
  }

  @Override
  int targetRow(int rowId) {
    return dense ? Platform.getInt(null, offsets + 4L * rowId) : rowId;
  }

  /** With mixedUnions=string, the value of whichever member the row selects, as text. */
  @Override
  public UTF8String getUTF8String(int rowId) {
    ColumnVector member = target(rowId);
    int row = targetRow(rowId);
    return asText ? text(member, row) : member.getUTF8String(row);
  }

  private static UTF8String text(ColumnVector member, int row) {
    DataType type = member.dataType();
    String text;
    if (type instanceof StringType) {
      return member.getUTF8String(row);
    } else if (type instanceof BinaryType) {
      return UTF8String.fromBytes(member.getBinary(row));
    } else if (type instanceof BooleanType) {
      text = String.valueOf(member.getBoolean(row));
    } else if (type instanceof ByteType) {
      text = String.valueOf(member.getByte(row));
    } else if (type instanceof ShortType) {
      text = String.valueOf(member.getShort(row));
    } else if (type instanceof IntegerType) {
      text = String.valueOf(member.getInt(row));
    } else if (type instanceof LongType) {
      text = String.valueOf(member.getLong(row));
    } else if (type instanceof FloatType) {
      text = String.valueOf(member.getFloat(row));
    } else if (type instanceof DoubleType) {
      text = String.valueOf(member.getDouble(row));
    } else if (type instanceof DecimalType) {
      DecimalType decimal = (DecimalType) type;
      text =
          member
              .getDecimal(row, decimal.precision(), decimal.scale())
              .toJavaBigDecimal()
              .toPlainString();
    } else if (type instanceof DateType) {
      text = LocalDate.ofEpochDay(member.getInt(row)).toString();
    } else if (type instanceof TimestampType) {
      long micros = member.getLong(row);
      text =
          Instant.ofEpochSecond(
                  Math.floorDiv(micros, 1_000_000L), Math.floorMod(micros, 1_000_000L) * 1_000L)
              .toString();
    } else {
      long micros = member.getLong(row);
      text =
          LocalDateTime.ofEpochSecond(
                  Math.floorDiv(micros, 1_000_000L),
                  (int) Math.floorMod(micros, 1_000_000L) * 1_000,
                  ZoneOffset.UTC)
              .toString();
    }
    return UTF8String.fromString(text);
  }
}
