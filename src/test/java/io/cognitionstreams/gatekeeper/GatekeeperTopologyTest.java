package io.cognitionstreams.gatekeeper;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

import org.apache.kafka.common.MetricName;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.WindowStore;
import org.apache.kafka.streams.state.WindowStoreIterator;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import io.cognitionstreams.redaction.Redactor;
import io.cognitionstreams.topics.Channel;
import io.cognitionstreams.routing.OutputRouter;
import io.cognitionstreams.schema.DeadLetter;
import io.cognitionstreams.schema.ErrorKind;
import io.cognitionstreams.schema.GatekeeperDenial;
import io.cognitionstreams.schema.GatekeeperSession;
import io.cognitionstreams.schema.Marker;
import io.cognitionstreams.schema.PipelineEvent;
import io.cognitionstreams.schema.RoutedBlock;
import io.cognitionstreams.schema.SessionAction;
import io.cognitionstreams.schema.SessionControl;
import io.cognitionstreams.schema.Skill;
import io.cognitionstreams.schema.TimeTravel;
import io.cognitionstreams.schema.ToolCall;
import io.cognitionstreams.schema.ToolDecision;
import io.cognitionstreams.schema.ToolResult;
import io.cognitionstreams.schema.ToolStatus;
import io.cognitionstreams.schema.Verdict;
import io.cognitionstreams.skills.ToolName;
import io.cognitionstreams.skills.ToolNames;
import io.cognitionstreams.testing.Drivers;
import io.cognitionstreams.testing.Records;
import io.cognitionstreams.testing.TopicDriver;
import io.cognitionstreams.topics.Topics;
import io.cognitionstreams.topology.CouncilSeal;

class GatekeeperTopologyTest {

    /** Low, so three skills overload a session. */
    private static final int THRESHOLD = 2;
    private static final String ROOT = "ops";
    /** How long recorded results are kept here. */
    private static final Duration RETENTION = Duration.ofHours(1);
    private static final DecisionSignatures.Signer SIGNER = DecisionSignatures.Signer.generated();
    /** Arguments an approved shell call needs. */
    private static final String LS = "{\"command\":\"ls\"}";
    private static final String WARNING_START = "[COGNITIVE LOAD WARNING] 3 skills are active in this session (limit 2).";

    @TempDir
    Path stateDir;

    private final Topics topics = Drivers.topics();
    private TopologyTestDriver driver;
    private TestInputTopic<String, Skill> skills;
    private TestInputTopic<String, ToolCall> calls;
    private TestInputTopic<String, ToolResult> outcomes;
    private TestInputTopic<String, SessionControl> control;
    private TestOutputTopic<String, ToolDecision> decisions;
    private TestOutputTopic<String, RoutedBlock> shell;
    private TestOutputTopic<String, ToolResult> results;
    private TestOutputTopic<String, PipelineEvent> events;
    private TestOutputTopic<String, DeadLetter> deadLetters;
    private TestOutputTopic<String, GatekeeperSession> published;
    private int callCount;

    @BeforeEach
    void start() {
        StreamsBuilder builder = new StreamsBuilder();
        // Permissions, load and results: no call waits for a council here (GatekeeperApprovalTest has those).
        GatekeeperTopology.build(builder, topics, new GatekeeperSettings(Optional.of(ROOT), THRESHOLD, RETENTION)
                        .withApproval(ApprovalRule.Policy.NEVER, GatekeeperSettings.DEFAULT_APPROVAL_TIMEOUT),
                Redactor.defaults(), SIGNER, CouncilSeal.NONE);
        driver = Drivers.driver(builder.build(), stateDir);
        skills = TopicDriver.input(driver, topics.skills);
        calls = TopicDriver.input(driver, topics.toolCalls);
        outcomes = TopicDriver.input(driver, topics.toolOutcomes);
        control = TopicDriver.input(driver, topics.sessionControl);
        decisions = TopicDriver.output(driver, topics.toolDecisions);
        shell = TopicDriver.output(driver, topics.channel(Channel.SHELL));
        results = TopicDriver.output(driver, topics.toolResults);
        events = TopicDriver.output(driver, topics.events);
        deadLetters = TopicDriver.output(driver, topics.deadLetters);
        published = TopicDriver.output(driver, topics.gatekeeperSessions);
        load(skill("git", "git:*", "filesystem:read"));
        load(skill("writer", "filesystem:read", "filesystem:write"));
        load(skill("researcher", "web.search", "filesystem.read"));
        load(skill("shell-operator", "shell:*"));
    }

    @AfterEach
    void stop() {
        driver.close();
    }

