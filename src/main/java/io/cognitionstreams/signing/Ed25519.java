package io.cognitionstreams.signing;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.Signature;
import java.security.interfaces.EdECPrivateKey;
import java.security.spec.PKCS8EncodedKeySpec;
import java.security.spec.X509EncodedKeySpec;
import java.util.Base64;
import java.util.HexFormat;
import java.util.Locale;
import java.util.Optional;

/**
 * Ed25519 with the JDK, as everything in the app that signs or checks a record uses it (the gatekeeper's approvals,
 * council messages): key pairs and their PEM files, key ids, signatures in base64, and the length-prefixed canonical
 * form the signed bytes are written in.
 *
 * <p>Keys are PEM files as OpenSSL writes them ({@code openssl genpkey -algorithm ed25519}): PKCS#8 private, X.509
 * public, the public one beside the private one as {@code <file>.pub}.
 */
public final class Ed25519 {

    public static final String ALGORITHM = "Ed25519";
    private static final int X509_PREFIX_BYTES = 12;
    private static final int PUBLIC_KEY_BYTES = org.bouncycastle.math.ec.rfc8032.Ed25519.PUBLIC_KEY_SIZE;
    private static final int SIGNATURE_BYTES = org.bouncycastle.math.ec.rfc8032.Ed25519.SIGNATURE_SIZE;
    /** Signed and checked when a key file is read, to tell a public key that is not the private key's half. */
    private static final byte[] PROBE = "cognition-streams/key-probe".getBytes(StandardCharsets.UTF_8);

    private Ed25519() {
    }

    /** A key pair and its id. Thread-safe: a {@link Signature} is made per call (they are cheap; the key is not). */
    public record Key(KeyPair pair, String id) {

        public Key(KeyPair pair) {
            this(pair, keyId(pair.getPublic()));
        }

        /** A key made for this process only: tests, and drawing topologies. */
        public static Key generated() {
            try {
                return new Key(KeyPairGenerator.getInstance(ALGORITHM).generateKeyPair());
            } catch (GeneralSecurityException e) {
                throw new IllegalStateException("this JVM has no Ed25519", e);
            }
        }

        /**
         * The signature of {@code bytes}, in base64. Made with Bouncy Castle's RFC 8032 code, as {@link #problem}
         * checks: Ed25519 gives one signature per key and bytes, so it is the JDK's to the bit, at a tenth of the
         * JDK's cost (about 2 ms a signature against 0.2 ms on a loaded 2-core machine; the council signs every
         * decision and the gatekeeper every approval: docs/benchmarks.md, "Council approval latency"). A key that
         * does not give its raw bytes (a hardware token's) is signed by the JDK.
         */
        public String sign(byte[] bytes) {
            byte[] publicKey = pair.getPublic().getEncoded();
            Optional<byte[]> seed = pair.getPrivate() instanceof EdECPrivateKey edec ? edec.getBytes()
                    : Optional.empty();
            if (seed.isEmpty() || publicKey.length != X509_PREFIX_BYTES + PUBLIC_KEY_BYTES) {
                return Base64.getEncoder().encodeToString(jdkSignature(bytes));
            }
            byte[] signature = new byte[SIGNATURE_BYTES];
            org.bouncycastle.math.ec.rfc8032.Ed25519.sign(seed.get(), 0, publicKey, X509_PREFIX_BYTES, bytes, 0,
                    bytes.length, signature, 0);
            return Base64.getEncoder().encodeToString(signature);
        }

        /** The JDK's signature of {@code bytes}. */
        byte[] jdkSignature(byte[] bytes) {
            try {
                Signature signature = Signature.getInstance(ALGORITHM);
                signature.initSign(pair.getPrivate());
                signature.update(bytes);
                return signature.sign();
            } catch (GeneralSecurityException e) {
                throw new IllegalStateException("cannot sign with an Ed25519 key", e);
            }
        }

        public PublicKey publicKey() {
            return pair.getPublic();
        }
    }

