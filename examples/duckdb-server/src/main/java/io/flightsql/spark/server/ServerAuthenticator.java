package io.flightsql.spark.server;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.arrow.flight.CallHeaders;
import org.apache.arrow.flight.CallStatus;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.auth2.Auth2Constants;
import org.apache.arrow.flight.auth2.CallHeaderAuthenticator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Checks the {@code authorization} header of every call: Flight's basic authentication, which
 * answers a correct {@code Basic base64(user:password)} with a generated bearer token in the
 * response's {@code authorization} header, and bearer tokens, either one of those or a fixed token
 * given at start-up. Anything else is refused with {@code UNAUTHENTICATED}.
 *
 * <p>This does what Arrow's {@code BasicCallHeaderAuthenticator} inside a {@code
 * GeneratedBearerTokenAuthenticator} does, plus what tests need of it: {@link #expireTokens()}
 * (Arrow's token cache cannot be emptied from outside), a fixed token beside basic authentication,
 * and refusals that say what was wrong. Credentials are compared in constant time.
 *
 * <p>Thread-safe.
 */
final class ServerAuthenticator implements CallHeaderAuthenticator {

  private static final Logger LOG = LoggerFactory.getLogger(ServerAuthenticator.class);

  private static final SecureRandom RANDOM = new SecureRandom();

  private final String username;
  private final byte[] password;
  private final byte[] fixedToken;

  /** Tokens handed out by basic authentication, to the user they authenticate. */
  private final Map<String, String> issuedTokens = new ConcurrentHashMap<>();

  /**
   * @param username null when basic authentication is off
   * @param password null when basic authentication is off
   * @param fixedToken null for none
   */
  ServerAuthenticator(String username, String password, String fixedToken) {
    this.username = username;
    this.password = password == null ? null : password.getBytes(StandardCharsets.UTF_8);
    this.fixedToken = fixedToken == null ? null : fixedToken.getBytes(StandardCharsets.UTF_8);
  }

  @Override
  public AuthResult authenticate(CallHeaders headers) {
    String authorization = headers.get(Auth2Constants.AUTHORIZATION_HEADER);
    if (authorization == null || authorization.isBlank()) {
      throw unauthenticated("Missing credentials: " + expected());
    }
    String bearer = credentials(authorization, Auth2Constants.BEARER_PREFIX);
    if (bearer != null) {
      return bearer(bearer);
    }
    String basic = credentials(authorization, Auth2Constants.BASIC_PREFIX);
    if (basic != null) {
      return basic(basic);
    }
    throw unauthenticated("Unsupported authorization scheme: " + expected());
  }

  /** Forgets every token handed out so far: the next call with one is refused. */
  void expireTokens() {
    int count = issuedTokens.size();
    issuedTokens.clear();
    LOG.info("Expired {} bearer tokens", count);
  }

  private AuthResult bearer(String token) {
    if (fixedToken != null
        && MessageDigest.isEqual(fixedToken, token.getBytes(StandardCharsets.UTF_8))) {
      return () -> "token";
    }
    String user = issuedTokens.get(token);
    if (user != null) {
      return () -> user;
    }
    throw unauthenticated(
        "Invalid or expired bearer token"
            + (password != null ? ": authenticate again with the user name and password" : ""));
  }

  private AuthResult basic(String encoded) {
    if (password == null) {
      throw unauthenticated("This server does not accept Basic credentials: " + expected());
    }
    String decoded;
    try {
      decoded = new String(Base64.getDecoder().decode(encoded.trim()), StandardCharsets.UTF_8);
    } catch (IllegalArgumentException e) {
      throw unauthenticated("Invalid Basic credentials: not base64 of user:password");
    }
    int colon = decoded.indexOf(':');
    if (colon < 0) {
      throw unauthenticated("Invalid Basic credentials: not base64 of user:password");
    }
    // Both compared, whatever the first comparison says, so that timing tells nothing.
    boolean userMatches =
        MessageDigest.isEqual(
            username.getBytes(StandardCharsets.UTF_8),
            decoded.substring(0, colon).getBytes(StandardCharsets.UTF_8));
    boolean passwordMatches =
        MessageDigest.isEqual(
            password, decoded.substring(colon + 1).getBytes(StandardCharsets.UTF_8));
    if (!userMatches || !passwordMatches) {
      throw unauthenticated("Invalid user name or password");
    }
    byte[] bytes = new byte[32];
    RANDOM.nextBytes(bytes);
    String token = Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    issuedTokens.put(token, username);
    return new AuthResult() {
      @Override
      public String getPeerIdentity() {
        return username;
      }

      @Override
      public void appendToOutgoingHeaders(CallHeaders outgoing) {
        outgoing.insert(Auth2Constants.AUTHORIZATION_HEADER, Auth2Constants.BEARER_PREFIX + token);
      }
    };
  }

  /** What follows {@code prefix} ({@code "Basic "}, {@code "Bearer "}, any case), or null. */
  private static String credentials(String authorization, String prefix) {
    if (authorization.regionMatches(true, 0, prefix, 0, prefix.length())) {
      return authorization.substring(prefix.length()).trim();
    }
    return null;
  }

  private String expected() {
    List<String> schemes = new ArrayList<>();
    if (password != null) {
      schemes.add("'Basic <base64 of user:password>'");
    }
    schemes.add("'Bearer <token>'");
    return "send an 'authorization' header of " + String.join(" or ", schemes);
  }

  private static FlightRuntimeException unauthenticated(String message) {
    return CallStatus.UNAUTHENTICATED.withDescription(message).toRuntimeException();
  }
}
