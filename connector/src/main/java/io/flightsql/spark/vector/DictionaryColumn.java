package io.flightsql.spark.vector;

import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.dictionary.Dictionary;
import org.apache.arrow.vector.dictionary.DictionaryProvider;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.vectorized.ColumnVector;

/**
 * A dictionary-encoded column: each row holds an index into the dictionary's values. The dictionary
 * is looked up again for every batch, since a stream may replace it between batches.
 */
final class DictionaryColumn extends IndirectColumn {
  private final ArrowBackedColumnVector values;
  private final long dictionaryId;
  private final DictionaryProvider dictionaries;
  private final int indexBits;
  private final boolean signedIndices;
  private long indices;

  DictionaryColumn(
      DataType type,
      ArrowBackedColumnVector values,
      long dictionaryId,
      DictionaryProvider dictionaries,
      int indexBits,
      boolean signedIndices) {
    super(type);
    this.values = values;
    this.dictionaryId = dictionaryId;
    this.dictionaries = dictionaries;
    this.indexBits = indexBits;
    this.signedIndices = signedIndices;
  }

  @Override
  void loadBuffers(FieldVector vector) {
    super.loadBuffers(vector);
    indices = valueCount > 0 ? vector.getDataBufferAddress() : 0L;
    Dictionary dictionary = dictionaries.lookup(dictionaryId);
    if (dictionary == null) {
      throw new IllegalStateException(
          "The stream has no dictionary with id "
              + dictionaryId
              + " for column "
              + vector.getField().getName()
              + "; the server sent a record batch before its dictionary");
    }
    values.load(dictionary.getVector());
  }

  @Override
  ColumnVector target(int rowId) {
    return values;
  }

  /**
   * The row of the dictionary. An index outside the dictionary fails rather than reading another
   * value: Arrow Java's Flight client applies a dictionary delta (values appended to the
   * dictionary) as a replacement, so a server that sends deltas would otherwise be read wrongly.
   */
  @Override
  int targetRow(int rowId) {
    long index = readIndex(indices, indexBits, signedIndices, rowId);
    if (index < 0 || index >= values.valueCount) {
      throw new IllegalStateException(
          "Row "
              + rowId
              + " of a dictionary-encoded column has index "
              + index
              + ", beyond the dictionary of "
              + values.valueCount
              + " values. Arrow Java's Flight client does not support dictionary deltas; if the"
              + " server sends a dictionary delta, configure it to send whole dictionaries.");
    }
    return (int) index;
  }
}
