package io.cognitionstreams.council;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;

import io.cognitionstreams.app.CognitionRuntime;
import io.cognitionstreams.app.Settings;
import io.cognitionstreams.broker.EmbeddedKafkaBroker;
import io.cognitionstreams.executor.ExecutorSettings;
import io.cognitionstreams.executor.demo.WorkspaceServer;
import io.cognitionstreams.gatekeeper.GatekeeperSettings;
import io.cognitionstreams.roles.RoleEndpoints;
import io.cognitionstreams.roles.RoleWorker;
import io.cognitionstreams.schema.CouncilMessage;
import io.cognitionstreams.schema.CouncilMessageType;
import io.cognitionstreams.schema.CouncilOutcome;
import io.cognitionstreams.schema.DeadLetter;
import io.cognitionstreams.schema.Skill;
import io.cognitionstreams.schema.TimeTravel;
import io.cognitionstreams.schema.ToolCall;
import io.cognitionstreams.schema.ToolDecision;
import io.cognitionstreams.schema.ToolResult;
import io.cognitionstreams.schema.ToolStatus;
import io.cognitionstreams.schema.Verdict;
import io.cognitionstreams.schema.Vote;
import io.cognitionstreams.signing.Ed25519;
import io.cognitionstreams.testing.Cli;
import io.cognitionstreams.testing.IsolatedBroker;
import io.cognitionstreams.testing.Kafka;
import io.cognitionstreams.testing.Records;
import io.cognitionstreams.topics.Topics;

/**
 * Issue 30's "done when": the council decides risky calls, end to end on a real broker, with signatures required.
 * Three model roles (prime, lite, codemind) vote through role workers on an OpenAI-compatible HTTP double, a person
 * votes as operator with `cognition council vote`, and the gatekeeper turns each decision into a run or a denial:
 * approved runs once; rejected is denied and re-anchored; a tie that Prime breaks; a person's vote that decides; no
 * decision by the time to live expires and is denied; a role whose endpoint goes silent stops heartbeating, so the
 * quorum is reduced and the others decide; a forged vote is dead-lettered; and a replay of a session with a gated
 * call opens no proposal. Times are short here (heartbeat timeout 8 s, proposals 20 s), as the flags allow.
 */
@ExtendWith(IsolatedBroker.class)
class CouncilApprovalIT {

    private static final Duration TIMEOUT = Duration.ofSeconds(60);
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Pattern ROLE = Pattern.compile("COUNCIL VOTE as (\\S+)");
    private static final List<String> SCENARIOS = List.of("approve", "reject", "person", "tie", "expire", "quorum");