    static Stream<Arguments> permissionForms() {
        return Stream.of(
                Arguments.of("*", "git.status", true),
                Arguments.of("*", "git:status", true),
                Arguments.of("*", "web.search.deep", true),
                Arguments.of("*", "mcp__git__status", true),
                Arguments.of("*", "git", true),
                Arguments.of("*", "run", true),
                Arguments.of("*", "mcp__git__", true),
                Arguments.of("*", "", false),
                Arguments.of("*", "  ", false),
                Arguments.of("git:*", "git.status", true),
                Arguments.of("git:*", "git:status", true),
                Arguments.of("git:*", "git.remote.add", true),
                Arguments.of("git:*", "git:remote.add", true),
                Arguments.of("git:*", "gitx.status", false),
                Arguments.of("git:*", "filesystem.read", false),
                Arguments.of("git:*", "Git.status", false),
                Arguments.of("git:*", "git", false),
                Arguments.of("git:*", "git.remote:add", false),
                Arguments.of("git:*", "mcp__git__status", true),
                Arguments.of("git:*", "mcp__git__remote.add", true),
                Arguments.of("git:*", "mcp__gitx__status", false),
                Arguments.of("git:*", "mcp__git__", false),
                Arguments.of("git:*", "mcp__git", false),
                Arguments.of("git:*", "mcp____git", false),
                Arguments.of("git:*", "run", false),
                Arguments.of("git:*", "", false),
                Arguments.of("git:status", "mcp__git__status", true),
                Arguments.of("git.status", "mcp__git__status", true),
                Arguments.of("git:status", "mcp__git__status.x", false),
                Arguments.of("git.*", "git.status", true),
                Arguments.of("git.*", "git:remote.add", true),
                Arguments.of("git.*", "gitx:status", false),
                Arguments.of("filesystem:read", "filesystem.read", true),
                Arguments.of("filesystem:read", "filesystem:read", true),
                Arguments.of("filesystem:read", "filesystem.write", false),
                Arguments.of("filesystem:read", "filesystem.read.all", false),
                Arguments.of("filesystem:read", "filesystemX.read", false),
                Arguments.of("filesystem:read", "filesystem", false),
                Arguments.of("filesystem.read", "filesystem:read", true),
                Arguments.of("filesystem.read", "filesystem.read", true),
                Arguments.of("filesystem.read", "filesystem.readx", false),
                Arguments.of("git:remote.add", "git.remote.add", true),
                Arguments.of("git.remote.add", "git:remote.add", true),
                Arguments.of("git.remote.add", "git.remote", false),
                Arguments.of("git.remote.add", "git.remote.remove", false),
                Arguments.of("  shell:run ", "shell.run", true));
    }

    @ParameterizedTest(name = "{0} allows {1}: {2}")
    @MethodSource("permissionForms")
    void everyPermissionFormAllowsExactlyWhatItCovers(String permission, String tool, boolean allowed) {
        load(skill("probe", permission));

        ToolDecision decision = decide("s1", call("s1", "probe", tool).setArguments(LS).build());

        assertThat(decision.getVerdict()).as(decision.getReason())
                .isEqualTo(allowed ? Verdict.APPROVED : Verdict.DENIED);
        if (!allowed) {
            // A blank name is no call a skill could be granted; any other names what would allow it. Both re-anchor.
            boolean blank = tool.isBlank();
            assertThat(decision.getRequiredPermission()).isEqualTo(blank ? null
                    : ToolNames.split(tool).map(ToolName::canonical).orElse("*"));
            assertThat(decision.getProtocol()).isEqualTo(protocolOf("probe"));
        }
    }

    @Test
    void anMcpStyleCallIsTheToolItNamesUnderTheSkillsPermissions() {
        ToolDecision status = decide("s1", call("s1", "git", "mcp__git__status").build());
        ToolDecision write = decide("s1", call("s1", "git", "mcp__filesystem__write").build());

        assertThat(status.getVerdict()).isEqualTo(Verdict.APPROVED);
        assertThat(status.getReason()).isEqualTo("approved: skill \"git\" is permitted mcp__git__status");
        assertThat(status.getCall().getTool()).as("the executor gets the name as sent").isEqualTo("mcp__git__status");
        assertThat(write.getVerdict()).isEqualTo(Verdict.DENIED);
        assertThat(write.getRequiredPermission()).isEqualTo("filesystem:write");
        assertThat(write.getReason()).contains("needs the permission filesystem:write (or filesystem:*)");
        assertThat(store().get("s1").getActiveSkills()).containsExactly("git");
    }

    @Test
    void aBareNameIsApprovedUnderStarAndDeniedUnderAServiceWithStarAsWhatWouldAllowIt() {
        load(skill("admin", "*"));

        ToolDecision admin = decide("s1", call("s1", "admin", "run").build());
        ToolDecision git = decide("s1", call("s1", "git", "run").build());

        assertThat(admin.getVerdict()).isEqualTo(Verdict.APPROVED);
        assertThat(admin.getReason()).isEqualTo("approved: skill \"admin\" is permitted run");
        assertThat(git.getVerdict()).isEqualTo(Verdict.DENIED);
        assertThat(git.getRequiredPermission()).isEqualTo("*");
        assertThat(git.getProtocol()).isEqualTo(protocolOf("git"));
        assertThat(git.getReason()).startsWith("denied: skill \"git\" may not call run. \"run\" is not a "
                + "service:method tool name (it has no service part), so only the permission * allows it")
                .contains("it holds: git:*, filesystem:read");
        assertThat(shell.isEmpty()).isTrue();
        PipelineEvent drift = events.readValue();
        assertThat(drift.getAttributes()).containsEntry("kind", "permission").containsEntry("tool", "run")
                .containsEntry("required_permission", "*");
        assertThat(deniedTotal("git", "(malformed)")).isEqualTo(1.0);
        assertThat(store().get("s1").getActiveSkills()).containsExactly("admin");
    }

