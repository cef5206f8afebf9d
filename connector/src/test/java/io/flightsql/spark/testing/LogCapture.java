package io.flightsql.spark.testing;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.HashMap;
import java.util.Map;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.Appender;
import org.apache.logging.log4j.core.LogEvent;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.appender.AbstractAppender;
import org.apache.logging.log4j.core.config.Configuration;
import org.apache.logging.log4j.core.config.LoggerConfig;
import org.apache.logging.log4j.core.config.Property;

/**
 * Captures every log line of the JVM at TRACE, from log4j2 (Spark's backend in tests, behind slf4j)
 * and java.util.logging (gRPC's), with the stack traces of logged exceptions, while keeping them
 * off the console. {@link #close()} restores the configuration.
 */
public final class LogCapture implements AutoCloseable {
  private final StringBuilder text = new StringBuilder();
  private final java.util.Set<String> ignored;
  private final LoggerContext context = (LoggerContext) LogManager.getContext(false);
  private final Map<LoggerConfig, Level> levels = new HashMap<>();
  private final Map<String, Appender> rootAppenders = new HashMap<>();
  private final Appender appender;
  private static final String[] JUL_LOGGERS = {
    "io.grpc", "io.netty", "org.apache.arrow", "io.flightsql"
  };

  /** Stands for "no level of its own" in {@link #julLoggers}, whose values cannot be null. */
  private static final java.util.logging.Level NO_LEVEL =
      new java.util.logging.Level("NONE", Integer.MIN_VALUE + 1) {};

  private final Handler julHandler;
  private final Map<java.util.logging.Logger, java.util.logging.Level> julLoggers = new HashMap<>();

  private LogCapture(java.util.Set<String> ignored) {
    this.ignored = ignored;
    Configuration config = context.getConfiguration();
    appender =
        new AbstractAppender("capture", null, null, true, Property.EMPTY_ARRAY) {
          @Override
          public void append(LogEvent event) {
            add(event.getLoggerName(), event.getMessage().getFormattedMessage(), event.getThrown());
          }
        };
    appender.start();
    LoggerConfig root = config.getRootLogger();
    rootAppenders.putAll(root.getAppenders());
    for (String name : rootAppenders.keySet()) {
      root.removeAppender(name);
    }
    root.addAppender(appender, Level.ALL, null);
    for (LoggerConfig logger : config.getLoggers().values()) {
      levels.put(logger, logger.getLevel());
      logger.setLevel(Level.ALL);
    }
    levels.putIfAbsent(root, root.getLevel());
    root.setLevel(Level.ALL);
    context.updateLoggers();

    java.util.logging.Logger julRoot = java.util.logging.Logger.getLogger("");
    julHandler =
        new Handler() {
          @Override
          public void publish(LogRecord record) {
            // A handler runs in the logging thread and its exceptions reach the caller: the raw
            // message and parameters are kept as they are, never formatted.
            StringBuilder message = new StringBuilder(String.valueOf(record.getMessage()));
            if (record.getParameters() != null) {
              for (Object parameter : record.getParameters()) {
                message.append(" | ").append(parameter);
              }
            }
            add(record.getLoggerName(), message.toString(), record.getThrown());
          }

          @Override
          public void flush() {}

          @Override
          public void close() {}
        };
    julHandler.setLevel(java.util.logging.Level.ALL);
    julRoot.addHandler(julHandler);
    // java.util.logging at its finest for the libraries that carry the connector's calls (gRPC,
    // Netty, Arrow) and the connector, not for everything: Janino's FINE messages make Spark's
    // JUL-to-slf4j bridge throw while Spark compiles generated code.
    for (String name : JUL_LOGGERS) {
      java.util.logging.Logger logger = java.util.logging.Logger.getLogger(name);
      julLoggers.put(logger, logger.getLevel() == null ? NO_LEVEL : logger.getLevel());
      logger.setLevel(java.util.logging.Level.ALL);
    }
  }

  /** Starts capturing everything but the lines of loggers named in {@code ignoredLoggers}. */
  public static LogCapture start(String... ignoredLoggers) {
    return new LogCapture(java.util.Set.of(ignoredLoggers));
  }

  private synchronized void add(String logger, String message, Throwable thrown) {
    if (ignored.contains(logger)) {
      return;
    }
    text.append(logger).append(": ").append(message).append('\n');
    if (thrown != null) {
      text.append(stackTrace(thrown));
    }
  }

  /** Every line captured so far. */
  public synchronized String text() {
    return text.toString();
  }

  /** The stack trace of {@code t} as printed, causes and suppressed exceptions included. */
  public static String stackTrace(Throwable t) {
    StringWriter out = new StringWriter();
    t.printStackTrace(new PrintWriter(out));
    return out.toString();
  }

  @Override
  public void close() {
    java.util.logging.Logger julRoot = java.util.logging.Logger.getLogger("");
    julRoot.removeHandler(julHandler);
    julLoggers.forEach((logger, level) -> logger.setLevel(level == NO_LEVEL ? null : level));
    Configuration config = context.getConfiguration();
    LoggerConfig root = config.getRootLogger();
    root.removeAppender(appender.getName());
    for (Appender original : rootAppenders.values()) {
      root.addAppender(original, null, null);
    }
    levels.forEach(LoggerConfig::setLevel);
    context.updateLoggers();
    appender.stop();
  }
}
