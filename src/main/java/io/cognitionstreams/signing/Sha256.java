package io.cognitionstreams.signing;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * SHA-256, with one digest per thread: looking the algorithm up at every call (a provider search) showed in the
 * assembly's profile, where every packet id is one.
 */
public final class Sha256 {

    private static final ThreadLocal<MessageDigest> DIGEST = ThreadLocal.withInitial(() -> {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java runtime has SHA-256", e);
        }
    });

    private Sha256() {
    }

    /** The digest of the parts one after the other. */
    public static byte[] of(byte[]... parts) {
        MessageDigest digest = DIGEST.get();
        digest.reset();
        for (byte[] part : parts) {
            digest.update(part);
        }
        return digest.digest();
    }

    /** The digest of {@code text}'s UTF-8 bytes. */
    public static byte[] of(String text) {
        return of(text.getBytes(StandardCharsets.UTF_8));
    }

    /** The digest of {@code text}'s UTF-8 bytes, in hex. */
    public static String hex(String text) {
        return HexFormat.of().formatHex(of(text));
    }
}