    @Test
    void aBlankToolNameIsDeniedEvenUnderStarAndForTheRootCaller() {
        load(skill("admin", "*"));

        List<ToolDecision> denied = List.of(
                decide("s1", call("s1", "admin", "").build()),
                decide("s1", call("s1", "admin", " \t").build()),
                decide("s1", call("s1", ROOT, " ").setSkill(null).build()),
                decide("s1", call("s1", "git", "").build()));

        assertThat(denied).allSatisfy(decision -> {
            assertThat(decision.getVerdict()).isEqualTo(Verdict.DENIED);
            assertThat(decision.getReason()).startsWith("denied: the tool name is blank")
                    .contains("not even *, and neither does the root caller");
            assertThat(decision.getRequiredPermission()).isNull();
        });
        // The model that sent a blank name is re-anchored with its skill's protocol; the root caller has none.
        assertThat(denied).extracting(ToolDecision::getProtocol)
                .containsExactly(protocolOf("admin"), protocolOf("admin"), null, protocolOf("git"));
        assertThat(events.readValuesToList()).extracting(e -> e.getAttributes().get("kind"))
                .containsOnly("malformed_tool").hasSize(4);
        assertThat(store().get("s1").getDeniedCalls()).isEqualTo(4);
    }

    @Test
    void theRootCallerMayCallAnyNameThatIsNotBlank() {
        ToolDecision decision = decide("s1", call("s1", ROOT, "Bash").setSkill(null).build());

        assertThat(decision.getVerdict()).isEqualTo(Verdict.APPROVED);
        assertThat(decision.getReason()).contains("root caller \"ops\" may call Bash").contains("privileged");
        assertThat(events.readValue().getType()).isEqualTo(GatekeeperSessions.PRIVILEGED_CALL);
    }

    @Test
    void aSkillWithNoPermissionsMayCallNothing() {
        load(skill("idle"));

        assertThat(decide("s1", call("s1", "idle", "filesystem.read").build()).getVerdict()).isEqualTo(Verdict.DENIED);
    }

    @Test
    void aDenialCarriesTheRequiredPermissionAndTheSkillsProtocol() {
        ToolCall call = call("s1", "writer", "shell.run").setArguments("{\"command\":\"rm -rf /\"}").build();

        TestRecord<String, ToolDecision> record = decideRecord("s1", call);

        ToolDecision decision = record.value();
        assertThat(record.key()).isEqualTo("s1");
        assertThat(decision.getCall()).isEqualTo(call);
        assertThat(decision.getVerdict()).isEqualTo(Verdict.DENIED);
        assertThat(decision.getRequiredPermission()).isEqualTo("shell:run");
        assertThat(decision.getProtocol()).isEqualTo(protocolOf("writer"));
        assertThat(decision.getReason()).startsWith("denied: skill \"writer\" may not call shell.run.")
                .contains("it holds: filesystem:read, filesystem:write");
        assertThat(shell.isEmpty()).as("a denied shell call never reaches the shell").isTrue();

        PipelineEvent drift = events.readValue();
        assertThat(drift.getType()).isEqualTo(GatekeeperSessions.DRIFT);
        assertThat(drift.getSessionId()).isEqualTo("s1");
        assertThat(drift.getMessage()).isEqualTo(decision.getReason());
        assertThat(drift.getAttributes()).containsEntry("skill", "writer").containsEntry("tool", "shell.run")
                .containsEntry("required_permission", "shell:run").containsEntry("kind", "permission");
        assertThat(events.isEmpty()).isTrue();
    }

    @Test
    void theSameCallSentTwiceIsTwoDriftEventsEachNamedByWhereItsCallWasRead() {
        ToolCall call = call("s1", "writer", "shell.run").build();
        decide("s1", call);
        decide("s1", call);

        assertThat(events.readValuesToList()).extracting(PipelineEvent::getEventId)
                .containsExactly("tool.calls-0@0/DRIFT", "tool.calls-0@1/DRIFT");
    }

    @Test
    void denialsAreCountedPerSkillAndToolInAMetric() {
        decide("s1", call("s1", "writer", "shell.run").build());
        decide("s2", call("s2", "writer", "shell.run").build());
        decide("s1", call("s1", "writer", "web.search").build());
        decide("s1", call("s1", "git", "git.status").build());

        assertThat(deniedTotal("writer", "shell.run")).isEqualTo(2.0);
        assertThat(deniedTotal("writer", "web.search")).isEqualTo(1.0);
        assertThat(deniedTotal("git", "git.status")).isZero();
    }

