package io.flightsql.spark.client.transport;

import com.google.common.net.InetAddresses;
import com.google.common.net.InternetDomainName;
import java.net.HttpCookie;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;

/**
 * The cookies one session's servers set, kept and sent back as RFC 6265 says (sections 5.1 to 5.4),
 * so that what one host sets goes to no other: a cookie without a Domain attribute goes back only
 * to the host that set it; one with a Domain goes to that domain and its subdomains, if the host
 * that set it is in that domain and the domain is not a public suffix ({@code com}, {@code co.uk});
 * a Path limits the calls it goes with (gRPC paths, {@code
 * /arrow.flight.protocol.FlightService/DoGet}); a Secure cookie goes only over TLS; Max-Age and
 * Expires end it. Ports do not separate cookies, as in browsers. Thread-safe: gRPC callback threads
 * store what task threads send.
 */
final class CookieJar {
  private final List<SessionCookie> cookies = new ArrayList<>();

  CookieJar(Collection<SessionCookie> seed) {
    cookies.addAll(seed);
  }

  /**
   * Stores the cookies of a {@code set-cookie} header that {@code from} sent in answer to a call of
   * {@code requestPath}; those it may not set are ignored.
   *
   * @return the names of the cookies stored (or deleted)
   * @throws IllegalArgumentException when the header cannot be parsed
   */
  synchronized List<String> receive(
      FlightUri from, String requestPath, String header, long nowMillis) {
    String host = from.host().toLowerCase(Locale.ROOT);
    List<String> names = new ArrayList<>();
    for (HttpCookie parsed : HttpCookie.parse(header)) {
      SessionCookie cookie = stored(parsed, host, requestPath, nowMillis);
      if (cookie == null) {
        continue;
      }
      names.add(cookie.name);
      SessionCookie old = null;
      for (SessionCookie c : cookies) {
        if (c.sameSlot(cookie)) {
          old = c;
        }
      }
      cookies.remove(old);
      if (!cookie.expired(nowMillis)) {
        cookies.add(
            old == null
                ? cookie
                : new SessionCookie(
                    cookie.name,
                    cookie.value,
                    cookie.domain,
                    cookie.hostOnly,
                    cookie.path,
                    cookie.secure,
                    cookie.expiresAtMillis,
                    old.createdAtMillis));
      }
    }
    return names;
  }

  /**
   * The {@code cookie} header of a call of {@code requestPath} to {@code to}: the cookies that go
   * there, longer paths first, then older ones first; null when none does.
   */
  String header(FlightUri to, String requestPath, long nowMillis) {
    return header(to, requestPath, nowMillis, false);
  }

  /**
   * As {@link #header(FlightUri, String, long)}, with only the cookies {@code to}'s host set for
   * itself alone (no Domain): for a host the connection's credentials do not go to.
   */
  String ownCookiesHeader(FlightUri to, String requestPath, long nowMillis) {
    return header(to, requestPath, nowMillis, true);
  }

  private synchronized String header(
      FlightUri to, String requestPath, long nowMillis, boolean hostOnly) {
    cookies.removeIf(c -> c.expired(nowMillis));
    String host = to.host().toLowerCase(Locale.ROOT);
    List<SessionCookie> sent = new ArrayList<>();
    for (SessionCookie c : cookies) {
      if ((c.hostOnly ? host.equals(c.domain) : !hostOnly && domainMatches(host, c.domain))
          && pathMatches(requestPath, c.path)
          && (!c.secure || to.isTls())) {
        sent.add(c);
      }
    }
    if (sent.isEmpty()) {
      return null;
    }
    sent.sort(
        Comparator.comparingInt((SessionCookie c) -> -c.path.length())
            .thenComparingLong(c -> c.createdAtMillis));
    StringBuilder header = new StringBuilder();
    for (SessionCookie c : sent) {
      if (header.length() > 0) {
        header.append("; ");
      }
      header.append(c.name).append('=').append(c.value);
    }
    return header.toString();
  }

  /** The cookies that have not expired, to continue the session elsewhere. */
  synchronized List<SessionCookie> snapshot(long nowMillis) {
    cookies.removeIf(c -> c.expired(nowMillis));
    return new ArrayList<>(cookies);
  }

  /** The cookie as RFC 6265's storage model keeps it, or null when the host may not set it. */
  private static SessionCookie stored(
      HttpCookie parsed, String host, String requestPath, long nowMillis) {
    String domain =
        parsed.getDomain() == null
            ? ""
            : parsed.getDomain().toLowerCase(Locale.ROOT).replaceFirst("^\\.", "");
    boolean hostOnly = domain.isEmpty();
    if (!hostOnly && isPublicSuffix(domain)) {
      if (!domain.equals(host)) {
        return null;
      }
      hostOnly = true;
    }
    if (hostOnly) {
      domain = host;
    } else if (!domainMatches(host, domain)) {
      return null;
    }
    String path = parsed.getPath();
    if (path == null || !path.startsWith("/")) {
      path = defaultPath(requestPath);
    }
    // HttpCookie turns Expires into a Max-Age; -1 means neither was given.
    long maxAge = parsed.getMaxAge();
    long expires =
        maxAge == -1
            ? SessionCookie.SESSION
            : maxAge <= 0 ? nowMillis : nowMillis + Math.min(maxAge, Long.MAX_VALUE / 2000) * 1000;
    return new SessionCookie(
        parsed.getName(),
        parsed.getValue(),
        domain,
        hostOnly,
        path,
        parsed.getSecure(),
        expires,
        nowMillis);
  }

  private static boolean isPublicSuffix(String domain) {
    return InternetDomainName.isValid(domain) && InternetDomainName.from(domain).isPublicSuffix();
  }

  /** RFC 6265, 5.1.3: the host is the domain, or a host name ending with "." + domain. */
  static boolean domainMatches(String host, String domain) {
    if (host.equals(domain)) {
      return true;
    }
    return host.endsWith(domain)
        && host.charAt(host.length() - domain.length() - 1) == '.'
        && !InetAddresses.isInetAddress(host);
  }

  /** RFC 6265, 5.1.4: the cookie's path is the request's, or a directory above it. */
  static boolean pathMatches(String requestPath, String cookiePath) {
    if (requestPath.equals(cookiePath)) {
      return true;
    }
    return requestPath.startsWith(cookiePath)
        && (cookiePath.endsWith("/") || requestPath.charAt(cookiePath.length()) == '/');
  }

  /** RFC 6265, 5.1.4: the directory of the request's path. */
  static String defaultPath(String requestPath) {
    int last = requestPath.lastIndexOf('/');
    return !requestPath.startsWith("/") || last <= 0 ? "/" : requestPath.substring(0, last);
  }
}
