package io.flightsql.spark.client.transport;

import io.grpc.netty.NettyChannelBuilder;
import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Silences gRPC's HTTP/2 frame logger on the client side. At DEBUG it prints every frame, the
 * request headers included, so a user who turns on DEBUG logging would find every password, token,
 * cookie and header value of the connector in the log. Netty asks its logger factory for that
 * logger each time gRPC opens a connection; this wraps the factory so that the logger named after
 * gRPC's client handler is one that is never enabled, and every other logger is the one the
 * original factory makes. In the shaded jar, Netty and gRPC are the connector's own relocated
 * copies, so nothing else in the JVM is affected.
 */
final class TransportLogging {
  private static final Logger LOG = LoggerFactory.getLogger(TransportLogging.class);

  /** gRPC's client handler, which names the frame logger; derived so that relocation holds. */
  private static final String FRAME_LOGGER =
      NettyChannelBuilder.class.getPackage().getName() + ".NettyClientHandler";

  private TransportLogging() {}

  /** Installs the wrapping factory once; later calls do nothing. */
  static synchronized void silenceFrameLogger() {
    InternalLoggerFactory current = InternalLoggerFactory.getDefaultFactory();
    if (current instanceof SilencingFactory) {
      return;
    }
    try {
      // The factory's method is protected; Netty has no public way to wrap a factory.
      Method newInstance =
          InternalLoggerFactory.class.getDeclaredMethod("newInstance", String.class);
      newInstance.setAccessible(true);
      InternalLoggerFactory.setDefaultFactory(new SilencingFactory(current, newInstance));
    } catch (ReflectiveOperationException | RuntimeException e) {
      LOG.warn(
          "Could not silence gRPC's HTTP/2 frame logger ({}); do not enable DEBUG logging for {},"
              + " which prints request headers (credentials included)",
          e.toString(),
          FRAME_LOGGER);
    }
  }

  private static final class SilencingFactory extends InternalLoggerFactory {
    private final InternalLoggerFactory original;
    private final Method newInstance;

    SilencingFactory(InternalLoggerFactory original, Method newInstance) {
      this.original = original;
      this.newInstance = newInstance;
    }

    @Override
    protected InternalLogger newInstance(String name) {
      if (FRAME_LOGGER.equals(name)) {
        return silent(name);
      }
      try {
        return (InternalLogger) newInstance.invoke(original, name);
      } catch (ReflectiveOperationException e) {
        throw new IllegalStateException("Netty's logger factory failed for " + name, e);
      }
    }
  }

  /** A logger with every level disabled, which logs nothing. */
  private static InternalLogger silent(String name) {
    return (InternalLogger)
        Proxy.newProxyInstance(
            InternalLogger.class.getClassLoader(),
            new Class<?>[] {InternalLogger.class},
            (proxy, method, args) -> {
              if (method.getReturnType() == boolean.class) {
                return false;
              }
              if (method.getName().equals("name")) {
                return name;
              }
              if (method.getName().equals("toString")) {
                return "silent logger " + name;
              }
              if (method.getName().equals("hashCode")) {
                return System.identityHashCode(proxy);
              }
              if (method.getName().equals("equals")) {
                return proxy == args[0];
              }
              return null;
            });
  }
}