    @Test
    void callsWhoseIdentityCannotBeVerifiedAreDeniedWithTheProtocolOfTheSkillTheyNameWhenItIsKnown() {
        ToolDecision noSession = decide("s1", call(null, "git", "git.status").build());
        ToolDecision blankSession = decide("", call(" ", "git", "git.status").build());
        ToolDecision unknownSkill = decide("s1", call("s1", "ghost", "git.status").build());
        ToolDecision borrowed = decide("s1", call("s1", "writer", "git.push").setSkill("git").build());
        ToolDecision noSkill = decide("s1", call("s1", OutputRouter.NO_SKILL_CALLER, "shell.run").setSkill(null)
                .build());

        assertThat(List.of(noSession, blankSession, unknownSkill, borrowed, noSkill)).allSatisfy(decision -> {
            assertThat(decision.getVerdict()).isEqualTo(Verdict.DENIED);
            assertThat(decision.getReason()).startsWith("identity verification failed: ");
            assertThat(decision.getRequiredPermission()).isNull();
        });
        // git is known, so the calls that name it are re-anchored with it; ghost and no skill have no protocol.
        assertThat(List.of(noSession, blankSession, unknownSkill, borrowed, noSkill))
                .extracting(ToolDecision::getProtocol)
                .containsExactly(protocolOf("git"), protocolOf("git"), null, protocolOf("git"), null);
        assertThat(borrowed.getReason()).endsWith(". Re-read the protocol of skill \"git\" below and continue "
                + "within it.");
        assertThat(noSession.getReason()).contains("no session");
        assertThat(unknownSkill.getReason()).contains("unknown skill \"ghost\"");
        assertThat(borrowed.getReason()).contains("caller \"writer\" is not the active skill \"git\"");
        assertThat(noSkill.getReason()).contains("no active skill");

        List<TestRecord<String, PipelineEvent>> drift = events.readRecordsToList();
        assertThat(drift).extracting(r -> r.value().getAttributes().get("kind")).containsExactly(
                "no_session", "no_session", "unknown_skill", "caller_mismatch", "no_skill");
        assertThat(drift.get(0).key()).as("an event without a session is keyed by the component")
                .isEqualTo(GatekeeperTopology.NAME);
        // The sessionless calls left no state; the others are the session's recent denials.
        GatekeeperSession state = store().get("s1");
        assertThat(state.getDeniedCalls()).isEqualTo(3);
        assertThat(state.getRecentDenials()).extracting(GatekeeperDenial::getKind)
                .containsExactly("unknown_skill", "caller_mismatch", "no_skill");
        assertThat(state.getActiveSkills()).isEmpty();
    }

    @Test
    void anApprovedShellCallReachesTheShellWithItsLineage() {
        ToolCall routed = call("s1", "shell-operator", OutputRouter.SHELL_TOOL).setCallId("s1-out#3")
                .setArguments("{\"command\":\"ls -la\"}").build();

        assertThat(decide("s1", routed).getVerdict()).isEqualTo(Verdict.APPROVED);

        TestRecord<String, RoutedBlock> record = shell.readRecord();
        RoutedBlock block = record.value();
        assertThat(record.key()).isEqualTo("s1");
        assertThat(block.getText()).isEqualTo("ls -la");
        assertThat(block.getBlockId()).isEqualTo("s1-out#3");
        assertThat(block.getOutputId()).isEqualTo("s1-out");
        assertThat(block.getSequence()).isEqualTo(3);
        assertThat(block.getPacketId()).isEqualTo("0a1b2c3d");
        assertThat(block.getSessionId()).isEqualTo("s1");
        assertThat(block.getMarker()).isEqualTo(Marker.EXECUTE);
        assertThat(block.getChannel()).isEqualTo("shell");
        assertThat(block.getTimestamp()).isEqualTo(Records.T0);
        assertThat(events.isEmpty()).isTrue();
    }

    @Test
    void theShellChannelShowsTheApprovedCommandScrubbedWhileTheDecisionKeepsItsAddressesButNoSecret()
            throws Exception {
        ToolCall call = call("s1", "shell-operator", OutputRouter.SHELL_TOOL)
                .setArguments("{\"command\":\"mysql -h 10.20.30.40 -u admin --password=S3cretPw --email "
                        + "ops@example.com\", \"env\": {\"API_TOKEN\": \"sk-proj-abcdefghijklmnopqrstuvwxyz0123\"}}")
                .build();

        ToolDecision decision = decide("s1", call);

        RoutedBlock block = shell.readValue();
        assertThat(block.getText()).doesNotContain("10.20.30.40", "ops@example.com", "S3cretPw")
                .contains("[REDACTED:IPV4]", "[REDACTED:EMAIL]");
        assertThat(block.getRedactions()).containsEntry("IPV4", 1).containsEntry("EMAIL", 1);
        String approved = decision.getCall().getArguments();
        assertThat(approved).as("what executes is what was approved: addresses kept, secrets not")
                .contains("10.20.30.40", "ops@example.com").doesNotContain("S3cretPw", "sk-proj-abc");
        assertThat(new com.fasterxml.jackson.databind.ObjectMapper().readTree(approved).get("env").get("API_TOKEN")
                .textValue()).startsWith("[REDACTED:");
    }

    @Test
    void onlyApprovedShellCallsReachTheShellWhateverTheSpelling() {
        decide("s1", call("s1", "shell-operator", "shell:run").setCallId("agent-42")
                .setArguments("{\"command\":\"make test\"}").build());
        decide("s1", call("s1", "shell-operator", "mcp__shell__run").setArguments("{\"command\":\"make lint\"}")
                .build());
        decide("s1", call("s1", "git", "shell.run").setArguments("{\"command\":\"curl evil\"}").build());
        decide("s1", call("s1", "git", "mcp__shell__run").setArguments("{\"command\":\"curl evil\"}").build());
        decide("s1", call("s1", "shell-operator", "shell.status").build());
        decide("s1", call("s1", "shell-operator", "mcp__shell__run__x").build());

        List<RoutedBlock> blocks = shell.readValuesToList();
        assertThat(blocks).extracting(RoutedBlock::getText).containsExactly("make test", "make lint");
        assertThat(blocks.get(0).getOutputId()).as("a call id not from routing is its own output id")
                .isEqualTo("agent-42");
        assertThat(blocks.get(0).getSequence()).isZero();
    }

