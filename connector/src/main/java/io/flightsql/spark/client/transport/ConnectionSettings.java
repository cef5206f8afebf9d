package io.flightsql.spark.client.transport;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * How to reach and talk to one Flight SQL server: its address, credentials, TLS material, extra
 * headers, timeouts and session defaults. Built once on the driver (files named by options are read
 * there, since executors may not have them) and shipped to executors inside the read and write
 * configs. Immutable and Serializable. It holds secrets (password, token, private key, header
 * values): {@link #toString()} shows none of them, and the keys of the JVM's caches are
 * fingerprints, never the secrets themselves.
 */
public final class ConnectionSettings implements Serializable {
  private static final long serialVersionUID = 1L;

  private final FlightUri uri;
  private final String username;
  private final String password;
  private final String token;
  private final byte[] rootCertificates;
  private final boolean skipCertificateVerification;
  private final byte[] clientCertificate;
  private final byte[] clientKey;
  private final TreeMap<String, String> headers;
  private final long connectTimeoutMillis;
  private final long callTimeoutMillis;
  private final long streamIdleTimeoutMillis;
  private final long keepAliveTimeMillis;
  private final int maxRetries;
  private final int maxInboundMessageSize;
  private final boolean allowInsecureLocations;
  private final CredentialHosts credentialHosts;
  private final long taskMemoryLimit;
  private final String catalog;
  private final String schema;

  private ConnectionSettings(Builder b) {
    this.uri = Objects.requireNonNull(b.uri, "uri");
    this.username = b.username;
    this.password = b.password;
    this.token = b.token;
    this.rootCertificates = b.rootCertificates;
    this.skipCertificateVerification = b.skipCertificateVerification;
    this.clientCertificate = b.clientCertificate;
    this.clientKey = b.clientKey;
    this.headers = new TreeMap<>(b.headers);
    this.connectTimeoutMillis = b.connectTimeoutMillis;
    this.callTimeoutMillis = b.callTimeoutMillis;
    this.streamIdleTimeoutMillis = b.streamIdleTimeoutMillis;
    this.keepAliveTimeMillis = b.keepAliveTimeMillis;
    this.maxRetries = b.maxRetries;
    this.maxInboundMessageSize = b.maxInboundMessageSize;
    this.allowInsecureLocations = b.allowInsecureLocations;
    this.credentialHosts = b.credentialHosts;
    this.taskMemoryLimit = b.taskMemoryLimit;
    this.catalog = b.catalog;
    this.schema = b.schema;
  }

  public static Builder builder(FlightUri uri) {
    return new Builder(uri);
  }

  /** Settings with nothing but the address: plaintext or default TLS, no credentials. */
  public static ConnectionSettings of(FlightUri uri) {
    return builder(uri).build();
  }

  public FlightUri uri() {
    return uri;
  }

  /** The user of basic authentication, or null. */
  public String username() {
    return username;
  }

  String password() {
    return password;
  }

  /** Whether the connector logs in with a user name and password (and so can log in again). */
  public boolean basicAuth() {
    return username != null;
  }

  /** The fixed bearer token of option {@code token}, or null. */
  String token() {
    return token;
  }

  byte[] rootCertificates() {
    return rootCertificates;
  }

  boolean skipCertificateVerification() {
    return skipCertificateVerification;
  }

  byte[] clientCertificate() {
    return clientCertificate;
  }

  byte[] clientKey() {
    return clientKey;
  }

  Map<String, String> headers() {
    return Collections.unmodifiableMap(headers);
  }

  /** How long a call waits for its connection (TCP, TLS and HTTP/2 handshakes), in ms. */
  public long connectTimeoutMillis() {
    return connectTimeoutMillis;
  }

  /** The deadline of each call in milliseconds, or 0 for none. */
  public long callTimeoutMillis() {
    return callTimeoutMillis;
  }

  /** How long a stream may bring nothing before it is cancelled, in milliseconds; 0 for ever. */
  public long streamIdleTimeoutMillis() {
    return streamIdleTimeoutMillis;
  }

  /** The gRPC keepalive time of the channel in milliseconds, or 0 for no keepalive pings. */
  public long keepAliveTimeMillis() {
    return keepAliveTimeMillis;
  }

  /** How many times a planning call that failed with UNAVAILABLE is tried again. */
  public int maxRetries() {
    return maxRetries;
  }

  int maxInboundMessageSize() {
    return maxInboundMessageSize;
  }

  public boolean allowInsecureLocations() {
    return allowInsecureLocations;
  }

  /** The hosts besides that of {@code uri} that the credentials go to (option credentialHosts). */
  public CredentialHosts credentialHosts() {
    return credentialHosts;
  }

  /** The most Arrow memory one session may hold (option taskMemoryLimit), or 0 for the default. */
  public long taskMemoryLimit() {
    return taskMemoryLimit;
  }

  /** The options that give credentials, by name (never their values); empty when none does. */
  public List<String> credentialOptions() {
    List<String> names = new ArrayList<>();
    if (username != null) {
      names.add("username/password");
    }
    if (token != null) {
      names.add("token");
    }
    headers.keySet().forEach(name -> names.add("header." + name));
    return names;
  }

  /** The session's default catalog (option {@code catalog}), or null. */
  public String catalog() {
    return catalog;
  }

  /** The session's default schema (option {@code schema}), or null. */
  public String schema() {
    return schema;
  }

  /**
   * A fingerprint of the transport settings (TLS material, timeouts, message size): channels are
   * shared only between users with the same one.
   */
  String transportFingerprint() {
    return fingerprint(
        rootCertificates,
        new byte[] {(byte) (skipCertificateVerification ? 1 : 0)},
        clientCertificate,
        clientKey,
        bytes(Long.toString(connectTimeoutMillis)),
        bytes(Integer.toString(maxInboundMessageSize)),
        bytes(Long.toString(keepAliveTimeMillis)));
  }

  /**
   * A fingerprint of who the connector is to the server (credentials, headers, TLS identity), for
   * keys of caches of tokens: never printable as a secret, and equal only for the same identity.
   */
  public String identityFingerprint() {
    byte[][] parts = new byte[5 + 2 * headers.size()][];
    parts[0] = bytes(uri.toString());
    parts[1] = bytes(username);
    parts[2] = bytes(password);
    parts[3] = bytes(token);
    parts[4] = bytes(transportFingerprint());
    int i = 5;
    for (Map.Entry<String, String> header : headers.entrySet()) {
      parts[i++] = bytes(header.getKey());
      parts[i++] = bytes(header.getValue());
    }
    return fingerprint(parts);
  }

  /**
   * Whether both settings present the same identity to the server (credentials, headers, TLS
   * material), compared by fingerprint.
   */
  public boolean sameIdentity(ConnectionSettings other) {
    return identityFingerprint().equals(other.identityFingerprint());
  }

  private static byte[] bytes(String s) {
    return Fingerprint.bytes(s);
  }

  private static String fingerprint(byte[]... parts) {
    return Fingerprint.of(parts);
  }

  /** What the settings are, without any secret: the user name, and header names only. */
  @Override
  public String toString() {
    StringBuilder s = new StringBuilder("ConnectionSettings{uri=").append(uri);
    if (username != null) {
      s.append(", auth=basic(user=").append(username).append(')');
    } else if (token != null) {
      s.append(", auth=token");
    }
    if (uri.isTls()) {
      s.append(", tls=")
          .append(
              skipCertificateVerification
                  ? "unverified"
                  : rootCertificates != null ? "tlsRootCerts" : "default trust store");
      if (clientCertificate != null) {
        s.append("+client certificate");
      }
    }
    if (!headers.isEmpty()) {
      s.append(", headers=").append(headers.keySet());
    }
    if (!credentialHosts.equals(CredentialHosts.NONE)) {
      s.append(", credentialHosts=").append(credentialHosts);
    }
    if (callTimeoutMillis > 0) {
      s.append(", callTimeout=").append(callTimeoutMillis).append("ms");
    }
    if (catalog != null) {
      s.append(", catalog=").append(catalog);
    }
    if (schema != null) {
      s.append(", schema=").append(schema);
    }
    return s.append('}').toString();
  }

  /** Collects the settings; every field but the address is optional. */
  public static final class Builder {
    private final FlightUri uri;
    private String username;
    private String password;
    private String token;
    private byte[] rootCertificates;
    private boolean skipCertificateVerification;
    private byte[] clientCertificate;
    private byte[] clientKey;
    private final Map<String, String> headers = new TreeMap<>();
    private long connectTimeoutMillis = 30_000L;
    private long callTimeoutMillis;
    private long streamIdleTimeoutMillis = 300_000L;
    private long keepAliveTimeMillis = 300_000L;
    private int maxRetries = 3;
    private int maxInboundMessageSize = 256 * 1024 * 1024;
    private boolean allowInsecureLocations;
    private CredentialHosts credentialHosts = CredentialHosts.NONE;
    private long taskMemoryLimit;
    private String catalog;
    private String schema;

    private Builder(FlightUri uri) {
      this.uri = uri;
    }

    public Builder basicAuth(String username, String password) {
      this.username = username;
      this.password = password;
      return this;
    }

    public Builder token(String token) {
      this.token = token;
      return this;
    }

    /** PEM certificates of the authorities to trust instead of the JVM's default trust store. */
    public Builder rootCertificates(byte[] pem) {
      this.rootCertificates = pem == null ? null : pem.clone();
      return this;
    }

    /** Accept any server certificate: encrypted, but not authenticated. */
    public Builder skipCertificateVerification() {
      this.skipCertificateVerification = true;
      return this;
    }

    /** Mutual TLS: the client's PEM certificate chain and PKCS#8 PEM private key. */
    public Builder clientCertificate(byte[] certificatePem, byte[] keyPem) {
      this.clientCertificate = certificatePem.clone();
      this.clientKey = keyPem.clone();
      return this;
    }

    public Builder header(String name, String value) {
      headers.put(name, value);
      return this;
    }

    public Builder connectTimeoutMillis(long millis) {
      this.connectTimeoutMillis = millis;
      return this;
    }

    public Builder callTimeoutMillis(long millis) {
      this.callTimeoutMillis = millis;
      return this;
    }

    public Builder streamIdleTimeoutMillis(long millis) {
      this.streamIdleTimeoutMillis = millis;
      return this;
    }

    public Builder keepAliveTimeMillis(long millis) {
      this.keepAliveTimeMillis = millis;
      return this;
    }

    public Builder maxRetries(int retries) {
      this.maxRetries = retries;
      return this;
    }

    public Builder maxInboundMessageSize(int bytes) {
      this.maxInboundMessageSize = bytes;
      return this;
    }

    public Builder allowInsecureLocations() {
      this.allowInsecureLocations = true;
      return this;
    }

    public Builder credentialHosts(CredentialHosts hosts) {
      this.credentialHosts = hosts;
      return this;
    }

    public Builder taskMemoryLimit(long bytes) {
      this.taskMemoryLimit = bytes;
      return this;
    }

    public Builder sessionDefaults(String catalog, String schema) {
      this.catalog = catalog;
      this.schema = schema;
      return this;
    }

    public ConnectionSettings build() {
      return new ConnectionSettings(this);
    }
  }
}
