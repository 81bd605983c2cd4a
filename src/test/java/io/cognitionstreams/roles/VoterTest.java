package io.cognitionstreams.roles;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import io.cognitionstreams.model.OpenAiChatModel;
import io.cognitionstreams.model.ResilientModel;
import io.cognitionstreams.prompt.ModelClient.PromptMessage;
import io.cognitionstreams.schema.CouncilMessage;
import io.cognitionstreams.schema.CouncilMessageType;
import io.cognitionstreams.schema.RiskLevel;
import io.cognitionstreams.schema.Vote;
import io.cognitionstreams.testing.ModelDouble;
import io.cognitionstreams.testing.ModelDouble.Answer;

/**
 * A role's vote through the model worker's resilient client, against an OpenAI-compatible double on loopback: an
 * outage stalls the vote and the vote still comes when the endpoint is back; an endpoint that never answers before the
 * proposal's deadline is no vote, with the endpoint's condition, and its call is given up; a refusal for good is an
 * abstain that quotes the endpoint.
 */
class VoterTest {

    /** Short delays, so a test waits milliseconds; the logic is the same at seconds. */
    private static final ResilientModel.Policy FAST = new ResilientModel.Policy(4, Duration.ofMillis(5),
            Duration.ofMillis(40), 3, Duration.ofMillis(30), Duration.ofMillis(120));
    private static final CouncilMessage PROPOSAL = CouncilMessage.newBuilder().setMsgId("call-1")
            .setCouncilId("default").setTimestamp(Instant.parse("2026-11-28T10:00:00Z")).setSender("gatekeeper")
            .setRole("gatekeeper").setType(CouncilMessageType.PROPOSAL).setRiskLevel(RiskLevel.MED)
            .setContent("tool: shell.run\narguments (redacted for display): du -sh /var/log").build();

    private final List<AutoCloseable> opened = new ArrayList<>();

    @AfterEach
    void close() throws Exception {
        for (AutoCloseable closeable : opened) {
            closeable.close();
        }
    }

    private Voter voter(ModelDouble endpoint) {
        ResilientModel client = new ResilientModel(endpoint.baseUrl(), new OpenAiChatModel(endpoint.baseUrl(), null,
                null, Duration.ofSeconds(5)), FAST);
        Voter voter = new Voter("lite", "lite-model", client, client::condition,
                proposal -> List.of(new PromptMessage("user", "COUNCIL VOTE as lite on " + proposal.getMsgId())));
        opened.add(voter);
        opened.add(client);
        return voter;
    }

    private static Answer says(String text) {
        return Answer.json("{\"model\":\"lite-model\",\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\","
                + "\"content\":\"" + text + "\"},\"finish_reason\":\"stop\"}]}");
    }

    @Test
    void anOutageStallsTheVoteAndTheVoteComesWhenTheEndpointAnswersAgain() throws Exception {
        try (ModelDouble endpoint = new ModelDouble("/v1/chat/completions")) {
            endpoint.enqueue(Answer.status(503, "{\"error\":{\"message\":\"overloaded\"}}", Map.of()),
                    Answer.status(503, "{\"error\":{\"message\":\"overloaded\"}}", Map.of()),
                    Answer.status(429, "{\"error\":{\"message\":\"slow down\"}}", Map.of()),
                    says("VOTE: no\\nCONFIDENCE: 0.7\\nREASON: it deletes what it should only read"));

            Voter.Outcome outcome = voter(endpoint).vote(PROPOSAL, Duration.ofSeconds(30)).get(10, TimeUnit.SECONDS);

            assertThat(outcome).isEqualTo(new Voter.Voted(new Ballot(Vote.NO, java.util.Optional.of(0.7),
                    "it deletes what it should only read")));
            assertThat(endpoint.requests()).hasSize(4);
            assertThat(endpoint.requests().get(3).body().path("model").asText()).isEqualTo("lite-model");
            assertThat(endpoint.requests().get(3).body().path("messages").get(0).path("content").asText())
                    .isEqualTo("COUNCIL VOTE as lite on call-1");
        }
    }

    @Test
    void noAnswerByTheProposalsDeadlineIsNoVoteThatSaysWhyAndTheCallIsGivenUp() throws Exception {
        try (ModelDouble endpoint = new ModelDouble("/v1/chat/completions")) {
            endpoint.otherwise(request -> Answer.status(503, "{\"error\":{\"message\":\"model is loading\"}}",
                    Map.of()));

            Voter.Outcome outcome = voter(endpoint).vote(PROPOSAL, Duration.ofMillis(600)).get(10, TimeUnit.SECONDS);

            assertThat(outcome).isInstanceOf(Voter.Missed.class);
            // The deadline may fall while the breaker is open or while its half-open probe is at the endpoint.
            assertThat(((Voter.Missed) outcome).why()).containsPattern("^its model did not answer by the proposal's "
                    + "deadline \\(circuit (OPEN|HALF_OPEN) for ").contains("last failure: model endpoint "
                    + endpoint.baseUrl() + "/chat/completions answered HTTP 503: model is loading");
            int asked = endpoint.requests().size();
            assertThat(asked).as("tried again while the proposal was open").isGreaterThan(1);
            Thread.sleep(300); // past the breaker's longest wait: a call still waiting would probe now
            assertThat(endpoint.requests()).as("given up at the deadline").hasSize(asked);
        }
    }

    @Test
    void aRefusalForGoodIsAnAbstainThatQuotesTheEndpoint() throws Exception {
        try (ModelDouble endpoint = new ModelDouble("/v1/chat/completions")) {
            endpoint.enqueue(Answer.status(400, "{\"error\":{\"message\":\"context length exceeded\"}}", Map.of()));

            Voter.Outcome outcome = voter(endpoint).vote(PROPOSAL, Duration.ofSeconds(30)).get(10, TimeUnit.SECONDS);

            Ballot ballot = ((Voter.Voted) outcome).ballot();
            assertThat(ballot.vote()).isEqualTo(Vote.ABSTAIN);
            assertThat(ballot.reason()).startsWith("abstained: the model refused the vote prompt: model endpoint ")
                    .endsWith("answered HTTP 400: context length exceeded");
            assertThat(endpoint.requests()).hasSize(1);
        }
    }
}
