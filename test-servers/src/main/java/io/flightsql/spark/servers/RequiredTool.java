package io.flightsql.spark.servers;

import java.nio.file.Path;
import org.opentest4j.AssertionFailedError;
import org.opentest4j.TestAbortedException;

/**
 * A program that some integration tests need from the machine, such as {@code go} to build
 * arrow-go's SQLite server or {@code python3} for PySpark, and what to do when it is missing. On a
 * developer's machine the tests that need it are skipped, with a message that says how to install
 * it. In CI (the environment variable {@code CI} is {@code true} or {@code 1}, as GitHub Actions,
 * GitLab CI and most other CI systems set it) they fail with that message instead, so that a build
 * never passes without the third-party servers it is there to test against.
 *
 * <p>A Docker engine is not one of these: the Testcontainers suites skip without one, in CI too,
 * since the project's build machines have none.
 */
public final class RequiredTool {

  public static final RequiredTool GO =
      new RequiredTool(
          "go",
          "Go 1.25 or newer",
          "https://go.dev/doc/install, or a package such as Debian's golang-go if it is recent"
              + " enough");

  public static final RequiredTool PYTHON3 =
      new RequiredTool(
          "python3",
          "Python 3.10 or newer (PySpark 4.1 needs it) with its venv module",
          "https://www.python.org/downloads/, or the packages python3 and python3-venv on Debian"
              + " and Ubuntu");

  private final String command;
  private final String what;
  private final String howToInstall;

  private RequiredTool(String command, String what, String howToInstall) {
    this.command = command;
    this.what = what;
    this.howToInstall = howToInstall;
  }

  /** Whether this run is a CI build, where a missing tool fails the tests that need it. */
  public static boolean inCi() {
    String ci = System.getenv("CI");
    return ci != null && (ci.equalsIgnoreCase("true") || ci.equals("1"));
  }

  /** The program on the PATH, or null. */
  public Path find() {
    return ExternalCommand.onPath(command);
  }

  /**
   * The program, for tests that cannot run without it: on a developer's machine a missing program
   * skips the test (JUnit's {@code TestAbortedException}), in CI it fails it.
   *
   * @param purpose what the tests use the program for, such as "builds arrow-go's SQLite server"
   */
  public Path require(String purpose) {
    Path found = find();
    if (found != null) {
      return found;
    }
    if (inCi()) {
      throw new AssertionFailedError(missing(purpose));
    }
    throw new TestAbortedException("Skipping: " + missing(purpose));
  }

  /**
   * Why the tests cannot run without the program, and how to get it: {@code There is no 'go'
   * command on the PATH, which builds ... Install Go 1.25 or newer (...) and put 'go' on the PATH.}
   * In CI, the message adds that a missing tool fails the build.
   */
  public String missing(String purpose) {
    String message =
        "There is no '"
            + command
            + "' command on the PATH, which "
            + purpose
            + ". Install "
            + what
            + " ("
            + howToInstall
            + ") and put '"
            + command
            + "' on the PATH.";
    if (!inCi()) {
      return message;
    }
    return message
        + " This is a CI build (CI="
        + System.getenv("CI")
        + "), where a missing tool fails the tests that need it instead of skipping them.";
  }
}
