package io.cognitionstreams.council;

import java.security.PublicKey;
import java.time.Instant;
import java.util.Optional;

import io.cognitionstreams.schema.CouncilDecision;
import io.cognitionstreams.schema.CouncilKey;
import io.cognitionstreams.schema.CouncilMessage;
import io.cognitionstreams.signing.Ed25519;
import io.cognitionstreams.topology.CouncilSeal;

/**
 * Who sent a council message (docs/council.md, "Signatures"): each role signs its messages with its Ed25519 key,
 * whose public half is on council.keys; the app's own senders ({@code council}, {@code router}, {@code autofix},
 * {@code assembly}) sign with the app's key (the gatekeeper's, {@code --signing-key}), which council.keys can never
 * stand in for. The signature covers every field of the envelope but itself, so a signed vote can be neither
 * edited nor moved to another sender, council or proposal.
 */
public final class CouncilSignatures {

    /** Names the canonical form, so a future form can never be mistaken for this one. */
    public static final String FORM = "cognition-streams/council-message/v1";
    /** The canonical form of a decision on council.decisions. */
    public static final String DECISION_FORM = "cognition-streams/council-decision/v1";

    private CouncilSignatures() {
    }

    /**
     * What the app does to each council message it writes (its escalations, the council's ticks): signs it with
     * {@code appKey} when signatures are required, and leaves it as it is otherwise, so nothing changes then.
     */
    public static CouncilSeal seal(CouncilSettings settings, Ed25519.Key appKey) {
        return settings.signatures() == CouncilSettings.Signatures.REQUIRED
                ? message -> sign(message, appKey) : CouncilSeal.NONE;
    }

    /** The message with {@code key}'s id in signing_key and its signature over the canonical form. */
    public static CouncilMessage sign(CouncilMessage message, Ed25519.Key key) {
        CouncilMessage keyed = CouncilMessage.newBuilder(message).setSigningKey(key.id()).setSignature(null).build();
        keyed.setSignature(key.sign(canonical(keyed)));
        return keyed;
    }

    /**
     * Empty when the message is signed by the key its sender must sign with; else why not.
     *
     * @param appKey  the app's public key: the only one its reserved senders may sign with
     * @param roleKey the sender's key on council.keys, when it has one (never asked for a reserved sender)
     */
    public static Optional<String> problem(CouncilMessage message, PublicKey appKey,
                                           Optional<CouncilKey> roleKey) {
        String sender = message.getSender();
        if (message.getSignature() == null || message.getSigningKey() == null) {
            return Optional.of("the message is not signed (signing_key and signature are required: "
                    + "--council-signatures required); sender '" + sender + "' must sign with "
                    + (CouncilSettings.isReserved(sender) ? "the app's key" : "its key on council.keys"));
        }
        PublicKey key;
        if (CouncilSettings.isReserved(sender)) {
            String appId = Ed25519.keyId(appKey);
            if (!message.getSigningKey().equals(appId)) {
                return Optional.of("sender '" + sender + "' is the app's own, but the message is signed by key "
                        + message.getSigningKey() + ", not the app's key " + appId);
            }
            key = appKey;
        } else {
            if (roleKey.isEmpty()) {
                return Optional.of("role '" + sender + "' has no key on council.keys, so nothing it signs can be "
                        + "checked (cognition council keygen --role " + sender + " --publish)");
            }
            if (!message.getSigningKey().equals(roleKey.get().getKeyId())) {
                return Optional.of("the message is signed by key " + message.getSigningKey() + ", but sender '"
                        + sender + "' signs with key " + roleKey.get().getKeyId() + " (council.keys): the "
                        + "signer is not the sender it names");
            }
            try {
                key = Ed25519.publicKey(roleKey.get().getPublicKey());
            } catch (IllegalArgumentException e) {
                return Optional.of("role '" + sender + "' key on council.keys is unusable: " + e.getMessage());
            }
        }
        return Ed25519.problem(key, canonical(message), message.getSignature()).map(problem ->
                problem.contains("does not match")
                        ? "the signature does not match the message: it was forged, or changed after "
                                + message.getSigningKey() + " signed it"
                        : "the message's " + problem.substring("its ".length()));
    }

