package io.flightsql.spark.server;

import java.nio.file.Path;
import java.util.Arrays;

/**
 * The standalone server's command line: {@code --flag value} or {@code --flag=value} pairs; {@code
 * --setting} may be given more than once.
 */
final class ServerCommandLine {

  static final String USAGE =
      """
      Usage: DuckDbFlightSqlServer [options]
        --host HOST          address to listen on (default 127.0.0.1)
        --port PORT          port to listen on, 0 for a free one (default 31337)
        --endpoints N        endpoints per query (default 2)
        --data PATH          a .sql script to run, or a directory whose *.parquet and *.csv files
                             become tables and whose *.sql files then run in name order
        --lineitem-rows N    rows of the demo table lineitem, 0 for none (default 1000000)
        --batch-rows N       most rows per Arrow batch (default 65536)
        --setting NAME=VALUE a DuckDB setting applied with SET GLOBAL at start-up, after the
                             server's defaults; repeatable. For example
                             --setting arrow_large_buffer_size=true (large_utf8, large_list)
                             --setting arrow_output_version=1.4
                             --setting produce_arrow_string_view=true (utf8_view, needs 1.4)
                             --setting arrow_lossless_conversion=true (arrow.uuid, arrow.json)
        --help               print this help\
      """;

  /** The standalone server's port, fixed so that examples can name it. */
  static final int DEFAULT_PORT = 31337;

  private ServerCommandLine() {}

  static boolean wantsHelp(String[] args) {
    return Arrays.asList(args).contains("--help") || Arrays.asList(args).contains("-h");
  }

  /**
   * A builder configured by {@code args}.
   *
   * @throws IllegalArgumentException naming the flag, for an unknown flag, a missing or bad value
   */
  static DuckDbFlightSqlServer.Builder parse(String[] args) {
    DuckDbFlightSqlServer.Builder builder = DuckDbFlightSqlServer.builder().port(DEFAULT_PORT);
    for (int i = 0; i < args.length; i++) {
      String flag = args[i];
      String value;
      int equals = flag.indexOf('=');
      if (flag.startsWith("--") && equals > 0) {
        value = flag.substring(equals + 1);
        flag = flag.substring(0, equals);
      } else if (i + 1 < args.length) {
        value = args[++i];
      } else {
        value = null;
      }
      switch (flag) {
        case "--host" -> builder.host(required(flag, value));
        case "--port" -> builder.port(integer(flag, value));
        case "--endpoints" -> builder.endpoints(integer(flag, value));
        case "--data" -> builder.data(Path.of(required(flag, value)));
        case "--lineitem-rows" -> builder.lineitemRows(number(flag, value));
        case "--batch-rows" -> builder.batchRows(integer(flag, value));
        case "--setting" -> {
          DuckDbSetting setting = DuckDbSetting.parse(required(flag, value));
          builder.setting(setting.name(), setting.value());
        }
        default -> throw new IllegalArgumentException("Unknown option '" + flag + "'");
      }
    }
    return builder;
  }

  private static String required(String flag, String value) {
    if (value == null || value.isEmpty()) {
      throw new IllegalArgumentException("Option '" + flag + "' needs a value");
    }
    return value;
  }

  private static int integer(String flag, String value) {
    long number = number(flag, value);
    if (number < Integer.MIN_VALUE || number > Integer.MAX_VALUE) {
      throw new IllegalArgumentException(
          "Invalid value '" + value + "' for option '" + flag + "': expected an integer");
    }
    return (int) number;
  }

  private static long number(String flag, String value) {
    try {
      return Long.parseLong(required(flag, value));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          "Invalid value '" + value + "' for option '" + flag + "': expected an integer", e);
    }
  }
}