    /**
     * Empty when {@code base64Signature} is {@code key}'s signature of {@code bytes}; else what is wrong with it:
     * "not base64", or "does not match" (forged, made with another key, or the bytes changed since).
     *
     * <p>Checked with Bouncy Castle's RFC 8032 code rather than the JDK's provider: the same verification, five to
     * ten times faster (docs/benchmarks.md, "Council"), and every council message and approval pays for one.
     */
    public static Optional<String> problem(PublicKey key, byte[] bytes, String base64Signature) {
        byte[] signed;
        try {
            signed = Base64.getDecoder().decode(base64Signature);
        } catch (IllegalArgumentException e) {
            return Optional.of("its signature is not base64");
        }
        byte[] encoded = key.getEncoded();
        if (signed.length != SIGNATURE_BYTES || encoded.length != X509_PREFIX_BYTES + PUBLIC_KEY_BYTES) {
            return Optional.of("its signature does not match its content");
        }
        // The X.509 encoding of an Ed25519 key is a fixed 12-byte header and the 32 bytes of the key itself.
        return org.bouncycastle.math.ec.rfc8032.Ed25519.verify(signed, 0, encoded, X509_PREFIX_BYTES, bytes, 0,
                bytes.length) ? Optional.empty() : Optional.of("its signature does not match its content");
    }

    /** The first 16 hex digits of the SHA-256 of the encoded public key: short, and enough to tell keys apart. */
    public static String keyId(PublicKey key) {
        return HexFormat.of().formatHex(Sha256.of(key.getEncoded()), 0, 8);
    }

    /** The public key as one line: base64 of its X.509 encoding (the PEM file's body, without its lines). */
    public static String toBase64(PublicKey key) {
        return Base64.getEncoder().encodeToString(key.getEncoded());
    }

    /** A public key written by {@link #toBase64}. */
    public static PublicKey publicKey(String base64) {
        try {
            return KeyFactory.getInstance(ALGORITHM).generatePublic(
                    new X509EncodedKeySpec(Base64.getDecoder().decode(base64)));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("the public key is not base64", e);
        } catch (GeneralSecurityException e) {
            throw new IllegalArgumentException("the public key is not an Ed25519 key in X.509: " + e.getMessage(), e);
        }
    }

    /** Writes the fields of a canonical form: each length-prefixed, so a field's end is never read as the next's. */
    public static final class Canonical {
        private final ByteArrayOutputStream bytes = new ByteArrayOutputStream(256);
        private final DataOutputStream out = new DataOutputStream(bytes);