    /** The decision signed by the app's key (the council signs every decision it takes). */
    public static CouncilDecision sign(CouncilDecision decision, Ed25519.Key appKey) {
        CouncilDecision keyed = CouncilDecision.newBuilder(decision).setSigningKey(appKey.id()).setSignature(null)
                .build();
        keyed.setSignature(appKey.sign(canonical(keyed)));
        return keyed;
    }

    /** Empty when the app's key signed {@code decision} and nothing changed since; else why not. */
    public static Optional<String> problem(CouncilDecision decision, PublicKey appKey) {
        if (decision.getSignature() == null || decision.getSigningKey() == null) {
            return Optional.of("the decision is not signed: only the council's decisions, signed with the app's key, "
                    + "decide a call");
        }
        String appId = Ed25519.keyId(appKey);
        if (!decision.getSigningKey().equals(appId)) {
            return Optional.of("the decision is signed by key " + decision.getSigningKey() + ", not the app's key "
                    + appId + ": it is not this app's council's");
        }
        return Ed25519.problem(appKey, canonical(decision), decision.getSignature()).map(problem ->
                problem.contains("does not match")
                        ? "the decision's signature does not match it: it was forged, or changed after the council "
                                + "signed it"
                        : "the decision's " + problem.substring("its ".length()));
    }

    /** Every field of a decision but its signature, in schema order; voters as their count, then each. */
    public static byte[] canonical(CouncilDecision decision) {
        Ed25519.Canonical out = new Ed25519.Canonical()
                .string(DECISION_FORM)
                .string(decision.getSigningKey())
                .string(decision.getProposalId())
                .string(decision.getCouncilId())
                .string(name(decision.getOutcome()))
                .int32(decision.getYes())
                .int32(decision.getNo())
                .int32(decision.getAbstain())
                .int32(decision.getVoters().size());
        decision.getVoters().forEach(out::string);
        return out.bool(decision.getTieBrokenByPrime())
                .string(decision.getReason())
                .int64(decision.getTimestamp() == null ? 0 : decision.getTimestamp().toEpochMilli())
                .string(decision.getProposer())
                .string(decision.getSessionId())
                .string(decision.getProposalDigest())
                .bytes();
    }

    /** The council.keys record that registers {@code key} as {@code role}'s (`cognition council keygen`). */
    public static CouncilKey keyRecord(String role, PublicKey key, Instant at) {
        return CouncilKey.newBuilder()
                .setRole(role)
                .setPublicKey(Ed25519.toBase64(key))
                .setKeyId(Ed25519.keyId(key))
                .setTimestamp(at)
                .build();
    }

    /**
     * The bytes signed (docs/council.md shows them byte by byte): the form's name, then every envelope field in
     * schema order but the signature, strings and enum names length-prefixed in UTF-8 (-1 for null), the timestamp
     * as 8 bytes of epoch milliseconds, the confidence as a presence byte and its 8 IEEE 754 bytes.
     */
    public static byte[] canonical(CouncilMessage message) {
        Ed25519.Canonical out = new Ed25519.Canonical()
                .string(FORM)
                .string(message.getSigningKey())
                .string(message.getMsgId())
                .string(message.getParentId())
                .string(message.getCouncilId())
                .int64(message.getTimestamp() == null ? 0 : message.getTimestamp().toEpochMilli())
                .string(message.getSender())
                .string(message.getRole())
                .string(name(message.getType()))
                .bool(message.getConfidence() != null);
        if (message.getConfidence() != null) {
            out.int64(Double.doubleToLongBits(message.getConfidence()));
        }
        return out.string(name(message.getRiskLevel()))
                .string(message.getContent())
                .string(message.getProposalId())
                .string(name(message.getVote()))
                .string(message.getSessionId())
                .string(name(message.getTimeTravel()))
                .string(message.getOriginSessionId())
                .bytes();
    }

    private static String name(Enum<?> value) {
        return value == null ? null : value.name();
    }
}
