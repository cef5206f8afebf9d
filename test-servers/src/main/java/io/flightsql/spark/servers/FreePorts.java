package io.flightsql.spark.servers;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;

/** Ports on 127.0.0.1 for servers that must be told their port before they start. */
public final class FreePorts {
  public static final String LOOPBACK = "127.0.0.1";

  private FreePorts() {}

  /**
   * A port that nothing listens on right now. Another process may take it before the caller binds
   * it, so callers that can retry on a bind failure should.
   */
  public static int pick() {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName(LOOPBACK))) {
      socket.setReuseAddress(true);
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException("No free port on " + LOOPBACK, e);
    }
  }

  /** Whether something accepts TCP connections on the port. */
  public static boolean accepts(int port) {
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress(LOOPBACK, port), 200);
      return true;
    } catch (IOException e) {
      return false;
    }
  }
}