    @Test
    void theCouncilDecidesWhatRunsWithSignaturesRequired(EmbeddedKafkaBroker broker, @TempDir Path dir)
            throws Exception {
        String bootstrap = broker.bootstrapServers();
        String run = UUID.randomUUID().toString().substring(0, 8);
        String council = "approvals-" + run;
        String prime = "prime-" + run;
        String lite = "lite-" + run;
        String codemind = "codemind-" + run;
        String operator = "operator-" + run;
        String skill = "ops-" + run;
        HttpServer models = double0(Map.of(prime, "YNAYAY", lite, "YNAN?Y"), prime, lite);
        HttpServer silent = double0(Map.of(codemind, "AAAAAA"), codemind);
        Path workspace = Files.createDirectories(dir.resolve("workspace"));
        for (String scenario : SCENARIOS) {
            Files.createDirectories(workspace.resolve(scenario + "-dir"));
        }
        Settings settings = Settings.local(bootstrap, "approvals-" + run, dir.resolve("state"))
                .withGatekeeper(GatekeeperSettings.defaults()) // run's default: --approval risky
                .withCouncil(new CouncilSettings(List.of(prime, lite, codemind, operator), prime, 3,
                        Duration.ofSeconds(8), Duration.ofSeconds(20), Duration.ofSeconds(1),
                        CouncilSettings.DEFAULT_MAX_CLOCK_SKEW)
                        .withSignatures(CouncilSettings.Signatures.REQUIRED, CouncilSettings.DEFAULT_MAX_MESSAGE_AGE))
                .withRoleWorkers(new RoleEndpoints(List.of(endpoint(prime, models), endpoint(lite, models),
                        endpoint(codemind, silent)), List.of(council), Duration.ofSeconds(2), 2048))
                .withExecutor(new ExecutorSettings(List.of(WorkspaceServer.demoConfig(workspace)),
                        ExecutorSettings.DEFAULT_CALL_TIMEOUT, 2, ExecutorSettings.DEFAULT_MAX_RESULT_BYTES,
                        Optional.empty(), List.of(), 0, Optional.empty()));
        Skill ops = Skill.newBuilder().setName(skill).setVersion("1").setProtocol("# " + skill + " protocol")
                .setPermissions(List.of("shell:*", "workspace:*")).setApproval(List.of("workspace:*"))
                .setTimestamp(Instant.now()).build();
        Path operatorKey = dir.resolve("operator.pem");
        assertThat(Cli.run("council", "keygen", "--role", operator, "--key", operatorKey.toString(), "--publish",
                "--bootstrap-servers", bootstrap).exitCode()).isZero();
        try (CognitionRuntime runtime = CognitionRuntime.start(settings, Map.of(skill, ops))) {
            runtime.awaitRunning(TIMEOUT);
            Topics topics = runtime.topics();
            String session = "calls-" + run;
            for (String scenario : SCENARIOS.subList(0, 5)) {
                Kafka.send(bootstrap, topics.toolCalls, session, call(session, skill, council, scenario));
            }
            // The replayed session: a turn whose EXECUTE line the council approves, through the whole pipeline.
            String replayed = "replayed-" + run;
            Kafka.send(bootstrap, topics.requests, replayed, Records.request(replayed, "Clean up the disk of the "
                    + "build host.").setActiveSkill(skill).setCouncilId(council).setTimestamp(Instant.now()).build());

            // A person decides what the models abstained on, signed with the role's key.
            String personProposal = pendingProposal(bootstrap, topics, council, "person");
            Cli vote = Cli.run("council", "vote", "--council", council, "--proposal", personProposal, "--yes",
                    "--as", operator, "--reason", "checked the directory by hand", "--key", operatorKey.toString(),
                    "--bootstrap-servers", bootstrap);
            assertThat(vote.exitCode()).as(vote.err()).isZero();
            assertThat(vote.out()).startsWith("voted YES on " + personProposal + " in council " + council);

            List<ToolDecision> decided = Kafka.readUntil(bootstrap, topics.toolDecisions,
                    decision -> decision.getCall().getSessionId().equals(session)
                            && decision.getVerdict() != Verdict.PENDING,
                    found -> found.size() == 4, TIMEOUT);
            assertThat(decided).extracting(decision -> scenario(decision.getCall()), ToolDecision::getVerdict)
                    .containsExactlyInAnyOrder(tuple("approve", Verdict.APPROVED),
                            tuple("reject", Verdict.DENIED),
                            tuple("person", Verdict.APPROVED),
                            tuple("tie", Verdict.APPROVED));
            ToolDecision rejected = of(decided, "reject");
            assertThat(rejected.getReason()).contains("REJECTED").contains("The call did not run");
            assertThat(rejected.getProtocol()).as("re-anchored").isEqualTo("# " + skill + " protocol");
            assertThat(of(decided, "tie").getCouncilDecision().getTieBrokenByPrime()).isTrue();
            assertThat(of(decided, "person").getCouncilDecision().getVoters()).contains(operator);

            // The role whose endpoint goes away stops heartbeating; the quorum is reduced to the two left.
            silent.stop(0);
            Kafka.send(bootstrap, topics.toolCalls, session, call(session, skill, council, "quorum"));
            List<ToolDecision> late = Kafka.readUntil(bootstrap, topics.toolDecisions,
                    decision -> decision.getCall().getSessionId().equals(session)
                            && decision.getVerdict() != Verdict.PENDING
                            && List.of("quorum", "expire").contains(scenario(decision.getCall())),
                    found -> found.size() == 2, TIMEOUT);
            assertThat(of(late, "quorum").getVerdict()).isEqualTo(Verdict.APPROVED);
            assertThat(of(late, "quorum").getReason()).contains("quorum 2 of 2 active roles");
            assertThat(of(late, "expire").getVerdict()).isEqualTo(Verdict.DENIED);
            assertThat(of(late, "expire").getCouncilDecision().getOutcome()).isEqualTo(CouncilOutcome.EXPIRED);
            assertThat(Kafka.readAll(bootstrap, topics.events, event -> event.getType()
                    .equals(RoleWorker.ROLE_UNREACHABLE) && event.getMessage().contains(codemind)))
                    .as("the silent role's outage is an event, not a crash").isNotEmpty();

            // Each approved call ran once; the denied ones never.
            List<ToolResult> outcomes = Kafka.readUntil(bootstrap, topics.toolOutcomes,
                    result -> result.getSessionId().equals(session), found -> found.size() == 4, TIMEOUT);
            assertThat(outcomes).extracting(result -> result.getCallId().substring(result.getCallId()
                    .lastIndexOf('-') + 1)).containsExactlyInAnyOrder("approve", "person", "tie", "quorum");
            assertThat(outcomes).allMatch(result -> result.getStatus() == ToolStatus.SUCCEEDED);

            // A vote signed by a stranger's key, claiming to be lite's, is dead-lettered.
            Ed25519.Key stranger = Ed25519.Key.generated();
            Kafka.send(bootstrap, topics.councilMessages, council, CouncilSignatures.sign(CouncilMessage
                    .newBuilder().setMsgId("forged-" + run).setCouncilId(council).setTimestamp(Instant.now())
                    .setSender(lite).setRole("voter").setType(CouncilMessageType.VOTE)
                    .setProposalId(of(late, "expire").getProposalId()).setVote(Vote.YES).build(), stranger));
            List<DeadLetter> forged = Kafka.readUntil(bootstrap, topics.deadLetters,
                    letter -> letter.getReason().contains("signed by key " + stranger.id()), found -> !found.isEmpty(),
                    TIMEOUT);
            assertThat(forged.get(0).getReason()).contains("but sender '" + lite + "' signs with key");

            // A replay of the session answers its gated call from the original decision and opens no proposal.
            Kafka.readUntil(bootstrap, topics.toolDecisions, decision -> decision.getCall().getSessionId()
                    .equals(replayed) && decision.getVerdict() == Verdict.APPROVED, found -> !found.isEmpty(),
                    TIMEOUT);
            int proposals = proposalsOf(bootstrap, topics, replayed);
            assertThat(proposals).isEqualTo(1);
            // Time travel writes the checkpoint from the packet on its own thread: on a loaded machine the decision
            // can be seen before it.
            Kafka.readUntil(bootstrap, topics.checkpoints, checkpoint -> checkpoint != null
                    && checkpoint.getSessionId().equals(replayed) && checkpoint.getSequence() == 0,
                    found -> !found.isEmpty(), TIMEOUT);
            Cli replay = Cli.run("replay", "--session", replayed, "--to", "0", "--bootstrap-servers", bootstrap);
            assertThat(replay.exitCode()).as(replay.err()).isZero();
            Kafka.readUntil(bootstrap, topics.toolDecisions, decision -> decision.getCall().getSessionId()
                    .equals(replayed) && decision.getCall().getTimeTravel() == TimeTravel.REPLAY,
                    found -> !found.isEmpty(), TIMEOUT);
            assertThat(proposalsOf(bootstrap, topics, replayed)).isEqualTo(proposals);
        } finally {
            models.stop(0);
            silent.stop(0);
        }
    }

