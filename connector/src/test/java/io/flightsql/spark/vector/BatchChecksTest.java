package io.flightsql.spark.vector;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.Decimal256Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.impl.UnionListWriter;
import org.apache.arrow.vector.dictionary.DictionaryProvider;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The batch checks over hand-built vectors, for what a stream cannot easily carry: every check of a
 * well-formed batch passes, and each layout's own problem is named.
 */
class BatchChecksTest {
  private static final ArrowType INT32 = new ArrowType.Int(32, true);

  private BufferAllocator allocator;

  @BeforeEach
  void open() {
    allocator = new RootAllocator(Long.MAX_VALUE);
  }

  @AfterEach
  void close() {
    allocator.close();
  }

  private static void check(VectorSchemaRoot root) {
    new BatchChecks(root.getSchema().getFields(), new DictionaryProvider.MapDictionaryProvider())
        .check(root.getFieldVectors());
  }

  @Test
  void listOffsetsPastTheChild() {
    Field list =
        new Field(
            "l", FieldType.nullable(ArrowType.List.INSTANCE), List.of(Field.nullable("e", INT32)));
    try (VectorSchemaRoot root = VectorSchemaRoot.create(new Schema(List.of(list)), allocator)) {
      root.allocateNew();
      UnionListWriter writer = ((ListVector) root.getVector(0)).getWriter();
      for (int i = 0; i < 3; i++) {
        writer.setPosition(i);
        writer.startList();
        writer.integer().writeInt(i);
        writer.integer().writeInt(i * 10);
        writer.endList();
      }
      root.setRowCount(3);
      assertThatCode(() -> check(root)).doesNotThrowAnyException();
      root.getVector(0).getOffsetBuffer().setInt(12, 600);
      assertThatThrownBy(() -> check(root))
          .isInstanceOf(MalformedBatchException.class)
          .hasMessage(
              "column 'l' (Arrow List): offset 3 (600) is past the end of its child column (6"
                  + " values)");
    }
  }

  @Test
  void fixedSizeListsLongerThanTheChild() {
    Field list =
        new Field(
            "f",
            FieldType.nullable(new ArrowType.FixedSizeList(2)),
            List.of(Field.nullable("e", INT32)));
    try (VectorSchemaRoot root = VectorSchemaRoot.create(new Schema(List.of(list)), allocator)) {
      root.allocateNew();
      FixedSizeListVector lists = (FixedSizeListVector) root.getVector(0);
      root.setRowCount(3);
      lists.getDataVector().setValueCount(5);
      assertThatThrownBy(() -> check(root))
          .hasMessage(
              "column 'f' (Arrow FixedSizeList(2)): 3 lists of 2 need 6 values in its child column"
                  + " (5 values)");
    }
  }

  @Test
  void decimal256OfAtMost38DigitsWithBitsAbove128() {
    Field decimal = Field.nullable("x", new ArrowType.Decimal(20, 0, 256));
    try (VectorSchemaRoot root = VectorSchemaRoot.create(new Schema(List.of(decimal)), allocator)) {
      root.allocateNew();
      Decimal256Vector vector = (Decimal256Vector) root.getVector(0);
      vector.setSafe(0, new BigDecimal("12345678901234567890"));
      vector.setNull(1);
      vector.getDataBuffer().setLong(32 + 24, 1L);
      root.setRowCount(2);
      assertThatCode(() -> check(root)).doesNotThrowAnyException();
      vector.getDataBuffer().setLong(24, 1L);
      assertThatThrownBy(() -> check(root))
          .hasMessage(
              "column 'x' (Arrow Decimal(20, 0, 256)): row 0 holds "
                  + BigInteger.ONE.shiftLeft(192).add(new BigInteger("12345678901234567890"))
                  + ", more digits than the type's precision of 20");
    }
  }
}
