package io.flightsql.spark.server;

import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.List;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.CertIOException;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509ExtensionUtils;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.operator.ContentSigner;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;
import org.bouncycastle.util.io.pem.PemObject;

/**
 * Certificates and keys for tests of TLS and mutual TLS, generated afresh into a directory so that
 * no private key is ever checked in.
 *
 * <p>{@link #create} writes PEM files: a CA; a server certificate signed by it for {@code
 * 127.0.0.1}, {@code ::1} and {@code localhost}; a client certificate signed by it, for mutual TLS;
 * a second CA that signed nothing here, for "untrusted server" tests; and a self-signed server
 * certificate, for tests that turn certificate verification off. Keys are unencrypted PKCS#8
 * ({@code -----BEGIN PRIVATE KEY-----}), which both gRPC's Netty and Arrow Flight accept, of EC
 * (P-256) keys, which are quick to generate. Certificates are valid from yesterday until tomorrow,
 * so clock skew between processes does not matter.
 *
 * <pre>{@code
 * TestCertificates certificates = TestCertificates.create(temporaryDirectory);
 * DuckDbFlightSqlServer.builder()
 *     .tls(certificates.serverCertificate(), certificates.serverKey())
 *     .start();
 * // clients trust certificates.caCertificate()
 * }</pre>
 *
 * <p>For tests only: the keys are written unprotected and the CA signs anything it is asked to.
 */
public final class TestCertificates {

  private static final String SIGNATURE_ALGORITHM = "SHA256withECDSA";

  private final Path caCertificate;
  private final Path serverCertificate;
  private final Path serverKey;
  private final Path clientCertificate;
  private final Path clientKey;
  private final Path untrustedCaCertificate;
  private final Path selfSignedServerCertificate;
  private final Path selfSignedServerKey;

  private TestCertificates(Path directory) {
    this.caCertificate = directory.resolve("ca.pem");
    this.serverCertificate = directory.resolve("server.pem");
    this.serverKey = directory.resolve("server-key.pem");
    this.clientCertificate = directory.resolve("client.pem");
    this.clientKey = directory.resolve("client-key.pem");
    this.untrustedCaCertificate = directory.resolve("untrusted-ca.pem");
    this.selfSignedServerCertificate = directory.resolve("self-signed-server.pem");
    this.selfSignedServerKey = directory.resolve("self-signed-server-key.pem");
  }

  /**
   * Generates every certificate and key and writes them into {@code directory}, which is created if
   * needed; files of an earlier run there are overwritten.
   *
   * @throws UncheckedIOException if the files cannot be written
   */
  public static TestCertificates create(Path directory) {
    try {
      Files.createDirectories(directory);
      TestCertificates files = new TestCertificates(directory);
      files.generate();
      return files;
    } catch (IOException e) {
      throw new UncheckedIOException("Could not write test certificates to " + directory, e);
    } catch (GeneralSecurityException | OperatorCreationException e) {
      throw new IllegalStateException("Could not generate test certificates: " + e, e);
    }
  }

  /** The CA that signed the server and client certificates: what clients and servers trust. */
  public Path caCertificate() {
    return caCertificate;
  }

  /** The server certificate, signed by {@link #caCertificate()}: 127.0.0.1, ::1, localhost. */
  public Path serverCertificate() {
    return serverCertificate;
  }

  /** The private key of {@link #serverCertificate()}, PKCS#8 PEM. */
  public Path serverKey() {
    return serverKey;
  }

  /** A client certificate signed by {@link #caCertificate()}, for mutual TLS. */
  public Path clientCertificate() {
    return clientCertificate;
  }

  /** The private key of {@link #clientCertificate()}, PKCS#8 PEM. */
  public Path clientKey() {
    return clientKey;
  }

  /** A CA that signed none of these certificates: trusting it alone must fail the handshake. */
  public Path untrustedCaCertificate() {
    return untrustedCaCertificate;
  }

  /** A server certificate (127.0.0.1, ::1, localhost) signed by its own key, not by any CA. */
  public Path selfSignedServerCertificate() {
    return selfSignedServerCertificate;
  }

  /** The private key of {@link #selfSignedServerCertificate()}, PKCS#8 PEM. */
  public Path selfSignedServerKey() {
    return selfSignedServerKey;
  }

