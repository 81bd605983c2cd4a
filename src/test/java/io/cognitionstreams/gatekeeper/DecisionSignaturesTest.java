package io.cognitionstreams.gatekeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.time.Instant;
import java.util.Base64;
import java.util.List;
import java.util.function.Consumer;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.cognitionstreams.schema.TimeTravel;
import io.cognitionstreams.schema.ToolCall;
import io.cognitionstreams.schema.ToolDecision;
import io.cognitionstreams.schema.Verdict;
import io.cognitionstreams.signing.Ed25519;

class DecisionSignaturesTest {

    private static final Instant T0 = Instant.parse("2026-11-22T10:00:00Z");

    /** A key pair as {@code openssl genpkey -algorithm ed25519} and {@code openssl pkey -pubout} write it. */
    private static final String OPENSSL_PRIVATE = """
            -----BEGIN PRIVATE KEY-----
            MC4CAQAwBQYDK2VwBCIEIITdPk/T6engwGmOKSflwFSoENUfhlX5iIpOmloZIq1W
            -----END PRIVATE KEY-----
            """;
    private static final String OPENSSL_PUBLIC = """
            -----BEGIN PUBLIC KEY-----
            MCowBQYDK2VwAyEAkOJf/GMAkGnwK+IAS6sSHeW5rWXHcwIgNMjhZDlqZ3k=
            -----END PUBLIC KEY-----
            """;

    private final DecisionSignatures.Signer signer = DecisionSignatures.Signer.generated();
    private final DecisionSignatures.Verifier verifier = new DecisionSignatures.Verifier(
            List.of(signer.publicKey()));

    @TempDir
    Path dir;

    private static ToolDecision approval() {
        ToolCall call = ToolCall.newBuilder()
                .setCallId("s1-b1")
                .setSessionId("s1")
                .setPacketId("0a1b2c3d")
                .setRequestId("s1-r1")
                .setBlockCount(1)
                .setCallCount(1)
                .setCaller("git")
                .setSkill("git")
                .setTool("mcp__git__status")
                .setArguments("{\"path\": \".\"}")
                .setTimestamp(T0)
                .build();
        return ToolDecision.newBuilder()
                .setCall(call)
                .setVerdict(Verdict.APPROVED)
                .setReason("approved: skill \"git\" is permitted mcp__git__status")
                .setTimestamp(T0.plusMillis(5))
                .setRetrySafe(false)
                .build();
    }

    /** The signed approval with one change made after signing. */
    private ToolDecision signedThen(Consumer<ToolDecision> change) {
        ToolDecision signed = signer.sign(approval());
        change.accept(signed);
        return signed;
    }

    @Test
    void aSignedApprovalVerifies() {
        ToolDecision signed = signer.sign(approval());

        assertThat(signed.getSigningKey()).isEqualTo(signer.keyId()).matches("[0-9a-f]{16}");
        assertThat(Base64.getDecoder().decode(signed.getSignature())).hasSize(64);
        assertThat(verifier.problem(signed)).isEmpty();
    }

    @Test
    void signingLeavesTheDecisionItWasGivenUnsigned() {
        ToolDecision unsigned = approval();

        signer.sign(unsigned);

        assertThat(unsigned.getSignature()).isNull();
        assertThat(unsigned.getSigningKey()).isNull();
    }

    @Test
    void resigningASignedDecisionGivesAValidSignatureAgain() {
        // sign() must not fold an old signature into what it signs
        assertThat(verifier.problem(signer.sign(signer.sign(approval())))).isEmpty();
    }

    @Test
    void aReplayedApprovalCannotBeMadeLiveByDroppingItsLineage() {
        ToolDecision replayed = approval();
        replayed.getCall().setTimeTravel(TimeTravel.REPLAY);
        replayed.getCall().setParentId("pk1-out#0");
        ToolDecision signed = signer.sign(replayed);
        assertThat(verifier.problem(signed)).isEmpty();

        ToolDecision stripped = ToolDecision.newBuilder(signed).build();
        stripped.getCall().setTimeTravel(null);
        stripped.getCall().setParentId(null);

        assertThat(verifier.problem(stripped)).hasValueSatisfying(problem ->
                assertThat(problem).contains("does not match its content"));
    }