    @Test
    void anApprovedShellCallWithoutACommandIsDeadLetteredWithNothingElseWritten() {
        calls.pipeInput("s1", call("s1", "shell-operator", "shell.run").setArguments("{\"cmd\":\"ls\"}").build());

        DeadLetter letter = deadLetters.readValue();
        assertThat(letter.getErrorKind()).isEqualTo(ErrorKind.VALIDATION);
        assertThat(letter.getReason()).contains("no command to run").contains("{\"cmd\":\"ls\"}");
        assertThat(decisions.isEmpty()).isTrue();
        assertThat(shell.isEmpty()).isTrue();
        assertThat(store().get("s1")).isNull();
    }

    @Test
    void theRootCallerIsApprovedRecordedAndNeverCounted() {
        ToolCall root = call("s1", ROOT, "shell.run").setSkill("writer").setArguments("{\"command\":\"reboot\"}")
                .build();

        ToolDecision decision = decide("s1", root);

        assertThat(decision.getVerdict()).isEqualTo(Verdict.APPROVED);
        assertThat(decision.getReason()).contains("root caller \"ops\"").contains("privileged");
        assertThat(shell.readValue().getText()).isEqualTo("reboot");
        PipelineEvent event = events.readValue();
        assertThat(event.getType()).isEqualTo(GatekeeperSessions.PRIVILEGED_CALL);
        assertThat(event.getAttributes()).containsEntry("caller", ROOT).containsEntry("tool", "shell.run");
        GatekeeperSession state = store().get("s1");
        assertThat(state.getActiveSkills()).as("neither the root caller nor the skill it named").isEmpty();
        assertThat(state.getApprovedCalls()).isEqualTo(1);
        assertThat(state.getPrivilegedCalls()).isEqualTo(1);
    }

    @Test
    void aSkillBecomesActiveWhenTheSessionUsesItInAnApprovedCall() {
        decide("s1", call("s1", "git", "git.status").build());
        decide("s1", call("s1", "writer", "filesystem.write").build());
        decide("s1", call("s1", "git", "git:commit").build());
        decide("s1", call("s1", "researcher", "shell.run").build());
        decide("s1", call("s1", ROOT, "git.push").build());
        decide("s2", call("s2", "researcher", "web.search").build());

        GatekeeperSession state = store().get("s1");
        assertThat(state.getActiveSkills()).as("in the order first used; denied and root calls activate nothing")
                .containsExactly("git", "writer");
        assertThat(state.getApprovedCalls()).isEqualTo(4);
        assertThat(state.getPrivilegedCalls()).isEqualTo(1);
        assertThat(state.getDeniedCalls()).isEqualTo(1);
        assertThat(state.getOverloadThreshold()).isEqualTo(THRESHOLD);
        assertThat(store().get("s2").getActiveSkills()).containsExactly("researcher");
    }

    @Test
    void theCallThatFirstOverloadsASessionIsAnEvent() {
        overload("s1");
        load(skill("reviewer", "filesystem:read"));
        decide("s1", call("s1", "reviewer", "filesystem.read").build());

        List<PipelineEvent> overloads = events.readValuesToList();
        assertThat(overloads).extracting(PipelineEvent::getType).containsExactly(GatekeeperSessions.COGNITIVE_OVERLOAD);
        assertThat(overloads.get(0).getMessage()).startsWith(WARNING_START);
        assertThat(overloads.get(0).getAttributes()).containsEntry("active_skills", "git,writer,researcher")
                .containsEntry("count", "3").containsEntry("threshold", "2");
    }

    @Test
    void anOverloadedSessionsSuccessfulResultsCarryTheWarningWhereTheirShapeAllows() {
        overload("s1");

        ToolResult text = annotate(result("s1").setText("3 files changed").build());
        ToolResult message = annotate(result("s1").setJson("{\"message\":\"pushed\",\"commits\":2}").build());
        ToolResult object = annotate(result("s1").setJson("{\"files\":[\"a.md\"]}").build());
        ToolResult array = annotate(result("s1").setJson("[1,2]").build());
        ToolResult failed = annotate(result("s1").setSuccess(false).setError("exit 1").setText("boom").build());

        assertThat(text.getText()).startsWith("3 files changed\n\n" + WARNING_START);
        assertThat(message.getJson()).startsWith("{\"message\":\"pushed\\n\\n" + WARNING_START)
                .endsWith(",\"commits\":2}");
        assertThat(object.getJson()).startsWith("{\"files\":[\"a.md\"],\"_cognition\":{\"warning\":\""
                + WARNING_START);
        assertThat(array.getJson()).as("an array keeps its shape; the warning is in its own field")
                .isEqualTo("[1,2]");
        assertThat(List.of(text, message, object, array)).allSatisfy(result ->
                assertThat(result.getCognitiveLoadWarning()).startsWith(WARNING_START));
        assertThat(failed).isEqualTo(result("s1").setSuccess(false).setError("exit 1").setText("boom").build());
    }

    @Test
    void aSessionAtOrBelowTheThresholdGetsItsResultsUnchanged() {
        decide("s1", call("s1", "git", "git.status").build());
        decide("s1", call("s1", "writer", "filesystem.read").build());
        ToolResult atThreshold = result("s1").setText("ok").setJson("{\"a\":1}").build();
        ToolResult unknownSession = result("s2").setText("ok").build();

        assertThat(annotate(atThreshold)).isEqualTo(atThreshold);
        assertThat(annotate(unknownSession)).isEqualTo(unknownSession);
    }

