package io.cognitionstreams.gatekeeper;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.cognitionstreams.assembly.ContextLayers;
import io.cognitionstreams.assembly.FieldCompressor;
import io.cognitionstreams.assembly.PacketAssembler;
import io.cognitionstreams.assembly.TaskInstructions;
import io.cognitionstreams.council.CouncilSettings;
import io.cognitionstreams.council.ProposalContext;
import io.cognitionstreams.council.CouncilSignatures;
import io.cognitionstreams.council.CouncilTopology;
import io.cognitionstreams.redaction.Redactor;
import io.cognitionstreams.schema.ChatMessage;
import io.cognitionstreams.schema.ChatRole;
import io.cognitionstreams.schema.CognitionPacket;
import io.cognitionstreams.schema.CouncilDecision;
import io.cognitionstreams.schema.CouncilMessage;
import io.cognitionstreams.schema.CouncilMessageType;
import io.cognitionstreams.schema.CouncilOutcome;
import io.cognitionstreams.schema.DeadLetter;
import io.cognitionstreams.schema.PacketPayload;
import io.cognitionstreams.schema.RiskLevel;
import io.cognitionstreams.schema.RoutedBlock;
import io.cognitionstreams.schema.SessionAction;
import io.cognitionstreams.schema.SessionControl;
import io.cognitionstreams.schema.Skill;
import io.cognitionstreams.schema.TimeTravel;
import io.cognitionstreams.schema.ToolCall;
import io.cognitionstreams.schema.ToolDecision;
import io.cognitionstreams.schema.ToolDescriptor;
import io.cognitionstreams.schema.ToolResult;
import io.cognitionstreams.schema.ToolStatus;
import io.cognitionstreams.schema.Verdict;
import io.cognitionstreams.schema.Vote;
import io.cognitionstreams.signing.Ed25519;
import io.cognitionstreams.signing.Sha256;
import io.cognitionstreams.testing.Drivers;
import io.cognitionstreams.testing.Records;
import io.cognitionstreams.testing.TopicDriver;
import io.cognitionstreams.topics.Channel;
import io.cognitionstreams.topics.Topics;
import io.cognitionstreams.tokens.Tokenizers;
import io.cognitionstreams.topology.CouncilSeal;

/**
 * The gatekeeper and the council in one topology, as they meet through council.messages and
 * council.decisions.by-session: a
 * call that needs approval waits (PENDING, a proposal), and runs, or is denied with the council's reason, only once
 * the council decided.
 */
class GatekeeperApprovalTest {

    private static final DecisionSignatures.Signer SIGNER = DecisionSignatures.Signer.generated();
    private static final String RM = "{\"command\":\"rm -rf build/ --token=sk-live-abcdefghijklmnop0123\"}";
    private static final Duration TIMEOUT = Duration.ofMinutes(10);

    @TempDir
    Path stateDir;

    private final Topics topics = Drivers.topics();
    private TopologyTestDriver driver;
    private TestInputTopic<String, ToolCall> calls;
    private TestInputTopic<String, CouncilMessage> messages;
    private TestInputTopic<String, CouncilDecision> councilDecisions;
    private TestOutputTopic<String, CouncilDecision> bySession;
    private TestOutputTopic<String, ToolDecision> decisions;
    private TestOutputTopic<String, CouncilMessage> written;
    private TestOutputTopic<String, RoutedBlock> shell;
    private TestOutputTopic<String, ToolResult> results;
    private TestOutputTopic<String, DeadLetter> deadLetters;
    private int callCount;

    @AfterEach
    void stop() {
        driver.close();
    }