    @Test
    void changingAnythingThatDecidesWhatRunsBreaksTheSignature() {
        List<Consumer<ToolDecision>> changes = List.of(
                d -> d.getCall().setTool("mcp__git__push"),
                d -> d.getCall().setArguments("{\"path\": \"/\"}"),
                d -> d.getCall().setArguments("{\"path\":\".\"}"),
                d -> d.getCall().setSessionId("s2"),
                d -> d.getCall().setSessionId(null),
                d -> d.getCall().setCallId("s1-b2"),
                d -> d.getCall().setPacketId("ffffffff"),
                d -> d.getCall().setRequestId("s1-r2"),
                d -> d.getCall().setCaller("admin"),
                d -> d.getCall().setSkill("admin"),
                d -> d.getCall().setBlockCount(2),
                d -> d.getCall().setCallCount(2),
                d -> d.getCall().setTimestamp(T0.plusMillis(1)),
                // a replayed call made to look live, or pointed at another original
                d -> d.getCall().setTimeTravel(TimeTravel.FORK_EXECUTE),
                d -> d.getCall().setParentId("other#0"),
                d -> d.setVerdict(Verdict.DENIED),
                d -> d.setRetrySafe(true),
                d -> d.setTimestamp(T0.plusMillis(6)));
        for (int i = 0; i < changes.size(); i++) {
            assertThat(verifier.problem(signedThen(changes.get(i))))
                    .as("change #%d", i)
                    .hasValueSatisfying(problem -> assertThat(problem).contains("does not match its content"));
        }
    }

    @Test
    void movingTextAcrossAFieldBoundaryBreaksTheSignature() {
        // Length prefixes: "mcp__git__status" + "{...}" must not sign the same as "mcp__git__statu" + "s{...}".
        ToolDecision moved = signedThen(d -> {
            d.getCall().setTool("mcp__git__statu");
            d.getCall().setArguments("s{\"path\": \".\"}");
        });

        assertThat(verifier.problem(moved)).isPresent();
    }

    @Test
    void anAbsentFieldIsNotTheSameAsAnEmptyOne() {
        ToolDecision withoutSkill = approval();
        withoutSkill.getCall().setSkill(null);
        ToolDecision signed = signer.sign(withoutSkill);
        signed.getCall().setSkill("");

        assertThat(verifier.problem(signed)).isPresent();
    }

    @Test
    void whatNoExecutorActsOnIsLeftOutOfTheSignature() {
        // The annotator and people may reword these; they never change what runs.
        ToolDecision reworded = signedThen(d -> {
            d.setReason("something else");
            d.setProtocol("# another protocol");
            d.setRequiredPermission("git:*");
        });

        assertThat(verifier.problem(reworded)).isEmpty();
    }

    @Test
    void anUnsignedOrHalfSignedDecisionIsRefused() {
        ToolDecision signed = signer.sign(approval());
        ToolDecision noSignature = ToolDecision.newBuilder(signed).setSignature(null).build();
        ToolDecision noKey = ToolDecision.newBuilder(signed).setSigningKey(null).build();

        assertThat(verifier.problem(approval())).hasValueSatisfying(p -> assertThat(p).contains("not signed"));
        assertThat(verifier.problem(noSignature)).hasValueSatisfying(p -> assertThat(p).contains("not signed"));
        assertThat(verifier.problem(noKey)).hasValueSatisfying(p -> assertThat(p).contains("not signed"));
    }

    @Test
    void aSignatureByAKeyTheExecutorDoesNotTrustIsRefusedAndTheKeysAreNamed() {
        DecisionSignatures.Signer stranger = DecisionSignatures.Signer.generated();

        assertThat(verifier.problem(stranger.sign(approval()))).hasValueSatisfying(problem -> assertThat(problem)
                .contains("signed by key " + stranger.keyId())
                .contains("it trusts " + signer.keyId())
                .contains("--signing-key"));
    }

