package io.flightsql.spark.types;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import org.junit.jupiter.api.Test;

/**
 * docs/types.md is generated from {@link ArrowToSpark} and {@link SparkToArrow} and must stay equal
 * to them.
 */
class TypeMappingDocsTest {
  private static final Path DOC = Paths.get("..", "docs", "types.md");

  @Test
  void committedDocumentMatchesTheMapping() throws Exception {
    String rendered = TypeMappingDocs.render();
    if (Boolean.getBoolean("flightsql.updateDocs")) {
      Files.write(DOC, rendered.getBytes(StandardCharsets.UTF_8));
    }
    assertThat(DOC).exists();
    assertThat(new String(Files.readAllBytes(DOC), StandardCharsets.UTF_8))
        .as("docs/types.md is stale: rerun this test with -Dflightsql.updateDocs=true")
        .isEqualTo(rendered);
  }

  @Test
  void documentShowsWhatTheCodeDoes() {
    String rendered = TypeMappingDocs.render();
    assertThat(rendered)
        .contains("| uint64 | `DECIMAL(20,0)` |")
        .contains("| dictionary<T, indices> | `STRING` |")
        .contains("| time32, time64 | `BIGINT` |")
        .contains("Column 'event.payload' has Arrow type Union(Dense, [0, 1])")
        .contains("| `TIMESTAMP` | Timestamp(MICROSECOND, UTC) |");
  }
}