  private void generate() throws IOException, GeneralSecurityException, OperatorCreationException {
    SecureRandom random = new SecureRandom();
    KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
    generator.initialize(256, random);

    KeyPair ca = generator.generateKeyPair();
    X500Name caName = new X500Name("CN=spark-flightsql test CA");
    X509Certificate caCert = authority(caName, ca, random);
    writePem(caCertificate, "CERTIFICATE", caCert.getEncoded());

    KeyPair server = generator.generateKeyPair();
    X500Name serverName = new X500Name("CN=localhost");
    writePem(
        serverCertificate,
        "CERTIFICATE",
        leaf(serverName, server, caName, ca.getPrivate(), KeyPurposeId.id_kp_serverAuth, random)
            .getEncoded());
    writeKey(serverKey, server.getPrivate());

    KeyPair client = generator.generateKeyPair();
    writePem(
        clientCertificate,
        "CERTIFICATE",
        leaf(
                new X500Name("CN=spark-flightsql test client"),
                client,
                caName,
                ca.getPrivate(),
                KeyPurposeId.id_kp_clientAuth,
                random)
            .getEncoded());
    writeKey(clientKey, client.getPrivate());

    KeyPair untrusted = generator.generateKeyPair();
    writePem(
        untrustedCaCertificate,
        "CERTIFICATE",
        authority(new X500Name("CN=spark-flightsql untrusted test CA"), untrusted, random)
            .getEncoded());

    KeyPair selfSigned = generator.generateKeyPair();
    writePem(
        selfSignedServerCertificate,
        "CERTIFICATE",
        leaf(
                serverName,
                selfSigned,
                serverName,
                selfSigned.getPrivate(),
                KeyPurposeId.id_kp_serverAuth,
                random)
            .getEncoded());
    writeKey(selfSignedServerKey, selfSigned.getPrivate());
  }

  private static X509Certificate authority(X500Name name, KeyPair keys, SecureRandom random)
      throws CertIOException, GeneralSecurityException, OperatorCreationException {
    X509v3CertificateBuilder builder = builder(name, name, keys, random);
    builder.addExtension(Extension.basicConstraints, true, new BasicConstraints(true));
    builder.addExtension(
        Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign));
    return sign(builder, keys.getPrivate());
  }

  private static X509Certificate leaf(
      X500Name subject,
      KeyPair keys,
      X500Name issuer,
      PrivateKey issuerKey,
      KeyPurposeId purpose,
      SecureRandom random)
      throws CertIOException, GeneralSecurityException, OperatorCreationException {
    X509v3CertificateBuilder builder = builder(subject, issuer, keys, random);
    builder.addExtension(Extension.basicConstraints, true, new BasicConstraints(false));
    builder.addExtension(
        Extension.keyUsage, true, new KeyUsage(KeyUsage.digitalSignature | KeyUsage.keyAgreement));
    builder.addExtension(Extension.extendedKeyUsage, false, new ExtendedKeyUsage(purpose));
    if (purpose.equals(KeyPurposeId.id_kp_serverAuth)) {
      List<GeneralName> names =
          List.of(
              new GeneralName(GeneralName.iPAddress, "127.0.0.1"),
              new GeneralName(GeneralName.iPAddress, "::1"),
              new GeneralName(GeneralName.dNSName, "localhost"));
      builder.addExtension(
          Extension.subjectAlternativeName,
          false,
          new GeneralNames(names.toArray(GeneralName[]::new)));
    }
    return sign(builder, issuerKey);
  }

  private static X509v3CertificateBuilder builder(
      X500Name subject, X500Name issuer, KeyPair keys, SecureRandom random)
      throws CertIOException, GeneralSecurityException {
    Instant now = Instant.now();
    X509v3CertificateBuilder builder =
        new JcaX509v3CertificateBuilder(
            issuer,
            new BigInteger(64, random).add(BigInteger.ONE),
            Date.from(now.minus(Duration.ofDays(1))),
            Date.from(now.plus(Duration.ofDays(1))),
            subject,
            keys.getPublic());
    builder.addExtension(
        Extension.subjectKeyIdentifier,
        false,
        new JcaX509ExtensionUtils().createSubjectKeyIdentifier(keys.getPublic()));
    return builder;
  }

  private static X509Certificate sign(X509v3CertificateBuilder builder, PrivateKey key)
      throws GeneralSecurityException, OperatorCreationException {
    ContentSigner signer = new JcaContentSignerBuilder(SIGNATURE_ALGORITHM).build(key);
    return new JcaX509CertificateConverter().getCertificate(builder.build(signer));
  }

  /** PKCS#8, whatever the key's algorithm: {@code getEncoded()} of a JCA private key is PKCS#8. */
  private static void writeKey(Path file, PrivateKey key) throws IOException {
    writePem(file, "PRIVATE KEY", key.getEncoded());
  }

  private static void writePem(Path file, String type, byte[] der) throws IOException {
    StringWriter text = new StringWriter();
    try (JcaPEMWriter writer = new JcaPEMWriter(text)) {
      writer.writeObject(new PemObject(type, der));
    }
    Files.writeString(file, text.toString(), StandardCharsets.UTF_8);
  }
}