    @Test
    void anotherKeysSignatureUnderTheTrustedKeyIdIsRefused() {
        ToolDecision forged = DecisionSignatures.Signer.generated().sign(approval());
        forged.setSigningKey(signer.keyId());

        assertThat(verifier.problem(forged)).hasValueSatisfying(p -> assertThat(p).contains("forged or changed"));
    }

    @Test
    void aSignatureCopiedOntoAnotherCallIsRefused() {
        ToolDecision other = approval();
        other.getCall().setTool("mcp__git__push");
        ToolDecision copied = signer.sign(other);
        copied.setSignature(signer.sign(approval()).getSignature());

        assertThat(verifier.problem(copied)).isPresent();
    }

    @Test
    void aSignatureThatIsNotBase64OrNotASignatureIsRefused() {
        for (String signature : new String[] {"not base64!", "", "AAAA", Base64.getEncoder().encodeToString(
                new byte[64])}) {
            ToolDecision bad = signedThen(d -> d.setSignature(signature));

            assertThat(verifier.problem(bad)).as(signature).isPresent();
        }
        assertThat(verifier.problem(signedThen(d -> d.setSignature("not base64!"))))
                .contains("the decision's signature is not base64");
    }

    @Test
    void aVerifierTrustsEveryKeyItIsGiven() {
        DecisionSignatures.Signer other = DecisionSignatures.Signer.generated();
        DecisionSignatures.Verifier both = new DecisionSignatures.Verifier(List.of(signer.publicKey(),
                other.publicKey()));

        assertThat(both.problem(signer.sign(approval()))).isEmpty();
        assertThat(both.problem(other.sign(approval()))).isEmpty();
    }

