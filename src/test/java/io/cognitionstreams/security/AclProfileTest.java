package io.cognitionstreams.security;

import static io.cognitionstreams.security.AclProfile.Operation.ALL;
import static io.cognitionstreams.security.AclProfile.Operation.CREATE;
import static io.cognitionstreams.security.AclProfile.Operation.DESCRIBE;
import static io.cognitionstreams.security.AclProfile.Operation.READ;
import static io.cognitionstreams.security.AclProfile.Operation.WRITE;
import static io.cognitionstreams.security.AclProfile.ResourceType.CLUSTER;
import static io.cognitionstreams.security.AclProfile.ResourceType.GROUP;
import static io.cognitionstreams.security.AclProfile.ResourceType.TOPIC;
import static io.cognitionstreams.security.AclProfile.ResourceType.TRANSACTIONAL_ID;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Optional;

import org.junit.jupiter.api.Test;

import io.cognitionstreams.serde.AvroSerdes;
import io.cognitionstreams.topics.OutputLimits;
import io.cognitionstreams.topics.Topic;
import io.cognitionstreams.topics.Topics;

class AclProfileTest {

    private static final Principals PRINCIPALS = new Principals(List.of("acme", "globex"),
            List.of("prime", "lite"));
    private static final List<String> TOPICS = new Topics(AvroSerdes.forRegistry(Optional.empty()),
            OutputLimits.defaults(), PRINCIPALS.tenants()).all().stream().map(Topic::name).toList();
    private static final AclProfile PROFILE = AclProfile.of("cognition-streams", TOPICS, PRINCIPALS);

    @Test
    void agentsWriteOnlyTheirOwnTenantsRequestsAndReadOnlyTheirOwnTenantsChannels() {
        String acme = Principals.agent("acme");

        assertThat(PROFILE.allows(acme, TOPIC, "cognition.requests.acme", WRITE)).isTrue();
        assertThat(PROFILE.allows(acme, TOPIC, "cognition.requests.globex", WRITE)).isFalse();
        // The shared topic binds nothing to a tenant: only trusted writers (the app) write it.
        assertThat(PROFILE.allows(acme, TOPIC, Topics.COGNITION_REQUESTS, WRITE)).isFalse();
        assertThat(PROFILE.allows(acme, TOPIC, "channel.acme.cli_chat", READ)).isTrue();
        assertThat(PROFILE.allows(acme, TOPIC, "channel.globex.cli_chat", READ)).isFalse();
        // The shared channels hold every tenant's answers.
        assertThat(PROFILE.allows(acme, TOPIC, "channel.cli_chat", READ)).isFalse();
        assertThat(PROFILE.allows(acme, TOPIC, "channel.acme.cli_chat", WRITE)).isFalse();
        for (String topic : TOPICS) {
            if (!topic.equals("cognition.requests.acme")) {
                assertThat(PROFILE.allows(acme, TOPIC, topic, WRITE)).as("agent writes %s", topic).isFalse();
            }
            assertThat(PROFILE.allows(acme, TOPIC, topic, READ)).as("agent reads %s", topic)
                    .isEqualTo(topic.startsWith("channel.acme."));
        }
    }

    @Test
    void onlyGovernanceWritesTheGovernedTopics() {
        for (String topic : AclProfile.GOVERNED) {
            for (String principal : PRINCIPALS.names()) {
                assertThat(PROFILE.allows(principal, TOPIC, topic, WRITE)).as("%s writes %s", principal, topic)
                        .isEqualTo(principal.equals(Principals.GOVERNANCE));
            }
        }
        assertThat(PROFILE.allows(Principals.GOVERNANCE, TOPIC, Topics.COGNITION_REQUESTS, WRITE)).isFalse();
    }

    @Test
    void onlyTheAppAndOperatorsReadTheUnredactedToolTopics() {
        for (String topic : List.of(Topics.TOOL_CALLS, Topics.TOOL_DECISIONS, Topics.TOOL_RESULTS)) {
            for (String principal : PRINCIPALS.names()) {
                boolean expected = principal.equals(Principals.APP) || principal.equals(Principals.OPERATOR);
                assertThat(PROFILE.allows(principal, TOPIC, topic, READ)).as("%s reads %s", principal, topic)
                        .isEqualTo(expected);
            }
        }
    }

    @Test
    void councilRolesWriteCouncilMessagesAndReadTheCouncilsOutcomes() {
        String prime = Principals.council("prime");

        assertThat(PROFILE.allows(prime, TOPIC, Topics.COUNCIL_MESSAGES, WRITE)).isTrue();
        assertThat(PROFILE.allows(prime, TOPIC, Topics.COUNCIL_DECISIONS, READ)).isTrue();
        assertThat(PROFILE.allows(prime, TOPIC, Topics.COUNCIL_DECISIONS, WRITE)).isFalse();
        assertThat(PROFILE.allows(prime, TOPIC, Topics.COUNCIL_KEYS, WRITE)).isFalse();
        assertThat(PROFILE.allows(Principals.council("codemind"), TOPIC, Topics.COUNCIL_MESSAGES, WRITE))
                .as("a role not in the profile").isFalse();
    }