    private void start(ApprovalRule.Policy policy, boolean withCouncil) {
        StreamsBuilder builder = new StreamsBuilder();
        GatekeeperTopology.build(builder, topics, GatekeeperSettings.defaults().withApproval(policy, TIMEOUT),
                Redactor.defaults(), SIGNER, CouncilSeal.NONE);
        if (withCouncil) {
            CouncilTopology.build(builder, topics, CouncilSettings.defaults(), Redactor.defaults(), SIGNER.key());
        }
        driver = Drivers.driver(builder.build(), stateDir, Records.T0);
        calls = TopicDriver.input(driver, topics.toolCalls);
        messages = TopicDriver.input(driver, topics.councilMessages);
        councilDecisions = TopicDriver.input(driver, topics.councilDecisionsBySession);
        bySession = TopicDriver.output(driver, topics.councilDecisionsBySession);
        decisions = TopicDriver.output(driver, topics.toolDecisions);
        written = TopicDriver.output(driver, topics.councilMessages);
        shell = TopicDriver.output(driver, topics.channel(Channel.SHELL));
        results = TopicDriver.output(driver, topics.toolResults);
        deadLetters = TopicDriver.output(driver, topics.deadLetters);
        TestInputTopic<String, Skill> skills = TopicDriver.input(driver, topics.skills);
        skills.pipeInput("ops", Skill.newBuilder().setName("ops").setVersion("1").setProtocol("# ops protocol")
                .setPermissions(List.of("shell:*", "files:*")).setApproval(List.of("files:read_secrets"))
                .setTimestamp(Records.T0).build());
        TestInputTopic<String, ToolDescriptor> tools = TopicDriver.input(driver, topics.tools);
        for (String tool : List.of("read", "read_secrets", "write", "delete")) {
            tools.pipeInput("mcp__files__" + tool, ToolDescriptor.newBuilder().setName("mcp__files__" + tool)
                    .setServer("files").setTool(tool).setReadOnly(tool.startsWith("read"))
                    .setDestructive(tool.equals("delete")).setExecutor("test").setTimestamp(Records.T0).build());
        }
    }

    @Test
    void aShellCallWaitsForTheCouncilAndRunsOnlyOnceItApproves() {
        start(ApprovalRule.Policy.RISKY, true);
        present("ops-council");
        ToolCall call = call("s1", "shell.run", RM).setCouncilId("ops-council").build();
        calls.pipeInput("s1", call);

        ToolDecision pending = decisions.readValue();
        assertThat(pending.getVerdict()).isEqualTo(Verdict.PENDING);
        assertThat(pending.getSignature()).isNull();
        assertThat(pending.getReason()).startsWith("waiting for council ops-council (proposal "
                + Proposals.id("s1", call.getCallId()) + "): every shell.run waits for the council");
        assertThat(shell.isEmpty()).as("nothing is shown to run before the council decides").isTrue();
        CouncilMessage proposal = written.readValue();
        assertThat(proposal.getType()).isEqualTo(CouncilMessageType.PROPOSAL);
        assertThat(proposal.getSender()).isEqualTo("gatekeeper");
        assertThat(proposal.getCouncilId()).isEqualTo("ops-council");
        assertThat(proposal.getMsgId()).isEqualTo(pending.getProposalId());
        assertThat(proposal.getContent()).contains("tool: shell.run", "skill: ops", "session: s1", "risk: MED",
                        "arguments sha256: " + Sha256.hex(pending.getCall().getArguments()))
                .contains("rm -rf build/").doesNotContain("sk-live-abcdefghijklmnop0123");

        vote("ops-council", proposal.getMsgId(), Vote.YES, Vote.YES);

        ToolDecision approved = decisions.readValue();
        assertThat(approved.getVerdict()).isEqualTo(Verdict.APPROVED);
        assertThat(approved.getReason()).startsWith("approved by council ops-council (2 yes, 0 no, 0 abstain "
                + "(prime, lite)): majority");
        assertThat(approved.getCall().getArguments()).as("the exact arguments, secrets aside, as before")
                .isEqualTo(pending.getCall().getArguments());
        assertThat(approved.getCouncilDecision().getOutcome()).isEqualTo(CouncilOutcome.APPROVED);
        assertThat(approved.getCouncilDecision().getProposalDigest())
                .isEqualTo(Sha256.hex(proposal.getContent()));
        DecisionSignatures.Verifier executor = new DecisionSignatures.Verifier(List.of(SIGNER.publicKey()));
        assertThat(executor.problem(approved)).isEmpty();
        ToolDecision stripped = ToolDecision.newBuilder(approved).setCouncilDecision(null).build();
        assertThat(executor.problem(stripped)).as("the council's decision is inside the signature").isPresent();
        assertThat(shell.readValue().getText()).contains("rm -rf build/");
        assertThat(shell.isEmpty()).isTrue();
        assertThat(deadLetters.isEmpty()).isTrue();

        // The council wrote it twice in one transaction: for people, by council, and for the gatekeeper, by session.
        TestRecord<String, CouncilDecision> forPeople = TopicDriver.output(driver, topics.councilDecisions)
                .readRecord();
        TestRecord<String, CouncilDecision> forGatekeeper = bySession.readRecord();
        assertThat(forPeople.key()).isEqualTo("ops-council");
        assertThat(forGatekeeper.key()).isEqualTo("s1");
        assertThat(forGatekeeper.value()).isEqualTo(forPeople.value());
        assertThat(bySession.isEmpty()).isTrue();

        // The same decision again finds no call waiting: it decides nothing twice.
        councilDecisions.pipeInput("s1", forGatekeeper.value());
        assertThat(decisions.isEmpty()).isTrue();
        assertThat(deadLetters.readValue().getReason()).contains("no call of session s1 waits for it");
    }

