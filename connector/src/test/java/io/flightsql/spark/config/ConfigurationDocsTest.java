package io.flightsql.spark.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import org.junit.jupiter.api.Test;

/** docs/configuration.md is generated from the option registry and must stay equal to it. */
class ConfigurationDocsTest {
  private static final Path DOC = Paths.get("..", "docs", "configuration.md");

  @Test
  void committedDocumentMatchesTheRegistry() throws Exception {
    String rendered = ConfigurationDocs.render();
    if (Boolean.getBoolean("flightsql.updateDocs")) {
      Files.write(DOC, rendered.getBytes(StandardCharsets.UTF_8));
    }
    assertThat(DOC).exists();
    assertThat(new String(Files.readAllBytes(DOC), StandardCharsets.UTF_8))
        .as("docs/configuration.md is stale: rerun this test with -Dflightsql.updateDocs=true")
        .isEqualTo(rendered);
  }

  @Test
  void everyOptionIsDocumented() {
    String rendered = ConfigurationDocs.render();
    for (OptionSpec<?> option : FlightSqlOptions.all()) {
      assertThat(rendered).contains("| `" + option.name() + "`");
      assertThat(option.description()).isNotBlank();
    }
  }
}