    @Test
    void onlyTheCouncilsPrincipalWritesCouncilDecisionsWhichDecideWhatRuns() {
        for (String principal : PRINCIPALS.names()) {
            if (!principal.equals(Principals.ADMIN)) {
                for (String decisions : List.of(Topics.COUNCIL_DECISIONS, Topics.COUNCIL_DECISIONS_BY_SESSION)) {
                    assertThat(PROFILE.allows(principal, TOPIC, decisions, WRITE))
                            .as("%s writes %s", principal, decisions)
                            .isEqualTo(principal.equals(Principals.APP));
                }
                assertThat(PROFILE.allows(principal, TOPIC, Topics.COUNCIL_DECISIONS_BY_SESSION, READ))
                        .as("%s reads %s", principal, Topics.COUNCIL_DECISIONS_BY_SESSION)
                        .isEqualTo(principal.equals(Principals.APP) || principal.equals(Principals.OPERATOR));
            }
        }
    }

    @Test
    void operatorsReadEverythingAndDescribeGroupsButWriteNothing() {
        for (String topic : TOPICS) {
            assertThat(PROFILE.allows(Principals.OPERATOR, TOPIC, topic, READ)).isTrue();
            assertThat(PROFILE.allows(Principals.OPERATOR, TOPIC, topic, WRITE)).isFalse();
        }
        assertThat(PROFILE.allows(Principals.OPERATOR, TOPIC, "cognition-streams-assembly-sessions-changelog",
                READ)).isTrue();
        assertThat(PROFILE.allows(Principals.OPERATOR, GROUP, "cognition-streams-assembly", DESCRIBE)).isTrue();
        assertThat(PROFILE.allows(Principals.OPERATOR, GROUP, "cognition-streams-assembly", READ)).isFalse();
        assertThat(PROFILE.allows(Principals.OPERATOR, CLUSTER, AclProfile.Resource.CLUSTER_NAME, DESCRIBE))
                .isTrue();
    }

    @Test
    void theAppOwnsWhatIsNamedAfterItsApplicationIdAndUsesThePipelineTopics() {
        String app = Principals.APP;

        assertThat(PROFILE.allows(app, TOPIC, "cognition-streams-assembly-sessions-changelog", ALL)).isTrue();
        assertThat(PROFILE.allows(app, GROUP, "cognition-streams-model-worker", READ)).isTrue();
        assertThat(PROFILE.allows(app, TRANSACTIONAL_ID, "cognition-streams-executor-i1", WRITE)).isTrue();
        // Only its own prefix: another application id on the same cluster is not its business.
        assertThat(PROFILE.allows(app, TOPIC, "other-app-changelog", READ)).isFalse();
        assertThat(PROFILE.allows(app, GROUP, "cognition-cli-x", READ)).isFalse();
        // replay, fork and session import, run as the app, each write in a CLI transaction.
        assertThat(PROFILE.allows(app, TRANSACTIONAL_ID, "cognition-cli-replay-1", WRITE)).isTrue();
        for (String topic : TOPICS) {
            assertThat(PROFILE.allows(app, TOPIC, topic, READ)).as("app reads %s", topic).isTrue();
            assertThat(PROFILE.allows(app, TOPIC, topic, CREATE)).as("app creates %s", topic).isTrue();
            assertThat(PROFILE.allows(app, TOPIC, topic, WRITE)).as("app writes %s", topic)
                    .isEqualTo(!AclProfile.GOVERNED.contains(topic));
        }
    }

    @Test
    void theBrokersOwnUserHasNoGrantsItIsTheSuperUser() {
        assertThat(PROFILE.grants()).noneMatch(grant -> grant.principal().equals(Principals.ADMIN));
    }

    @Test
    void rowsGroupEachPrincipalsOperationsByResource() {
        var rows = PROFILE.byPrincipal().get(Principals.agent("acme"));

        assertThat(rows).hasSize(3);
        assertThat(rows.get(new AclProfile.Resource(TOPIC, "cognition.requests.acme",
                AclProfile.PatternType.LITERAL))).containsExactly(WRITE, AclProfile.Operation.DESCRIBE_CONFIGS);
    }

    @Test
    void badNamesAreRefusedWithTheirReason() {
        assertThatThrownBy(() -> new Principals(List.of("acme.eu"), List.of()))
                .hasMessageContaining("invalid tenant name 'acme.eu'");
        assertThatThrownBy(() -> new Principals(List.of("acme", "acme"), List.of()))
                .hasMessageContaining("repeat");
        assertThatThrownBy(() -> AclProfile.of(" ", TOPICS, PRINCIPALS))
                .hasMessageContaining("application id");
    }
}