    @Test
    void theProposalShowsTheSkillsProtocolAndTheSessionsRecentTurnsRedactedInsideWhatTheDecisionBinds() {
        start(ApprovalRule.Policy.RISKY, true);
        present("default");
        TestInputTopic<String, CognitionPacket> packets = TopicDriver.input(driver, topics.packets);
        List<ChatMessage> history = new ArrayList<>();
        history.add(message(ChatRole.USER, "an old question that scrolled away"));
        for (int i = 0; i < 4; i++) {
            history.add(message(ChatRole.TOOL, "a long tool output " + "x".repeat(RecentTurns.MAX_CHARS)));
        }
        history.add(message(ChatRole.USER, "clean the build directory, my key is sk-live-abcdefghijklmnop0123"));
        history.add(message(ChatRole.ASSISTANT, "I will remove build/"));
        packets.pipeInput("s1", packet("s1", history, "and now the tests"));
        packets.pipeInput("s2", packet("s2", List.of(message(ChatRole.USER, "another session's turn")), "hi"));
        calls.pipeInput("s1", call("s1", "shell.run", RM).build());
        decisions.readValue();

        CouncilMessage proposal = written.readValue();
        ProposalContext parts = ProposalContext.of(proposal.getContent());
        assertThat(parts.call()).contains("tool: shell.run", "arguments sha256: ");
        assertThat(parts.protocol()).contains("# ops protocol");
        assertThat(parts.turns().orElseThrow())
                .contains("user: clean the build directory, my key is", "assistant: I will remove build/")
                .endsWith("user: and now the tests")
                .doesNotContain("sk-live-abcdefghijklmnop0123", "an old question", "another session's turn");
        assertThat(proposal.getContent().length()).isLessThan(Proposals.SHOWN_ARGUMENTS_CHARS
                + Proposals.SHOWN_PROTOCOL_CHARS + RecentTurns.MAX_CHARS + 1000);

        vote("default", proposal.getMsgId(), Vote.YES, Vote.YES);
        assertThat(decisions.readValue().getCouncilDecision().getProposalDigest()).as("the context is decided on too")
                .isEqualTo(Sha256.hex(proposal.getContent()));
    }

    @Test
    void aSessionThatEndsForgetsItsTurns() {
        start(ApprovalRule.Policy.RISKY, false);
        TopicDriver.input(driver, topics.packets).pipeInput("s1", packet("s1", List.of(), "a secret plan"));
        TopicDriver.input(driver, topics.sessionControl).pipeInput("s1", SessionControl.newBuilder()
                .setSessionId("s1").setAction(SessionAction.END_SESSION).setTimestamp(Records.T0).build());
        calls.pipeInput("s1", call("s1", "shell.run", RM).build());

        assertThat(ProposalContext.of(written.readValue().getContent()).turns()).isEmpty();
    }

