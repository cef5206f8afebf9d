package io.flightsql.spark.it.fuzz;

import java.util.ArrayList;
import java.util.List;

/**
 * The simpler reads a shrink tries in a failing read's place: a plain {@code dbtable} source (but
 * never a user schema put back in the table's order, which would hide a by-position bug), no WHERE
 * or a part of it, no ORDER BY, LIMIT or OFFSET, no GROUP BY, fewer aggregates and columns, an
 * inner join.
 */
final class ReadShrinks {
  private ReadShrinks() {}

  static List<FuzzRead> of(FuzzRead r) {
    List<FuzzRead> simpler = new ArrayList<>();
    if (r.source() != FuzzRead.Source.TABLE
        && !(r.source() == FuzzRead.Source.USER_SCHEMA && r.permuted())) {
      simpler.add(r.withSource(FuzzRead.Source.TABLE));
    }
    if (r.where() != null) {
      simpler.add(where(r, null, r.rightWhere()));
      r.where().simpler().forEach(p -> simpler.add(where(r, p, r.rightWhere())));
    }
    if (r.rightWhere() != null) {
      simpler.add(where(r, r.where(), null));
      r.rightWhere().simpler().forEach(p -> simpler.add(where(r, r.where(), p)));
    }
    if (!r.order().isEmpty() && r.limit() == null && r.offset() == null) {
      simpler.add(bounds(r, List.of(), null, null));
    }
    if (r.offset() != null) {
      simpler.add(bounds(r, r.order(), r.limit(), null));
    }
    if (r.limit() != null && r.offset() == null) {
      simpler.add(bounds(r, r.order(), null, null));
    }
    if (r.groupBy() != null) {
      simpler.add(
          new FuzzRead(
              r.shape(),
              r.source(),
              r.schemaOrder(),
              r.select(),
              r.where(),
              r.rightWhere(),
              null,
              r.aggregates(),
              r.order(),
              r.limit(),
              r.offset(),
              r.joinKey(),
              r.joinType(),
              r.samplePercent()));
    }
    for (int i = 0; r.aggregates().size() > 1 && i < r.aggregates().size(); i++) {
      List<FuzzRead.Aggregate> fewer = new ArrayList<>(r.aggregates());
      fewer.remove(i);
      simpler.add(
          new FuzzRead(
              r.shape(),
              r.source(),
              r.schemaOrder(),
              r.select(),
              r.where(),
              r.rightWhere(),
              r.groupBy(),
              fewer,
              r.order(),
              r.limit(),
              r.offset(),
              r.joinKey(),
              r.joinType(),
              r.samplePercent()));
    }
    for (int i = 0; r.select().size() > 1 && i < r.select().size(); i++) {
      List<String> fewer = new ArrayList<>(r.select());
      String dropped = fewer.remove(i);
      List<FuzzRead.Order> keys = new ArrayList<>(r.order());
      keys.removeIf(o -> o.column().equals(dropped));
      simpler.add(
          new FuzzRead(
              r.shape(),
              r.source(),
              r.schemaOrder(),
              fewer,
              r.where(),
              r.rightWhere(),
              r.groupBy(),
              r.aggregates(),
              keys,
              r.limit(),
              r.offset(),
              r.joinKey(),
              r.joinType(),
              r.samplePercent()));
    }
    if (r.joinType() != null && !r.joinType().equals("JOIN")) {
      simpler.add(
          new FuzzRead(
              r.shape(),
              r.source(),
              r.schemaOrder(),
              r.select(),
              r.where(),
              r.rightWhere(),
              r.groupBy(),
              r.aggregates(),
              r.order(),
              r.limit(),
              r.offset(),
              r.joinKey(),
              "JOIN",
              r.samplePercent()));
    }
    return simpler;
  }

  private static FuzzRead where(FuzzRead r, Predicate left, Predicate right) {
    return new FuzzRead(
        r.shape(),
        r.source(),
        r.schemaOrder(),
        r.select(),
        left,
        right,
        r.groupBy(),
        r.aggregates(),
        r.order(),
        r.limit(),
        r.offset(),
        r.joinKey(),
        r.joinType(),
        r.samplePercent());
  }

  private static FuzzRead bounds(
      FuzzRead r, List<FuzzRead.Order> order, Integer limit, Integer offset) {
    return new FuzzRead(
        r.shape(),
        r.source(),
        r.schemaOrder(),
        r.select(),
        r.where(),
        r.rightWhere(),
        r.groupBy(),
        r.aggregates(),
        order,
        limit,
        offset,
        r.joinKey(),
        r.joinType(),
        r.samplePercent());
  }
}
