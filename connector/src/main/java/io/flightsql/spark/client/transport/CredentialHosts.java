package io.flightsql.spark.client.transport;

import com.google.common.net.InetAddresses;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * The hosts, besides that of option {@code uri}, that the connection's credentials (password,
 * token, {@code header.*} values, the bearer token a login obtained, cookies) may go to: option
 * {@code credentialHosts}. An endpoint location on any other host is refused before anything is
 * sent to it, so a server cannot collect the credentials by naming a host of its choosing in a
 * FlightInfo.
 *
 * <p>Hosts are compared as written, in any case: {@code localhost} and {@code 127.0.0.1} are
 * different hosts, as are a name and its address; nothing is resolved. Ports do not count: the
 * credentials go to every port of a host they go to, as cookies do. Entries are a host name or
 * address ({@code be1.doris.internal}, {@code 10.0.0.7}, {@code ::1}), {@code *.<domain>} for every
 * host under a domain (not the domain itself), or {@code *} for any host. Immutable and
 * Serializable.
 */
public final class CredentialHosts implements Serializable {
  private static final long serialVersionUID = 1L;

  /** The host of option {@code uri} only. */
  public static final CredentialHosts NONE = new CredentialHosts(Collections.emptyList());

  /** Letters, digits, '-', '.' of a name or IPv4 address; ':' only in an IPv6 address. */
  private static final Pattern HOST =
      Pattern.compile("[a-z0-9_-]+(\\.[a-z0-9_-]+)*|[0-9a-f.]*:[0-9a-f.]*:[0-9a-f:.]*");

  private final ArrayList<String> entries;

  private CredentialHosts(List<String> entries) {
    this.entries = new ArrayList<>(entries);
  }

  /**
   * Reads a comma-separated list of entries.
   *
   * @throws IllegalArgumentException naming the entry and what was expected; callers add the option
   */
  public static CredentialHosts parse(String text) {
    List<String> entries = new ArrayList<>();
    for (String part : text.split(",")) {
      String entry = host(part.trim());
      if (entry.isEmpty()) {
        continue;
      }
      String name = entry.startsWith("*.") ? entry.substring(2) : entry;
      if (!entry.equals("*") && !HOST.matcher(name).matches()) {
        throw new IllegalArgumentException(
            "'"
                + part.trim()
                + "' is not a host: expected host names or addresses without scheme or port"
                + " (credentials go to every port of a host), '*.<domain>' or '*'");
      }
      if (name.indexOf(':') >= 0 && entry.startsWith("*.")) {
        throw new IllegalArgumentException("'" + part.trim() + "': '*.' goes before a domain name");
      }
      entries.add(entry);
    }
    if (entries.isEmpty()) {
      throw new IllegalArgumentException("no host is given");
    }
    return new CredentialHosts(entries);
  }

  /** Whether the credentials of a connection to {@code server} may go to {@code target}. */
  public boolean allows(FlightUri server, FlightUri target) {
    String host = host(target.host());
    if (host.equals(host(server.host()))) {
      return true;
    }
    for (String entry : entries) {
      if (entry.equals("*")
          || entry.equals(host)
          || (entry.startsWith("*.")
              && host.endsWith(entry.substring(1))
              && !InetAddresses.isInetAddress(host))) {
        return true;
      }
    }
    return false;
  }

  /** A host as compared: lower case, an IPv6 address without its brackets. */
  private static String host(String text) {
    String lower = text.toLowerCase(Locale.ROOT);
    return lower.startsWith("[") && lower.endsWith("]")
        ? lower.substring(1, lower.length() - 1)
        : lower;
  }

  /** The entries, comma-separated, as the option takes them (no secret). */
  @Override
  public String toString() {
    return String.join(",", entries);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof CredentialHosts && ((CredentialHosts) o).entries.equals(entries);
  }

  @Override
  public int hashCode() {
    return entries.hashCode();
  }
}
