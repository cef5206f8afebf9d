package io.flightsql.spark.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.flightsql.spark.servers.ExternalCommand;
import io.flightsql.spark.servers.PythonVirtualenv;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/** The connector's jar as the installed wheel gives it: {@code python -m spark_flightsql --jar}. */
final class InstalledJar {
  private InstalledJar() {}

  /** The path the command prints, checked to be a file inside the virtualenv. */
  static String of(PythonVirtualenv venv) throws IOException, InterruptedException {
    ExternalCommand.Result printed =
        ExternalCommand.run(
            "spark_flightsql --jar",
            List.of(venv.python().toString(), "-m", "spark_flightsql", "--jar"),
            Map.of(),
            TestPaths.buildDir().resolve("venv").resolve(venv.home().getFileName() + "-jar.log"),
            Duration.ofMinutes(1));
    assertThat(printed.exitCode()).as(printed.output()).isZero();
    Path jar = Paths.get(printed.output().strip());
    assertThat(jar).as("python -m spark_flightsql --jar").isRegularFile();
    assertThat(jar.startsWith(venv.home())).as(jar + " inside " + venv.home()).isTrue();
    assertThat(Files.size(jar)).isEqualTo(Files.size(TestPaths.shadedJar()));
    return jar.toString();
  }
}