    @Test
    void resetEmptiesTheActiveSkillsAndTheWarningGoesAway() {
        overload("s1");
        decide("s1", call("s1", "writer", "shell.run").build());
        assertThat(results.readValue().getStatus()).as("a denied call's result").isEqualTo(ToolStatus.DENIED);

        control.pipeInput("s1", control("s1", SessionAction.RESET_SKILLS));

        GatekeeperSession state = store().get("s1");
        assertThat(state.getActiveSkills()).isEmpty();
        assertThat(state.getRecentDenials()).as("the drift history stays").hasSize(1);
        assertThat(state.getApprovedCalls()).isEqualTo(3);
        ToolResult calm = result("s1").setText("ok").build();
        assertThat(annotate(calm)).isEqualTo(calm);
    }

    @Test
    void everyChangeOfASessionIsPublishedForCognitionGatekeeperAndItsEndIsATombstone() {
        overload("s1");
        control.pipeInput("s1", control("s1", SessionAction.RESET_SKILLS));
        control.pipeInput("s1", control("s1", SessionAction.END_SESSION));

        List<TestRecord<String, GatekeeperSession>> changes = published.readRecordsToList();
        assertThat(changes).extracting(TestRecord::key).containsOnly("s1");
        assertThat(changes.get(changes.size() - 3).value()).as("what the store held before the reset")
                .isNotNull().satisfies(state -> assertThat(state.getActiveSkills()).isNotEmpty());
        assertThat(changes.get(changes.size() - 2).value().getActiveSkills()).as("after the reset").isEmpty();
        assertThat(changes.get(changes.size() - 1).value()).as("the session ended").isNull();
    }

    @Test
    void endingASessionForgetsIt() {
        overload("s1");

        control.pipeInput("s1", control("s1", SessionAction.END_SESSION));
        control.pipeInput("s9", control("s9", SessionAction.RESET_SKILLS));

        assertThat(store().get("s1")).isNull();
        assertThat(store().get("s9")).as("a reset creates no state").isNull();
        ToolResult calm = result("s1").setText("ok").build();
        assertThat(annotate(calm)).isEqualTo(calm);
    }

    @Test
    void aReplayedCallIsAnsweredWithTheOriginalsRecordedResultAndNeverReachesTheShellChannel() {
        ToolCall original = call("s1", "shell-operator", "shell.run").setArguments("{\"command\":\"git tag v2\"}")
                .build();
        decide("s1", original);
        assertThat(shell.readValue().getText()).isEqualTo("git tag v2");
        ToolResult ran = annotate(result("s1").setCallId(original.getCallId()).setTool("shell.run")
                .setText("tagged").setStatus(ToolStatus.SUCCEEDED).setCallCount(1).build());

        ToolDecision replayed = decide("s1", ToolCall.newBuilder(original).setCallId("replayed-call")
                .setTimeTravel(TimeTravel.REPLAY).setParentId(original.getCallId()).setOriginSessionId("s1").build());

        assertThat(replayed.getVerdict()).as("decided as the original was").isEqualTo(Verdict.APPROVED);
        assertThat(shell.isEmpty()).as("no command for a person or an executor to run").isTrue();
        ToolResult answer = results.readValue();
        assertThat(answer.getCallId()).isEqualTo("replayed-call");
        assertThat(answer.getText()).isEqualTo(ran.getText());
        assertThat(answer.getStatus()).isEqualTo(ToolStatus.SUCCEEDED);
        assertThat(answer.getTimeTravel()).isEqualTo(TimeTravel.REPLAY);
        assertThat(answer.getParentId()).as("the original call, whose result it is").isEqualTo(original.getCallId());
        assertThat(answer.getOriginSessionId()).isEqualTo("s1");
    }

    @Test
    void aReplayedCallWithoutARecordedOriginalAndAForkedCallAreRecordedAsNotExecuted() {
        decide("s1", call("s1", "git", "git.status").setTimeTravel(TimeTravel.REPLAY).setParentId("lost#0")
                .build());
        ToolResult replayed = results.readValue();
        decide("s1~fork-1", call("s1~fork-1", "git", "git.status").setTimeTravel(TimeTravel.FORK)
                .setParentId("x#0").setOriginSessionId("s1").build());
        ToolResult forked = results.readValue();
        decide("s2", call("s2", "shell-operator", "shell.run").setArguments("{\"command\":\"ls\"}")
                .setCallId("pk7-out#2").setTimeTravel(TimeTravel.FORK_EXECUTE).setParentId("pk1-out#2")
                .setOriginSessionId("s1").build());

        assertThat(replayed.getStatus()).isEqualTo(ToolStatus.NOT_EXECUTED);
        assertThat(replayed.getError()).contains("not executed during replay", "lost#0");
        assertThat(forked.getStatus()).isEqualTo(ToolStatus.NOT_EXECUTED);
        assertThat(forked.getError()).contains("fork --execute-tools");
        assertThat(forked.getParentId()).isEqualTo("x#0");
        assertThat(forked.getOriginSessionId()).isEqualTo("s1");
        RoutedBlock command = shell.readValue();
        assertThat(command.getText()).as("a fork asked to run its tools does").isEqualTo("ls");
        assertThat(command.getTimeTravel()).isEqualTo(TimeTravel.FORK_EXECUTE);
        assertThat(command.getParentId()).as("the original packet, like every other block of a fork")
                .isEqualTo("pk1");
        assertThat(command.getOriginSessionId()).isEqualTo("s1");
        assertThat(results.isEmpty()).as("and its result comes from an executor").isTrue();
    }