    private static ChatMessage message(ChatRole role, String content) {
        return ChatMessage.newBuilder().setRole(role).setContent(content).build();
    }

    private static CognitionPacket packet(String session, List<ChatMessage> history, String prompt) {
        Tokenizers tokenizers = new Tokenizers();
        CognitionPacket packet = new PacketAssembler(tokenizers, TaskInstructions.defaults(tokenizers),
                ContextLayers.defaults(FieldCompressor.NONE), FieldCompressor.NONE)
                .assemble(Records.input(Records.request(session, prompt).build())).packet();
        return CognitionPacket.newBuilder(packet)
                .setPayload(PacketPayload.newBuilder(packet.getPayload()).setHistory(history).build()).build();
    }

    @Test
    void aRejectedCallIsDeniedWithTheCouncilsReasonAndReAnchored() {
        start(ApprovalRule.Policy.RISKY, true);
        present("default");
        calls.pipeInput("s1", call("s1", "mcp__files__write", "{\"path\":\"a\"}").build());
        decisions.readValue();
        CouncilMessage proposal = written.readValue();

        vote("default", proposal.getMsgId(), Vote.NO, Vote.NO);

        ToolDecision denied = decisions.readValue();
        assertThat(denied.getVerdict()).isEqualTo(Verdict.DENIED);
        assertThat(denied.getReason()).startsWith("denied: council default REJECTED proposal " + proposal.getMsgId()
                + " (0 yes, 2 no, 0 abstain (prime, lite)): majority").contains("The call did not run");
        assertThat(denied.getProtocol()).as("re-anchoring").isEqualTo("# ops protocol");
        ToolResult result = results.readValue();
        assertThat(result.getStatus()).isEqualTo(ToolStatus.DENIED);
        assertThat(result.getError()).isEqualTo(denied.getReason());
        assertThat(shell.isEmpty()).isTrue();
    }

    @Test
    void onlyToolsMarkedReadOnlyRunWithoutTheCouncilAndTheRiskFollowsTheServersHints() {
        start(ApprovalRule.Policy.RISKY, false);
        calls.pipeInput("s1", call("s1", "mcp__files__read", "{}").build());
        assertThat(decisions.readValue().getVerdict()).isEqualTo(Verdict.APPROVED);
        assertThat(written.isEmpty()).isTrue();

        calls.pipeInput("s1", call("s1", "mcp__files__read_secrets", "{}").build());
        assertThat(decisions.readValue().getReason()).endsWith("skill \"ops\" names it in its approval list");
        assertThat(written.readValue().getRiskLevel()).isEqualTo(RiskLevel.MED);

        calls.pipeInput("s1", call("s1", "mcp__files__delete", "{}").build());
        assertThat(decisions.readValue().getVerdict()).isEqualTo(Verdict.PENDING);
        assertThat(written.readValue().getRiskLevel()).as("destructiveHint: escalated to Prime too")
                .isEqualTo(RiskLevel.HIGH);
    }

    @Test
    void withApprovalNeverEveryApprovedCallRunsAtOnce() {
        start(ApprovalRule.Policy.NEVER, false);
        calls.pipeInput("s1", call("s1", "shell.run", RM).build());
        assertThat(decisions.readValue().getVerdict()).isEqualTo(Verdict.APPROVED);
        assertThat(written.isEmpty()).isTrue();
        assertThat(shell.readValue().getText()).contains("rm -rf build/");
    }