    private static int proposalsOf(String bootstrap, Topics topics, String session) {
        return Kafka.readAll(bootstrap, topics.councilMessages, message -> message.getType()
                == CouncilMessageType.PROPOSAL && session.equals(message.getSessionId())).size();
    }

    /** The id of the open proposal of a scenario, once `cognition council pending` lists it. */
    private static String pendingProposal(String bootstrap, Topics topics, String council, String scenario)
            throws InterruptedException {
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        while (System.nanoTime() < deadline) {
            Cli pending = Cli.run("council", "pending", "--council", council, "--bootstrap-servers", bootstrap);
            Matcher found = Pattern.compile("(?m)^(call-\\w+)  from gatekeeper.*\\n(?:  .*\\n)*?  arguments "
                    + "\\(redacted for display\\): .*" + scenario + "-dir").matcher(pending.out());
            if (found.find()) {
                return found.group(1);
            }
            Thread.sleep(500);
        }
        throw new AssertionError("council pending never listed the " + scenario + " proposal");
    }

    private static ToolDecision of(List<ToolDecision> decisions, String scenario) {
        return decisions.stream().filter(decision -> scenario(decision.getCall()).equals(scenario)).findFirst()
                .orElseThrow();
    }

    private static String scenario(ToolCall call) {
        return call.getCallId().substring(call.getCallId().lastIndexOf('-') + 1);
    }

