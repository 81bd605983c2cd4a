package io.cognitionstreams.gatekeeper;


import java.security.PublicKey;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

import io.cognitionstreams.schema.CouncilDecision;
import io.cognitionstreams.schema.ToolCall;
import io.cognitionstreams.schema.ToolDecision;
import io.cognitionstreams.signing.Ed25519;

/**
 * How an executor knows an approval is the gatekeeper's: the gatekeeper signs each approval with its Ed25519 key,
 * and executors run only approvals whose signature verifies against a public key they trust. Anyone who can write
 * tool.decisions can write a record that looks approved; only the holder of the private key can sign one, and
 * the signature covers everything that decides what runs (tool, arguments, session, skill, verdict, retry-safety),
 * so an approval cannot be edited into another call either. ACLs (docs/security.md) keep strangers off the topic;
 * the signature still holds where there are none, as on the embedded broker.
 *
 * <p>Keys are {@link Ed25519} PEM files ({@code --signing-key}). Instances that share the work must share the key pair ({@code --signing-key}); otherwise one
 * instance's executor refuses another's approvals, and says so.
 */
public final class DecisionSignatures {

    /** Names the canonical form, so a future form can never be mistaken for this one. */
    private static final String FORM = "cognition-streams/tool-decision/v1";
    /**
     * The form of a decision the council decided: v1's fields, then the proposal and the council's decision (its
     * signature included), so an approval cannot be moved to another proposal or council decision, nor stripped of
     * them and pass as a plain approval (v1 bytes differ from the signed v2 bytes).
     */
    private static final String COUNCIL_FORM = "cognition-streams/tool-decision/v2";

    private DecisionSignatures() {
    }

    /** Signs approvals. Thread-safe. */
    public static final class Signer {
        private final Ed25519.Key key;

        public Signer(Ed25519.Key key) {
            this.key = key;
        }

        /** With a key made for this process only: tests, and drawing topologies. */
        public static Signer generated() {
            return new Signer(Ed25519.Key.generated());
        }

        /** The decision with its key id and signature set. */
        public ToolDecision sign(ToolDecision decision) {
            ToolDecision keyed = ToolDecision.newBuilder(decision).setSigningKey(key.id()).setSignature(null).build();
            keyed.setSignature(key.sign(canonical(keyed)));
            return keyed;
        }

        /** The app's key: what signs approvals signs the app's own council messages too. */
        public Ed25519.Key key() {
            return key;
        }

        public PublicKey publicKey() {
            return key.publicKey();
        }

        public String keyId() {
            return key.id();
        }
    }

    /** Checks signatures against the keys an executor trusts, by key id. Thread-safe. */
    public static final class Verifier {
        private final Map<String, PublicKey> trusted = new LinkedHashMap<>();

        public Verifier(Collection<PublicKey> keys) {
            if (keys.isEmpty()) {
                throw new IllegalArgumentException("an executor must trust at least one gatekeeper key");
            }
            keys.forEach(key -> trusted.put(Ed25519.keyId(key), key));
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
            return Ed25519.problem(key, canonical(decision), decision.getSignature()).map(problem ->
                    problem.contains("does not match")
                            ? "the decision's signature does not match its content: it was forged or changed "
                                    + "after the gatekeeper signed it"
                            : "the decision's " + problem.substring("its ".length()));
        }
    }

    /**
     * The bytes signed: every field that decides what runs, each length-prefixed ({@link Ed25519.Canonical}) so
     * that no two decisions share a form. The reason and the protocol are left out: they are for people and the
     * model, and an executor acts on none of them.
     */
    static byte[] canonical(ToolDecision decision) {
        ToolCall call = decision.getCall();
        CouncilDecision council = decision.getCouncilDecision();
        Ed25519.Canonical out = new Ed25519.Canonical();
        for (String field : new String[] {council == null ? FORM : COUNCIL_FORM, decision.getSigningKey(),
                decision.getVerdict().name(),
                call.getCallId(), call.getSessionId(), call.getPacketId(), call.getRequestId(), call.getCaller(),
                call.getSkill(), call.getTool(), call.getArguments(),
                call.getTimeTravel() == null ? null : call.getTimeTravel().name(), call.getParentId()}) {
            out.string(field);
        }
        out.int32(call.getBlockCount())
                .int32(call.getCallCount())
                .int64(call.getTimestamp().toEpochMilli())
                .bool(decision.getRetrySafe())
                .int64(decision.getTimestamp().toEpochMilli());
        if (council != null) {
            out.string(decision.getProposalId())
                    .string(council.getProposalId())
                    .string(council.getCouncilId())
                    .string(council.getOutcome().name())
                    .string(council.getProposalDigest())
                    .string(council.getSigningKey())
                    .string(council.getSignature());
        }
        return out.bytes();
    }
}