    @Test
    void aDecisionNotSignedByTheAppsCouncilOrOfAnotherContentDecidesNothing() {
        start(ApprovalRule.Policy.RISKY, false);
        ToolCall call = call("s1", "shell.run", RM).build();
        calls.pipeInput("s1", call);
        decisions.readValue();
        CouncilMessage proposal = written.readValue();
        CouncilDecision approval = CouncilDecision.newBuilder().setProposalId(proposal.getMsgId())
                .setCouncilId("default").setOutcome(CouncilOutcome.APPROVED).setYes(2).setProposer("gatekeeper")
                .setSessionId("s1").setProposalDigest(Sha256.hex(proposal.getContent()))
                .setReason("majority").setTimestamp(Records.T0.plusSeconds(2)).build();

        councilDecisions.pipeInput("s1", null);
        councilDecisions.pipeInput("s1", approval);
        Ed25519.Key stranger = Ed25519.Key.generated();
        councilDecisions.pipeInput("s1", CouncilSignatures.sign(approval, stranger));
        CouncilDecision signed = CouncilSignatures.sign(approval, SIGNER.key());
        councilDecisions.pipeInput("s1", CouncilDecision.newBuilder(signed).setOutcome(CouncilOutcome.REJECTED)
                .build());
        councilDecisions.pipeInput("s1", CouncilSignatures.sign(CouncilDecision.newBuilder(approval)
                .setProposalDigest(Sha256.hex("another proposal")).build(), SIGNER.key()));
        councilDecisions.pipeInput("s1", CouncilSignatures.sign(CouncilDecision.newBuilder(approval)
                .setCouncilId("elsewhere").build(), SIGNER.key()));
        councilDecisions.pipeInput("default", signed);
        councilDecisions.pipeInput("s2", signed);
        councilDecisions.pipeInput("s1", CouncilSignatures.sign(CouncilDecision.newBuilder(approval)
                .setProposer("prime").build(), SIGNER.key()));
        councilDecisions.pipeInput("s1", CouncilSignatures.sign(CouncilDecision.newBuilder(approval)
                .setSessionId(null).build(), SIGNER.key()));
        councilDecisions.pipeInput("s2", CouncilSignatures.sign(CouncilDecision.newBuilder(approval)
                .setSessionId("s2").build(), SIGNER.key()));

        assertThat(decisions.isEmpty()).as("the call still waits").isTrue();
        List<DeadLetter> letters = deadLetters.readValuesToList();
        assertThat(letters).extracting(DeadLetter::getSourceTopic).containsOnly(Topics.COUNCIL_DECISIONS_BY_SESSION);
        assertThat(letters).extracting(DeadLetter::getReason).containsExactly(
                "council decision is null (tombstones are not decisions)",
                "decision on proposal " + proposal.getMsgId() + " refused: the decision is not signed: only the "
                        + "council's decisions, signed with the app's key, decide a call",
                "decision on proposal " + proposal.getMsgId() + " refused: the decision is signed by key "
                        + stranger.id() + ", not the app's key " + SIGNER.keyId() + ": it is not this app's council's",
                "decision on proposal " + proposal.getMsgId() + " refused: the decision's signature does not match "
                        + "it: it was forged, or changed after the council signed it",
                "the decision on proposal " + proposal.getMsgId() + " is of content with digest "
                        + Sha256.hex("another proposal") + ", not of the proposal sent ("
                        + Sha256.hex(proposal.getContent()) + "): the call is not decided by it",
                "proposal " + proposal.getMsgId() + " was put to council default, not elsewhere",
                "a council.decisions.by-session record of session \"s1\" is keyed \"default\"; key it by its "
                        + "session id",
                "a council.decisions.by-session record of session \"s1\" is keyed \"s2\"; key it by its session id",
                "decision on proposal " + proposal.getMsgId() + " of prime: council.decisions.by-session carries "
                        + "only decisions on the gatekeeper's proposals",
                "decision on the gatekeeper's proposal " + proposal.getMsgId() + " names no session",
                "council default decided proposal " + proposal.getMsgId() + " (APPROVED), but no call of session "
                        + "s2 waits for it: it was decided already, or never proposed by this gatekeeper");

        councilDecisions.pipeInput("s1", signed);
        assertThat(decisions.readValue().getVerdict()).isEqualTo(Verdict.APPROVED);
    }

