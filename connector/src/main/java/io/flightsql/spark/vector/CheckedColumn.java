package io.flightsql.spark.vector;

import io.flightsql.spark.types.ArrowFields;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.types.pojo.Field;

/** One vector that {@link BatchChecks} looks at, with what its messages say about it. */
final class CheckedColumn {
  final Field plain;
  final FieldVector vector;
  final String path;
  final String arrowType;
  final int rows;

  CheckedColumn(Field field, FieldVector vector, String path) {
    this.plain = ArrowFields.valueField(field);
    this.vector = vector;
    this.path = path;
    this.arrowType = ArrowFields.describe(field);
    this.rows = vector.getValueCount();
  }

  /** The path of child {@code i}, as the column factory names it. */
  String childPath(int i) {
    switch (plain.getType().getTypeID()) {
      case List:
      case LargeList:
      case FixedSizeList:
      case ListView:
      case LargeListView:
        return path + ".element";
      case Map:
        return path;
      default:
        return path + "." + plain.getChildren().get(i).getName();
    }
  }

  void require(String problem) {
    if (problem != null) {
      throw malformed(problem);
    }
  }

  MalformedBatchException malformed(String problem) {
    return new MalformedBatchException(path, arrowType, problem);
  }
}