        /** A 4-byte big-endian length of the UTF-8 bytes, then the bytes; null is the length -1 alone. */
        public Canonical string(String value) {
            try {
                if (value == null) {
                    out.writeInt(-1);
                    return this;
                }
                byte[] utf8 = value.getBytes(StandardCharsets.UTF_8);
                out.writeInt(utf8.length);
                out.write(utf8);
                return this;
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        /** 4 bytes, big-endian. */
        public Canonical int32(int value) {
            try {
                out.writeInt(value);
                return this;
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        /** 8 bytes, big-endian. */
        public Canonical int64(long value) {
            try {
                out.writeLong(value);
                return this;
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        /** 1 byte, 1 or 0. */
        public Canonical bool(boolean value) {
            try {
                out.writeBoolean(value);
                return this;
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        public byte[] bytes() {
            return bytes.toByteArray();
        }
    }

    /**
     * The key pair in {@code privateKeyFile}, or a new one written there (readable by its owner only) with its
     * public half beside it ({@code .pub}).
     */
    public static KeyPair loadOrCreate(Path privateKeyFile) {
        if (Files.exists(privateKeyFile)) {
            return load(privateKeyFile);
        }
        try {
            KeyPair pair = KeyPairGenerator.getInstance(ALGORITHM).generateKeyPair();
            write(privateKeyFile, pair);
            return pair;
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("this JVM has no Ed25519", e);
        }
    }

    /** The key pair in {@code privateKeyFile} and its {@code .pub}. */
    public static KeyPair load(Path privateKeyFile) {
        try {
            PrivateKey key = KeyFactory.getInstance(ALGORITHM).generatePrivate(
                    new PKCS8EncodedKeySpec(pem(Files.readString(privateKeyFile), "PRIVATE KEY", privateKeyFile)));
            return new KeyPair(publicOf(privateKeyFile, key), key);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the signing key " + privateKeyFile, e);
        } catch (GeneralSecurityException e) {
            throw new IllegalArgumentException(privateKeyFile + " is not an Ed25519 private key: " + e.getMessage(),
                    e);
        }
    }

    /** Writes {@code pair} to a new {@code privateKeyFile} (owner-only) and its {@code .pub}; never overwrites. */
    public static void write(Path privateKeyFile, KeyPair pair) {
        try {
            Path directory = privateKeyFile.toAbsolutePath().getParent();
            Files.createDirectories(directory);
            Path temporary = Files.createTempFile(directory, ".key", ".tmp",
                    PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
            Files.writeString(temporary, toPem("PRIVATE KEY", pair.getPrivate().getEncoded()));
            Files.move(temporary, privateKeyFile);
            Files.writeString(publicKeyFile(privateKeyFile), toPem("PUBLIC KEY", pair.getPublic().getEncoded()));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the signing key " + privateKeyFile, e);
        }
    }

    /** A public key file, PEM (X.509) as {@link #loadOrCreate} and OpenSSL write it. */
    public static PublicKey readPublicKey(Path file) {
        try {
            return KeyFactory.getInstance(ALGORITHM).generatePublic(
                    new X509EncodedKeySpec(pem(Files.readString(file), "PUBLIC KEY", file)));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the public key " + file, e);
        } catch (GeneralSecurityException e) {
            throw new IllegalArgumentException(file + " is not an Ed25519 public key: " + e.getMessage(), e);
        }
    }

    public static Path publicKeyFile(Path privateKeyFile) {
        return privateKeyFile.resolveSibling(privateKeyFile.getFileName() + ".pub");
    }

    /**
     * The JDK cannot derive an Ed25519 public key from a PKCS#8 file that does not carry it (OpenSSL's do not), so
     * the public half is read from beside the private one; a missing or mismatched one is an error.
     */
    private static PublicKey publicOf(Path privateKeyFile, PrivateKey key) throws GeneralSecurityException {
        Path file = publicKeyFile(privateKeyFile);
        if (!Files.exists(file)) {
            throw new IllegalArgumentException("the signing key " + privateKeyFile + " needs its public key beside "
                    + "it as " + file + " (openssl pkey -in KEY -pubout -out " + file + ")");
        }
        PublicKey publicKey = readPublicKey(file);
        Signature signature = Signature.getInstance(ALGORITHM);
        signature.initSign(key);
        signature.update(PROBE);
        byte[] signed = signature.sign();
        signature.initVerify(publicKey);
        signature.update(PROBE);
        if (!signature.verify(signed)) {
            throw new IllegalArgumentException(file + " is not the public half of " + privateKeyFile);
        }
        return publicKey;
    }

    private static byte[] pem(String text, String type, Path file) {
        String begin = "-----BEGIN " + type + "-----";
        String end = "-----END " + type + "-----";
        int from = text.indexOf(begin);
        int to = text.indexOf(end);
        if (from < 0 || to < from) {
            throw new IllegalArgumentException(file + " is not a PEM " + type.toLowerCase(Locale.ROOT) + " (" + begin
                    + ")");
        }
        try {
            return Base64.getMimeDecoder().decode(text.substring(from + begin.length(), to));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(file + " is not a PEM " + type.toLowerCase(Locale.ROOT)
                    + ": its base64 is cut short or damaged (" + e.getMessage() + ")", e);
        }
    }

    private static String toPem(String type, byte[] der) {
        return "-----BEGIN " + type + "-----\n" + Base64.getMimeEncoder(64, new byte[] {'\n'}).encodeToString(der)
                + "\n-----END " + type + "-----\n";
    }
}
