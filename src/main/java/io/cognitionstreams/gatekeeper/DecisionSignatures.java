package io.cognitionstreams.gatekeeper;

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
import java.security.MessageDigest;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.Signature;
import java.security.spec.PKCS8EncodedKeySpec;
import java.security.spec.X509EncodedKeySpec;
import java.util.Base64;
import java.util.Collection;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

import io.cognitionstreams.schema.ToolCall;
import io.cognitionstreams.schema.ToolDecision;

/**
 * How an executor knows an approval is the gatekeeper's: the gatekeeper signs each approval with its Ed25519 key,
 * and executors run only approvals whose signature verifies against a public key they trust. Anyone who can write
 * tool.decisions can write a record that looks approved; only the holder of the private key can sign one, and
 * the signature covers everything that decides what runs (tool, arguments, session, skill, verdict, retry-safety),
 * so an approval cannot be edited into another call either. ACLs (docs/security.md) keep strangers off the topic;
 * the signature still holds where there are none, as on the embedded broker.
 *
 * <p>Keys are PEM files as OpenSSL writes them ({@code openssl genpkey -algorithm ed25519}): PKCS#8 private,
 * X.509 public. Instances that share the work must share the key pair ({@code --signing-key}); otherwise one
 * instance's executor refuses another's approvals, and says so.
 */
public final class DecisionSignatures {

    private static final String ALGORITHM = "Ed25519";
    /** Names the canonical form, so a future form can never be mistaken for this one. */
    private static final String FORM = "cognition-streams/tool-decision/v1";

    private DecisionSignatures() {
    }

    /** Signs approvals. Thread-safe: a {@link Signature} is made per call (they are cheap; the key is not). */
    public static final class Signer {
        private final PrivateKey key;
        private final PublicKey publicKey;
        private final String keyId;

        public Signer(KeyPair pair) {
            this.key = pair.getPrivate();
            this.publicKey = pair.getPublic();
            this.keyId = DecisionSignatures.keyId(publicKey);
        }

        /** With a key made for this process only: tests, and drawing topologies. */
        public static Signer generated() {
            try {
                return new Signer(KeyPairGenerator.getInstance(ALGORITHM).generateKeyPair());
            } catch (GeneralSecurityException e) {
                throw new IllegalStateException("this JVM has no Ed25519", e);
            }
        }

        /** The decision with its key id and signature set. */
        public ToolDecision sign(ToolDecision decision) {
            ToolDecision keyed = ToolDecision.newBuilder(decision).setSigningKey(keyId).setSignature(null).build();
            try {
                Signature signature = Signature.getInstance(ALGORITHM);
                signature.initSign(key);
                signature.update(canonical(keyed));
                keyed.setSignature(Base64.getEncoder().encodeToString(signature.sign()));
                return keyed;
            } catch (GeneralSecurityException e) {
                throw new IllegalStateException("cannot sign with the gatekeeper's Ed25519 key", e);
            }
        }

        public PublicKey publicKey() {
            return publicKey;
        }

        public String keyId() {
            return keyId;
        }
    }

    /** Checks signatures against the keys an executor trusts, by key id. Thread-safe. */
    public static final class Verifier {
        private final Map<String, PublicKey> trusted = new LinkedHashMap<>();

        public Verifier(Collection<PublicKey> keys) {
            if (keys.isEmpty()) {
                throw new IllegalArgumentException("an executor must trust at least one gatekeeper key");
            }
            keys.forEach(key -> trusted.put(keyId(key), key));
        }

        /** Empty when the decision was signed by a trusted key and not changed since; else what is wrong. */
        public Optional<String> problem(ToolDecision decision) {
            if (decision.getSignature() == null || decision.getSigningKey() == null) {
                return Optional.of("the decision is not signed: only the gatekeeper's signed approvals run");
            }
            PublicKey key = trusted.get(decision.getSigningKey());
            if (key == null) {
                return Optional.of("the decision is signed by key " + decision.getSigningKey() + ", which this "
                        + "executor does not trust (it trusts " + String.join(", ", trusted.keySet()) + "); "
                        + "instances that share work must share the gatekeeper's key (--signing-key)");
            }
            byte[] bytes;
            try {
                bytes = Base64.getDecoder().decode(decision.getSignature());
            } catch (IllegalArgumentException e) {
                return Optional.of("the decision's signature is not base64");
            }
            try {
                Signature signature = Signature.getInstance(ALGORITHM);
                signature.initVerify(key);
                signature.update(canonical(decision));
                if (signature.verify(bytes)) {
                    return Optional.empty();
                }
            } catch (GeneralSecurityException e) {
                return Optional.of("the decision's signature cannot be checked: " + e.getMessage());
            }
            return Optional.of("the decision's signature does not match its content: it was forged or changed "
                    + "after the gatekeeper signed it");
        }
    }