    private static ToolCall call(String session, String skill, String council, String scenario) {
        return ToolCall.newBuilder().setCallId(session + "-" + scenario).setSessionId(session).setCaller(skill)
                .setSkill(skill).setTool("mcp__workspace__list_files").setCouncilId(council)
                .setArguments("{\"path\":\"" + scenario + "-dir\"}").setTimestamp(Instant.now()).build();
    }

    private static RoleEndpoints.Endpoint endpoint(String role, HttpServer server) {
        return new RoleEndpoints.Endpoint(role, Optional.of("http://127.0.0.1:" + server.getAddress().getPort()
                + "/v1"), Optional.of("double"));
    }

    /**
     * An OpenAI-compatible chat endpoint whose roles vote by scenario: each role's string has one letter per
     * scenario of {@link #SCENARIOS} (Y yes, N no, A abstain, ? an answer that is no vote); any other proposal gets
     * yes.
     */
    private static HttpServer double0(Map<String, String> votes, String... roles) throws IOException {
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/v1/chat/completions", exchange -> {
            JsonNode request = JSON.readTree(exchange.getRequestBody());
            JsonNode messages = request.path("messages");
            String prompt = messages.get(messages.size() - 1).path("content").asText();
            Matcher role = ROLE.matcher(prompt);
            String letters = role.find() ? votes.getOrDefault(role.group(1), "") : "";
            char letter = 'Y';
            for (int i = 0; i < SCENARIOS.size() && i < letters.length(); i++) {
                if (prompt.contains(SCENARIOS.get(i) + "-dir")) {
                    letter = letters.charAt(i);
                }
            }
            String answer = switch (letter) {
                case 'N' -> "VOTE: no\nCONFIDENCE: 0.9\nREASON: not without a reason to";
                case 'A' -> "VOTE: abstain\nCONFIDENCE: 0.5\nREASON: cannot tell";
                case '?' -> "I am not sure what you are asking.";
                default -> "VOTE: yes\nCONFIDENCE: 0.8\nREASON: read-only and within the skill";
            };
            byte[] body = JSON.writeValueAsBytes(Map.of("model", "double", "choices", List.of(Map.of("index", 0,
                    "message", Map.of("role", "assistant", "content", answer), "finish_reason", "stop"))));
            exchange.getResponseHeaders().add("Content-Type", "application/json");
            exchange.sendResponseHeaders(200, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        server.start();
        assertThat(roles).isNotEmpty();
        return server;
    }
}
