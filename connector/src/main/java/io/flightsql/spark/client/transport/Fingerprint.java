package io.flightsql.spark.client.transport;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * A SHA-256 fingerprint of secrets and settings, for the keys of the JVM's caches: equal for equal
 * parts, and never printable as the secrets themselves.
 */
final class Fingerprint {
  private Fingerprint() {}

  static byte[] bytes(String s) {
    return s == null ? null : s.getBytes(StandardCharsets.UTF_8);
  }

  /** The first 16 bytes of the digest of the parts, in hex. */
  static String of(byte[]... parts) {
    try {
      MessageDigest digest = MessageDigest.getInstance("SHA-256");
      for (byte[] part : parts) {
        // Length-prefixed, so that different splits of the same bytes differ; -1 for null.
        int length = part == null ? -1 : part.length;
        digest.update(
            new byte[] {
              (byte) (length >>> 24), (byte) (length >>> 16), (byte) (length >>> 8), (byte) length
            });
        if (part != null) {
          digest.update(part);
        }
      }
      byte[] hash = digest.digest();
      StringBuilder hex = new StringBuilder();
      for (int i = 0; i < 16; i++) {
        hex.append(String.format("%02x", hash[i]));
      }
      return hex.toString();
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is missing from this JVM", e);
    }
  }
}
