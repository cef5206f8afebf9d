package io.flightsql.spark.it.fuzz;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * A WHERE condition of a generated read, written as Spark SQL: comparisons, IN, IS [NOT] NULL, LIKE
 * and the string functions Spark pushes as {@code StringStartsWith}/{@code StringContains}/ {@code
 * StringEndsWith}, joined by AND/OR/NOT. Each knows the simpler conditions a shrink tries.
 */
sealed interface Predicate {
  /** Spark SQL text, with columns prefixed by {@code qualifier} (empty for none). */
  String sql(String qualifier);

  /** Simpler conditions to try in this one's place, simplest first. */
  List<Predicate> simpler();

  /** The columns it reads. */
  void columns(Set<String> into);

  record Compare(String column, String op, Family family, Object value) implements Predicate {
    @Override
    public String sql(String q) {
      return q + column + " " + op + " " + family.sparkLiteral(value);
    }

    @Override
    public List<Predicate> simpler() {
      return op.equals("=") ? List.of() : List.of(new Compare(column, "=", family, value));
    }

    @Override
    public void columns(Set<String> into) {
      into.add(column);
    }
  }

  record In(String column, Family family, List<Object> values) implements Predicate {
    @Override
    public String sql(String q) {
      List<String> literals = new ArrayList<>();
      values.forEach(v -> literals.add(family.sparkLiteral(v)));
      return q + column + " IN (" + String.join(", ", literals) + ")";
    }

    @Override
    public List<Predicate> simpler() {
      List<Predicate> simpler = new ArrayList<>();
      for (int i = 0; values.size() > 1 && i < values.size(); i++) {
        List<Object> fewer = new ArrayList<>(values);
        fewer.remove(i);
        simpler.add(new In(column, family, fewer));
      }
      return simpler;
    }

    @Override
    public void columns(Set<String> into) {
      into.add(column);
    }
  }

  record IsNull(String column, boolean negated) implements Predicate {
    @Override
    public String sql(String q) {
      return q + column + (negated ? " IS NOT NULL" : " IS NULL");
    }

    @Override
    public List<Predicate> simpler() {
      return List.of();
    }

    @Override
    public void columns(Set<String> into) {
      into.add(column);
    }
  }

  /** {@code LIKE pattern}, or one of {@code startswith}, {@code contains}, {@code endswith}. */
  record Text(String column, String function, String text) implements Predicate {
    @Override
    public String sql(String q) {
      if (function.equals("LIKE")) {
        return q + column + " LIKE " + Family.sparkString(text);
      }
      return function + "(" + q + column + ", " + Family.sparkString(text) + ")";
    }

    @Override
    public List<Predicate> simpler() {
      return List.of();
    }

    @Override
    public void columns(Set<String> into) {
      into.add(column);
    }
  }

  record Not(Predicate inner) implements Predicate {
    @Override
    public String sql(String q) {
      return "NOT (" + inner.sql(q) + ")";
    }

    @Override
    public List<Predicate> simpler() {
      List<Predicate> simpler = new ArrayList<>(List.of(inner));
      inner.simpler().forEach(p -> simpler.add(new Not(p)));
      return simpler;
    }

    @Override
    public void columns(Set<String> into) {
      inner.columns(into);
    }
  }

  record Junction(String op, Predicate left, Predicate right) implements Predicate {
    @Override
    public String sql(String q) {
      return "(" + left.sql(q) + " " + op + " " + right.sql(q) + ")";
    }

    @Override
    public List<Predicate> simpler() {
      List<Predicate> simpler = new ArrayList<>(List.of(left, right));
      left.simpler().forEach(p -> simpler.add(new Junction(op, p, right)));
      right.simpler().forEach(p -> simpler.add(new Junction(op, left, p)));
      return simpler;
    }

    @Override
    public void columns(Set<String> into) {
      left.columns(into);
      right.columns(into);
    }
  }
}