    @Test
    void aVerifierThatTrustsNoKeyCannotBeMade() {
        assertThatThrownBy(() -> new DecisionSignatures.Verifier(List.of()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("at least one gatekeeper key");
    }

    @Test
    void aNewKeyIsWrittenForItsOwnerOnlyAndReadsBackAsTheSameKey() throws Exception {
        Path file = dir.resolve("keys/gatekeeper.key");

        KeyPair created = Ed25519.loadOrCreate(file);
        KeyPair loaded = Ed25519.loadOrCreate(file);

        assertThat(Files.getPosixFilePermissions(file)).isEqualTo(PosixFilePermissions.fromString("rw-------"));
        assertThat(Files.readString(file)).startsWith("-----BEGIN PRIVATE KEY-----\n");
        assertThat(Ed25519.publicKeyFile(file)).hasFileName("gatekeeper.key.pub").exists();
        assertThat(Ed25519.keyId(loaded.getPublic()))
                .isEqualTo(Ed25519.keyId(created.getPublic()));
        assertThat(loaded.getPrivate().getEncoded()).isEqualTo(created.getPrivate().getEncoded());
        assertThat(dir.resolve("keys")).isDirectoryNotContaining("glob:**.tmp");
        // What the reloaded key signs, an executor trusting only the .pub file accepts.
        DecisionSignatures.Verifier executor = new DecisionSignatures.Verifier(
                List.of(Ed25519.readPublicKey(Ed25519.publicKeyFile(file))));
        assertThat(executor.problem(new DecisionSignatures.Signer(new Ed25519.Key(loaded)).sign(approval()))).isEmpty();
    }

    @Test
    void keysAsOpenSslWritesThemLoad() throws Exception {
        Path file = dir.resolve("openssl.key");
        Files.writeString(file, OPENSSL_PRIVATE);
        Files.writeString(Ed25519.publicKeyFile(file), OPENSSL_PUBLIC);

        DecisionSignatures.Signer fromFile = new DecisionSignatures.Signer(new Ed25519.Key(Ed25519.loadOrCreate(file)));

        assertThat(fromFile.keyId()).isEqualTo(Ed25519.keyId(
                Ed25519.readPublicKey(Ed25519.publicKeyFile(file))));
        assertThat(new DecisionSignatures.Verifier(List.of(fromFile.publicKey()))
                .problem(fromFile.sign(approval()))).isEmpty();
    }

    @Test
    void aPrivateKeyWithoutItsPublicHalfIsAnErrorThatSaysHowToMakeIt() throws Exception {
        Path file = dir.resolve("lonely.key");
        Files.writeString(file, OPENSSL_PRIVATE);

        assertThatThrownBy(() -> Ed25519.loadOrCreate(file))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("needs its public key beside it")
                .hasMessageContaining("openssl pkey -in KEY -pubout");
    }

    @Test
    void aPublicKeyFileOfAnotherKeyIsRefused() throws Exception {
        Path file = dir.resolve("mixed.key");
        Files.writeString(file, OPENSSL_PRIVATE);
        Ed25519.loadOrCreate(dir.resolve("other.key"));
        Files.copy(dir.resolve("other.key.pub"), Ed25519.publicKeyFile(file));

        assertThatThrownBy(() -> Ed25519.loadOrCreate(file))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("is not the public half of");
    }

    @Test
    void aFileThatIsNotAPemPrivateKeyIsRefusedByName() throws Exception {
        Path publicInstead = dir.resolve("public-instead.key");
        Files.writeString(publicInstead, OPENSSL_PUBLIC);
        Path garbage = dir.resolve("garbage.key");
        Files.writeString(garbage, "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n");
        Path reversed = dir.resolve("reversed.key");
        Files.writeString(reversed, "-----END PRIVATE KEY-----\n-----BEGIN PRIVATE KEY-----\n");

        assertThatThrownBy(() -> Ed25519.loadOrCreate(publicInstead))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(publicInstead + " is not a PEM private key");
        assertThatThrownBy(() -> Ed25519.loadOrCreate(garbage))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(garbage + " is not an Ed25519 private key");
        assertThatThrownBy(() -> Ed25519.loadOrCreate(reversed))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("is not a PEM private key");
    }

    @Test
    void aKeyFileCutShortIsRefusedByName() throws Exception {
        // A key pasted with a character missing: base64 that does not end on a whole unit.
        Path truncated = dir.resolve("truncated.key");
        Files.writeString(truncated, OPENSSL_PRIVATE.replace("Iq1W", "I"));
        Path publicTruncated = dir.resolve("truncated.pub");
        Files.writeString(publicTruncated, OPENSSL_PUBLIC.replace("Z3k=", "Z"));

        assertThatThrownBy(() -> Ed25519.loadOrCreate(truncated))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(truncated + " is not a PEM private key: its base64 is cut short or damaged");
        assertThatThrownBy(() -> Ed25519.readPublicKey(publicTruncated))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(publicTruncated + " is not a PEM public key");
    }

    @Test
    void readPublicKeyReadsOpenSslsFileAndRefusesOtherAlgorithms() throws Exception {
        Path ed25519 = dir.resolve("ed.pub");
        Files.writeString(ed25519, "some preamble a tool wrote\n" + OPENSSL_PUBLIC);
        KeyPair rsa = KeyPairGenerator.getInstance("RSA").generateKeyPair();
        Path rsaFile = dir.resolve("rsa.pub");
        Files.writeString(rsaFile, "-----BEGIN PUBLIC KEY-----\n"
                + Base64.getMimeEncoder().encodeToString(rsa.getPublic().getEncoded())
                + "\n-----END PUBLIC KEY-----\n");

        assertThat(Ed25519.readPublicKey(ed25519).getAlgorithm()).isIn("Ed25519", "EdDSA");
        assertThatThrownBy(() -> Ed25519.readPublicKey(rsaFile))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(rsaFile + " is not an Ed25519 public key");
        assertThatThrownBy(() -> Ed25519.readPublicKey(dir.resolve("missing.pub")))
                .isInstanceOf(java.io.UncheckedIOException.class)
                .hasMessageContaining("cannot read the public key");
    }

    @Test
    void keyIdsTellKeysApart() {
        DecisionSignatures.Signer other = DecisionSignatures.Signer.generated();

        assertThat(other.keyId()).isNotEqualTo(signer.keyId());
        assertThat(Ed25519.keyId(signer.publicKey())).isEqualTo(signer.keyId());
    }
}