    @Test
    void endingASessionForgetsItsRecordedResults() {
        annotate(result("s1").setCallId("c1").setText("ok").build());
        annotate(result("s1").setCallId("c2").setText("ok").build());
        annotate(result("s10").setCallId("c1").setText("other session").build());

        control.pipeInput("s1", control("s1", SessionAction.END_SESSION));

        assertThat(recorded("s1/c1")).isEmpty();
        assertThat(recorded("s1/c2")).isEmpty();
        assertThat(recorded("s10/c1")).as("s10 starts with s1 but is another session").hasSize(1);
    }

    @Test
    void aRecordedResultIsKeptForTheRetentionInStreamTimeThenAReplayFindsNoneAndSaysWhy() {
        ToolCall original = call("s1", "git", "git.status").build();
        calls.pipeInput("s1", original, Records.T0);
        recordResult(result("s1").setCallId(original.getCallId()).setText("clean"), Records.T0);
        ToolCall replayed = call("s1", "git", "git.status").setTimeTravel(TimeTravel.REPLAY)
                .setParentId(original.getCallId()).build();

        // The store drops by the time of what it records: another session's results move it, to the last moment
        // the first result is kept, then past it.
        recordResult(result("s2").setText("later"), Records.T0.plus(RETENTION).minusMillis(1));
        calls.pipeInput("s1", replayed, Records.T0.plus(RETENTION).minusMillis(1));
        assertThat(results.readValue().getText()).isEqualTo("clean");

        recordResult(result("s2").setText("much later"), Records.T0.plus(RETENTION));
        assertThat(recorded("s1/" + original.getCallId())).as("older than the retention").isEmpty();
        calls.pipeInput("s1", ToolCall.newBuilder(replayed).setCallId("replayed-again").build(),
                Records.T0.plus(RETENTION));
        ToolResult late = results.readValue();
        assertThat(late.getStatus()).isEqualTo(ToolStatus.NOT_EXECUTED);
        assertThat(late.getError()).contains("no recorded result", "--recorded-results-retention");
    }

    @Test
    void theRecentDenialsAreBounded() {
        for (int i = 0; i < GatekeeperSessions.RECENT_DENIALS + 5; i++) {
            decide("s1", call("s1", "writer", "tool.n" + i).build());
        }

        GatekeeperSession state = store().get("s1");
        assertThat(state.getDeniedCalls()).isEqualTo(GatekeeperSessions.RECENT_DENIALS + 5);
        assertThat(state.getRecentDenials()).hasSize(GatekeeperSessions.RECENT_DENIALS);
        assertThat(state.getRecentDenials().get(0).getTool()).isEqualTo("tool.n5");
        assertThat(state.getRecentDenials().get(GatekeeperSessions.RECENT_DENIALS - 1).getTool())
                .isEqualTo("tool.n24");
    }

    @Test
    void aSkillEditedOnTheSkillsTopicDecidesTheNextCall() {
        assertThat(decide("s1", call("s1", "writer", "shell.run").build()).getVerdict()).isEqualTo(Verdict.DENIED);

        load(skill("writer", "filesystem:*", "shell:run"));
        assertThat(decide("s1", call("s1", "writer", "shell.run").setArguments(LS).build()).getVerdict())
                .isEqualTo(Verdict.APPROVED);

        skills.pipeInput("writer", skill("writer", "shell").build());
        assertThat(decide("s1", call("s1", "writer", "shell.run").setArguments(LS).build()).getVerdict())
                .as("a skill with a malformed permission is refused and the previous version stays")
                .isEqualTo(Verdict.APPROVED);

        skills.pipeInput("writer", null);
        ToolDecision deleted = decide("s1", call("s1", "writer", "filesystem.read").build());
        assertThat(deleted.getReason()).startsWith("identity verification failed: unknown skill \"writer\"");
    }

    @Test
    void aSkillNamedLikeTheRootCallerTakesItsPrivilegeAway() {
        load(skill(ROOT, "git:*"));

        ToolDecision decision = decide("s1", call("s1", ROOT, "shell.run").build());

        assertThat(decision.getVerdict()).isEqualTo(Verdict.DENIED);
        assertThat(decision.getReason()).contains("root caller \"ops\" is also a skill's name");
        assertThat(decision.getProtocol()).isEqualTo(protocolOf(ROOT));
    }