    @Test
    void aCallTheCouncilNeverDecidesIsDeniedAfterTheApprovalTimeout() {
        start(ApprovalRule.Policy.RISKY, false);
        calls.pipeInput("s1", call("s1", "shell.run", RM).build());
        decisions.readValue();
        driver.advanceWallClockTime(TIMEOUT);
        assertThat(decisions.isEmpty()).isTrue();

        driver.advanceWallClockTime(Duration.ofSeconds(10));

        ToolDecision denied = decisions.readValue();
        assertThat(denied.getVerdict()).isEqualTo(Verdict.DENIED);
        assertThat(denied.getReason()).contains("did not decide proposal").contains("within PT10M");
        assertThat(results.readValue().getStatus()).isEqualTo(ToolStatus.DENIED);
    }

    @Test
    void aReplayIsAnsweredFromTheOriginalDecisionAndOpensNoProposal() {
        start(ApprovalRule.Policy.RISKY, true);
        present("default");
        ToolCall original = call("s1", "shell.run", RM).build();
        calls.pipeInput("s1", original);
        decisions.readValue();
        vote("default", written.readValue().getMsgId(), Vote.NO, Vote.NO);
        ToolDecision originalDenial = decisions.readValue();
        results.readValue();

        calls.pipeInput("s1", call("s1", "shell.run", RM).setTimeTravel(TimeTravel.REPLAY)
                .setParentId(original.getCallId()).build());

        ToolDecision replayed = decisions.readValue();
        assertThat(replayed.getVerdict()).isEqualTo(Verdict.DENIED);
        assertThat(replayed.getReason()).isEqualTo(originalDenial.getReason());
        assertThat(written.readValuesToList()).as("no proposal")
                .noneMatch(message -> message.getType() == CouncilMessageType.PROPOSAL);

        calls.pipeInput("s1", call("s1", "shell.run", RM).setTimeTravel(TimeTravel.FORK).build());
        assertThat(results.readValuesToList()).extracting(ToolResult::getStatus).endsWith(ToolStatus.NOT_EXECUTED);
        calls.pipeInput("s1", call("s1", "shell.run", RM).setTimeTravel(TimeTravel.FORK_EXECUTE).build());
        assertThat(decisions.readValuesToList()).extracting(ToolDecision::getVerdict)
                .containsExactly(Verdict.APPROVED, Verdict.PENDING);
        assertThat(written.readValue().getTimeTravel()).as("the fork asks the council again")
                .isEqualTo(TimeTravel.FORK_EXECUTE);
    }

    /** prime and lite heartbeat: they are there before any proposal (a council without them decides NO_QUORUM). */
    private void present(String council) {
        for (String role : List.of("prime", "lite")) {
            messages.pipeInput(council, CouncilMessage.newBuilder().setMsgId("hb-" + role).setCouncilId(council)
                    .setTimestamp(Records.T0.minusSeconds(1)).setSender(role).setRole("member")
                    .setType(CouncilMessageType.HEARTBEAT).build());
        }
    }

    private void vote(String council, String proposal, Vote prime, Vote lite) {
        Instant at = Records.T0.plusSeconds(1);
        messages.pipeInput(council, ballot(council, proposal, "prime", prime, at.plusMillis(1)));
        messages.pipeInput(council, ballot(council, proposal, "lite", lite, at.plusMillis(2)));
    }

    private static CouncilMessage ballot(String council, String proposal, String role, Vote vote, Instant at) {
        return CouncilMessage.newBuilder().setMsgId("v-" + role + "-" + proposal).setCouncilId(council)
                .setTimestamp(at).setSender(role).setRole("reviewer").setType(CouncilMessageType.VOTE)
                .setProposalId(proposal).setVote(vote).setContent("one line").build();
    }

    private ToolCall.Builder call(String session, String tool, String arguments) {
        return ToolCall.newBuilder()
                .setCallId("call-" + ++callCount)
                .setSessionId(session)
                .setCaller("ops")
                .setSkill("ops")
                .setTool(tool)
                .setArguments(arguments)
                .setTimestamp(Records.T0);
    }
}
