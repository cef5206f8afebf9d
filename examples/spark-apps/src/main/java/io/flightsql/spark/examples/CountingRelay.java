package io.flightsql.spark.examples;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A TCP relay on 127.0.0.1 in front of a server on 127.0.0.1 that counts the bytes that reach the
 * server, for a benchmark whose server cannot count them itself (a third-party one). The count is
 * of the TCP payload, so it includes HTTP/2's framing, and it moves as the bytes pass: Toxiproxy's
 * own byte counters only move when a connection closes, and the connector keeps its connections
 * open. Each connection takes two daemon threads, one per direction, until either side closes it or
 * the relay is closed.
 */
final class CountingRelay implements AutoCloseable {
  private static final int BUFFER = 64 * 1024;

  private final ServerSocket listener;
  private final int upstreamPort;
  private final AtomicLong upstreamBytes = new AtomicLong();
  private final List<Socket> sockets = new CopyOnWriteArrayList<>();

  private CountingRelay(ServerSocket listener, int upstreamPort) {
    this.listener = listener;
    this.upstreamPort = upstreamPort;
  }

  /** Listens on a free port of 127.0.0.1 and relays every connection to {@code upstreamPort}. */
  static CountingRelay start(int upstreamPort) throws IOException {
    CountingRelay relay =
        new CountingRelay(new ServerSocket(0, 50, InetAddress.getLoopbackAddress()), upstreamPort);
    daemon("relay-accept", relay::accept).start();
    return relay;
  }

  /** The port of 127.0.0.1 that leads to the server. */
  int port() {
    return listener.getLocalPort();
  }

  /** The bytes that clients have sent to the server through the relay since it started. */
  long upstreamBytes() {
    return upstreamBytes.get();
  }

  @Override
  public void close() {
    closeQuietly(listener);
    sockets.forEach(CountingRelay::closeQuietly);
  }

  private void accept() {
    while (!listener.isClosed()) {
      Socket client;
      try {
        client = listener.accept();
      } catch (IOException e) {
        // The listener was closed: the relay is done.
        return;
      }
      Socket server;
      try {
        server = new Socket(InetAddress.getLoopbackAddress(), upstreamPort);
      } catch (IOException e) {
        // The client sees its connection closed, as it would with the server down.
        closeQuietly(client);
        continue;
      }
      noDelay(client);
      noDelay(server);
      sockets.add(client);
      sockets.add(server);
      daemon("relay-up", () -> pump(client, server, upstreamBytes)).start();
      daemon("relay-down", () -> pump(server, client, new AtomicLong())).start();
    }
  }

  /** Copies {@code from} to {@code to} until either ends, then closes both. */
  private void pump(Socket from, Socket to, AtomicLong counter) {
    byte[] buffer = new byte[BUFFER];
    try (InputStream in = from.getInputStream();
        OutputStream out = to.getOutputStream()) {
      int read;
      while ((read = in.read(buffer)) >= 0) {
        out.write(buffer, 0, read);
        out.flush();
        counter.addAndGet(read);
      }
    } catch (IOException e) {
      // A reset or a closed socket ends this connection like a close does.
    } finally {
      closeQuietly(from);
      closeQuietly(to);
      sockets.remove(from);
      sockets.remove(to);
    }
  }

  /** Sends small writes at once, as gRPC asks of its own sockets. */
  private static void noDelay(Socket socket) {
    try {
      socket.setTcpNoDelay(true);
    } catch (SocketException e) {
      // A socket that is already broken fails at its first read instead.
    }
  }

  private static Thread daemon(String name, Runnable body) {
    Thread thread = new Thread(body, name);
    thread.setDaemon(true);
    return thread;
  }

  private static void closeQuietly(AutoCloseable closeable) {
    try {
      closeable.close();
    } catch (Exception e) {
      // Closing on the way out: nothing left to do with a failure.
    }
  }
}