    @Test
    void badRecordsAreDeadLetteredAndTheNextOneIsStillDecided() {
        TopicDriver.raw(driver, topics.toolCalls).pipeInput("s1", new byte[] {(byte) 0xC3, 0x01, 1, 2, 3});
        calls.pipeInput("s1", null);
        calls.pipeInput("s1", call("s1", "git", "git.status").setCallId(" ").build());
        calls.pipeInput("other", call("s1", "git", "git.status").build());
        calls.pipeInput("s1", call("s1", "git", "git.status").setArguments("{\"blob\":\""
                + "x".repeat(GatekeeperSessions.MAX_ARGUMENT_BYTES) + "\"}").build());
        outcomes.pipeInput("s1", null);
        outcomes.pipeInput("other", result("s1").setText("ok").build());
        control.pipeInput("s1", null);
        control.pipeInput("s2", control("s1", SessionAction.RESET_SKILLS));
        calls.pipeInput("s1", call("s1", "git", "git.status").build());

        // The undecodable record's letter is not visible here (TopologyTestDriver drops what a deserialization
        // handler returns); GatekeeperRestartIT runs on a real broker.
        List<DeadLetter> letters = deadLetters.readValuesToList();
        assertThat(letters).extracting(DeadLetter::getErrorKind).containsOnly(ErrorKind.VALIDATION);
        assertThat(letters).extracting(DeadLetter::getSourceTopic).containsExactly(Topics.TOOL_CALLS,
                Topics.TOOL_CALLS, Topics.TOOL_CALLS, Topics.TOOL_CALLS, Topics.TOOL_OUTCOMES, Topics.TOOL_OUTCOMES,
                Topics.SESSION_CONTROL, Topics.SESSION_CONTROL);
        assertThat(letters).extracting(DeadLetter::getReason).containsExactly(
                "tool call is null (tombstones are not calls)",
                "tool call has an empty call_id: its decision could not be matched to it",
                "a tool.calls record of session \"s1\" is keyed \"other\"; key it by its session id",
                "tool call arguments have " + (GatekeeperSessions.MAX_ARGUMENT_BYTES + 11) + " bytes, over the limit "
                        + "of " + GatekeeperSessions.MAX_ARGUMENT_BYTES + ": a decision carries them with the skill's "
                        + "protocol",
                "tool outcome is null (tombstones are not results)",
                "a tool.outcomes record of session \"s1\" is keyed \"other\"; key it by its session id",
                "session control record is null (tombstones are not commands)",
                "a session.control record of session \"s1\" is keyed \"s2\"; key it by its session id");
        assertThat(new String(letters.get(2).getKey().array(), StandardCharsets.UTF_8)).isEqualTo("other");
        assertThat(decisions.readValuesToList()).extracting(ToolDecision::getVerdict)
                .containsExactly(Verdict.APPROVED);
        assertThat(results.isEmpty()).isTrue();
        assertThat(store().get("s1").getApprovedCalls()).isEqualTo(1);
    }

    /** Three skills active with a threshold of two. */
    private void overload(String session) {
        decide(session, call(session, "git", "git.status").build());
        decide(session, call(session, "writer", "filesystem.read").build());
        decide(session, call(session, "researcher", "web.search").build());
    }

    private ToolDecision decide(String key, ToolCall call) {
        return decideRecord(key, call).value();
    }

    private TestRecord<String, ToolDecision> decideRecord(String key, ToolCall call) {
        calls.pipeInput(key, call);
        assertThat(deadLetters.isEmpty()).isTrue();
        return decisions.readRecord();
    }

    private ToolResult annotate(ToolResult outcome) {
        outcomes.pipeInput(outcome.getSessionId(), outcome);
        return results.readValue();
    }

    private void load(Skill.Builder skill) {
        skills.pipeInput(skill.getName(), skill.build());
    }

    private void recordResult(ToolResult.Builder outcome, Instant at) {
        outcomes.pipeInput(outcome.getSessionId(), outcome.build(), at);
        results.readValue();
    }

    private List<ToolResult> recorded(String key) {
        WindowStore<String, ToolResult> store = driver.getWindowStore(GatekeeperTopology.RESULTS_STORE);
        List<ToolResult> found = new ArrayList<>();
        try (WindowStoreIterator<ToolResult> versions = store.fetch(key, 0L, Long.MAX_VALUE)) {
            versions.forEachRemaining(entry -> found.add(entry.value));
        }
        return found;
    }

    private KeyValueStore<String, GatekeeperSession> store() {
        return driver.getKeyValueStore(GatekeeperTopology.ACTIVE_SKILLS_STORE);
    }

    private double deniedTotal(String skill, String tool) {
        return driver.metrics().entrySet().stream()
                .filter(entry -> isDeniedTotal(entry.getKey(), skill, tool))
                .mapToDouble(entry -> (Double) entry.getValue().metricValue())
                .sum();
    }

    private static boolean isDeniedTotal(MetricName name, String skill, String tool) {
        return name.group().equals("stream-gatekeeper-metrics") && name.name().equals("denied-calls-total")
                && skill.equals(name.tags().get("skill")) && tool.equals(name.tags().get("tool"));
    }

    private static String protocolOf(String skill) {
        return "# " + skill + " protocol\n1. Use only the tools " + skill + " is granted.";
    }

    private static Skill.Builder skill(String name, String... permissions) {
        return Skill.newBuilder()
                .setName(name)
                .setVersion("1.0.0")
                .setPermissions(List.of(permissions))
                .setProtocol(protocolOf(name))
                .setTimestamp(Records.T0);
    }

    private ToolCall.Builder call(String session, String skill, String tool) {
        return ToolCall.newBuilder()
                .setCallId("call-" + ++callCount)
                .setSessionId(session)
                .setPacketId("0a1b2c3d")
                .setCaller(skill)
                .setSkill(skill)
                .setTool(tool)
                .setTimestamp(Records.T0);
    }

    private static ToolResult.Builder result(String session) {
        return ToolResult.newBuilder()
                .setCallId(session + "-call")
                .setSessionId(session)
                .setTool("git.status")
                .setSuccess(true)
                .setTimestamp(Records.T0);
    }

    private static SessionControl control(String session, SessionAction action) {
        return SessionControl.newBuilder().setSessionId(session).setAction(action).setTimestamp(Records.T0).build();
    }
}
