package io.flightsql.spark.config;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;

/**
 * Renders {@code docs/configuration.md} from {@link FlightSqlOptions}. Run {@link #main} with the
 * file's path to rewrite it; a unit test fails when the committed file differs.
 */
public final class ConfigurationDocs {
  private ConfigurationDocs() {}

  public static String render() {
    StringBuilder md = new StringBuilder();
    md.append("# Configuration\n\n")
        .append("<!-- Generated from io.flightsql.spark.config.FlightSqlOptions; do not edit by")
        .append(" hand. Regenerate with\n")
        .append("     mvn -q -pl connector test -Dtest=ConfigurationDocsTest")
        .append(" -Dflightsql.updateDocs=true -->\n\n")
        .append("Options are given with `.option(name, value)` on `spark.read`/`df.write`, in")
        .append(" `OPTIONS (...)` of\n`CREATE TEMPORARY VIEW ... USING flightsql`, or for a whole")
        .append(" session as Spark configuration\n`")
        .append(FlightSqlOptions.SESSION_CONF_PREFIX)
        .append("<name>`. Names are case-insensitive. An explicit option beats the session\n")
        .append("configuration. Options marked secret are never printed: not in logs, plans,")
        .append(" the Spark UI or\nerror messages.\n\n")
        .append("| Option | Default | Scope | Meaning |\n")
        .append("| --- | --- | --- | --- |\n");
    for (OptionSpec o : FlightSqlOptions.all()) {
      md.append("| `")
          .append(o.name())
          .append("`")
          .append(o.isSecret() ? " (secret)" : "")
          .append(" | ")
          .append(o.defaultValue() == null ? "(none)" : "`" + o.defaultValue() + "`")
          .append(" | ")
          .append(o.scope().label())
          .append(" | ")
          .append(o.description())
          .append(" Form: ")
          .append(o.form())
          .append(". |\n");
    }
    return md.toString();
  }

  public static void main(String[] args) throws IOException {
    Path target = Paths.get(args.length > 0 ? args[0] : "docs/configuration.md");
    Files.write(target, render().getBytes(StandardCharsets.UTF_8));
  }
}
