package io.flightsql.spark.config;

/**
 * Renders {@code docs/configuration.md} from {@link FlightSqlOptions}. Test code, not shipped:
 * {@link ConfigurationDocsTest} fails when the committed file differs, and rewrites it when run
 * with {@code -Dflightsql.updateDocs=true}.
 */
final class ConfigurationDocs {
  private ConfigurationDocs() {}

  static String render() {
    StringBuilder md = new StringBuilder();
    md.append("# Configuration\n\n")
        .append("<!-- Generated from io.flightsql.spark.config.FlightSqlOptions; do not edit by")
        .append(" hand. Regenerate with\n")
        .append("     mvn -q -pl connector -am test -Dtest=ConfigurationDocsTest")
        .append(" -Dsurefire.failIfNoSpecifiedTests=false\n")
        .append("     -Dflightsql.updateDocs=true -->\n\n")
        .append("Options are given with `.option(name, value)` on `spark.read`/`df.write`, in")
        .append(" `OPTIONS (...)` of\n`CREATE TEMPORARY VIEW ... USING flightsql`, or for a whole")
        .append(" session as Spark configuration\n`")
        .append(OptionSources.SESSION_CONF_PREFIX)
        .append("<name>`, or as a property of the connector's catalog,\n")
        .append("`spark.sql.catalog.<catalog>.<name>` (see [catalog.md](catalog.md)). Names are")
        .append(" case-insensitive. An explicit\noption beats the session configuration, which")
        .append(" beats the catalog's properties, which beat the\noption's default; reads and")
        .append(
            " writes follow the same order. A name\nthe connector does not know is ignored with a warning")
        .append(" in the driver's log, which suggests the\nclosest known option. Options marked")
        .append(" secret are never printed: not in logs, plans, the Spark UI\nor error")
        .append(" messages.\n\n")
        .append("| Option | Default | Scope | Meaning |\n")
        .append("| --- | --- | --- | --- |\n");
    for (OptionSpec<?> o : FlightSqlOptions.all()) {
      md.append("| `")
          .append(o.name())
          .append("`")
          .append(o.isSecret() ? " (secret)" : "")
          .append(" | ")
          .append(o.defaultText().map(text -> "`" + text + "`").orElse("(none)"))
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
}
