package io.cognitionstreams.governance;

import java.security.PublicKey;
import java.util.Optional;

import io.cognitionstreams.schema.CouncilKey;
import io.cognitionstreams.signing.Ed25519;

/**
 * What a record on council.keys must be to become a council role's key: keyed by its role, an Ed25519 public key
 * in X.509 and base64, named by its own key id. Depends on the record alone, so the council's mirror that skips one
 * and the guard that dead-letters it agree. The app's own senders are never looked up here: they sign with the
 * app's key, so a record naming one changes nothing.
 */
public final class CouncilKeys {

    private CouncilKeys() {
    }

    public static Optional<String> refuse(String role, CouncilKey key) {
        if (!key.getRole().equals(role)) {
            return Optional.of("record key '" + role + "' is not the role '" + key.getRole() + "': council.keys is "
                    + "keyed by role");
        }
        PublicKey publicKey;
        try {
            publicKey = Ed25519.publicKey(key.getPublicKey());
        } catch (IllegalArgumentException e) {
            return Optional.of("role '" + role + "': " + e.getMessage());
        }
        String id = Ed25519.keyId(publicKey);
        return id.equals(key.getKeyId()) ? Optional.empty()
                : Optional.of("key_id " + key.getKeyId() + " is not the id of the public key (" + id + ")");
    }
}