    /**
     * The bytes signed: every field that decides what runs, each length-prefixed so that no two decisions share a
     * form (a field's end can never be read as the next one's start). The reason and the protocol are left out:
     * they are for people and the model, and an executor acts on none of them.
     */
    static byte[] canonical(ToolDecision decision) {
        ToolCall call = decision.getCall();
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(256 + call.getArguments().length());
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            for (String field : new String[] {FORM, decision.getSigningKey(), decision.getVerdict().name(),
                    call.getCallId(), call.getSessionId(), call.getPacketId(), call.getRequestId(), call.getCaller(),
                    call.getSkill(), call.getTool(), call.getArguments(),
                    call.getTimeTravel() == null ? null : call.getTimeTravel().name(), call.getParentId()}) {
                string(out, field);
            }
            out.writeInt(call.getBlockCount());
            out.writeInt(call.getCallCount());
            out.writeLong(call.getTimestamp().toEpochMilli());
            out.writeBoolean(decision.getRetrySafe());
            out.writeLong(decision.getTimestamp().toEpochMilli());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    private static void string(DataOutputStream out, String value) throws IOException {
        if (value == null) {
            out.writeInt(-1);
            return;
        }
        byte[] utf8 = value.getBytes(StandardCharsets.UTF_8);
        out.writeInt(utf8.length);
        out.write(utf8);
    }

    /** The first 16 hex digits of the SHA-256 of the encoded public key: short, and enough to tell keys apart. */
    public static String keyId(PublicKey key) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(key.getEncoded());
            return HexFormat.of().formatHex(digest, 0, 8);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * The key pair in {@code privateKeyFile}, or a new one written there (readable by its owner only) with its
     * public half beside it ({@code .pub}), for executors elsewhere to trust.
     */
    public static KeyPair loadOrCreate(Path privateKeyFile) {
        try {
            if (Files.exists(privateKeyFile)) {
                PrivateKey key = KeyFactory.getInstance(ALGORITHM).generatePrivate(
                        new PKCS8EncodedKeySpec(pem(Files.readString(privateKeyFile), "PRIVATE KEY", privateKeyFile)));
                return new KeyPair(publicOf(privateKeyFile, key), key);
            }
            KeyPair pair = KeyPairGenerator.getInstance(ALGORITHM).generateKeyPair();
            Path directory = privateKeyFile.toAbsolutePath().getParent();
            Files.createDirectories(directory);
            Path temporary = Files.createTempFile(directory, ".key", ".tmp",
                    PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
            Files.writeString(temporary, toPem("PRIVATE KEY", pair.getPrivate().getEncoded()));
            Files.move(temporary, privateKeyFile);
            Files.writeString(publicKeyFile(privateKeyFile), toPem("PUBLIC KEY", pair.getPublic().getEncoded()));
            return pair;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read or write the signing key " + privateKeyFile, e);
        } catch (GeneralSecurityException e) {
            throw new IllegalArgumentException(privateKeyFile + " is not an Ed25519 private key: " + e.getMessage(),
                    e);
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
        signature.update(FORM.getBytes(StandardCharsets.UTF_8));
        byte[] signed = signature.sign();
        signature.initVerify(publicKey);
        signature.update(FORM.getBytes(StandardCharsets.UTF_8));
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
            throw new IllegalArgumentException(file + " is not a PEM " + type.toLowerCase(java.util.Locale.ROOT) + " (" + begin + ")");
        }
        try {
            return Base64.getMimeDecoder().decode(text.substring(from + begin.length(), to));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(file + " is not a PEM " + type.toLowerCase(java.util.Locale.ROOT)
                    + ": its base64 is cut short or damaged (" + e.getMessage() + ")", e);
        }
    }

    private static String toPem(String type, byte[] der) {
        return "-----BEGIN " + type + "-----\n" + Base64.getMimeEncoder(64, new byte[] {'\n'}).encodeToString(der)
                + "\n-----END " + type + "-----\n";
    }
}
