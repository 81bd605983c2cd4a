package io.cognitionstreams.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import io.cognitionstreams.testing.Cli;
import io.cognitionstreams.governance.IdentityGovernance;
import io.cognitionstreams.deadletter.DeadLetters;
import io.cognitionstreams.schema.Checkpoint;
import io.cognitionstreams.schema.CouncilMessage;
import io.cognitionstreams.schema.DeadLetter;
import io.cognitionstreams.schema.ErrorKind;
import io.cognitionstreams.schema.Identity;
import io.cognitionstreams.schema.ToolCall;
import io.cognitionstreams.schema.ToolDecision;
import io.cognitionstreams.schema.Verdict;
import io.cognitionstreams.serde.SingleObjectAvroSerdeFactory;
import io.cognitionstreams.serde.json.JsonAvro;
import io.cognitionstreams.timetravel.Checkpoints;
import io.cognitionstreams.topics.Topic;
import io.cognitionstreams.topics.Topics;

/** Each topic's key as `produce` derives it: what the app writes, what `produce --help` and the doc say. */
class ProduceKeysTest {

    private final Topics topics = new Topics(new SingleObjectAvroSerdeFactory());

    @Test
    void theDocsKeyTableIsTheTopicDefinitions() throws IOException {
        List<String> doc = Files.readAllLines(Path.of("docs/json-format.md"));
        List<String> section = doc.subList(doc.indexOf("## Keys") + 1, doc.size());
        Map<String, String> documented = new LinkedHashMap<>();
        for (String row : section.subList(0, section.stream().filter(line -> line.startsWith("## ")).findFirst()
                .map(section::indexOf).orElse(section.size()))) {
            if (row.startsWith("| `")) {
                String[] cells = row.split("\\|");
                documented.put(cells[1].strip().replace("`", ""), cells[2].strip());
            }
        }
        Map<String, String> defined = new LinkedHashMap<>();
        topics.all().forEach(topic -> defined.put(topic.name(), topic.key().description()));

        assertThat(documented).containsExactlyEntriesOf(defined);
    }

    @Test
    void produceHelpNamesEachTopicsKey() {
        Cli help = Cli.run("produce", "--help");

        assertThat(help.exitCode()).isZero();
        for (Topic<?, ?> topic : topics.all()) {
            assertThat(help.out()).containsPattern("(?m)^\\s+" + java.util.regex.Pattern.quote(topic.name())
                    + "\\s+" + java.util.regex.Pattern.quote(topic.key().description()) + "$");
        }
    }

    @Test
    void aCouncilMessageIsKeyedByItsCouncilEvenWhenItNamesASession() {
        CouncilMessage message = JsonAvro.fromJson("{\"msg_id\":\"m1\",\"council_id\":\"c7\",\"session_id\":\"s1\","
                + "\"timestamp\":\"2026-11-22T10:00:00Z\",\"sender\":\"lite\",\"role\":\"observer\","
                + "\"type\":\"HEARTBEAT\"}", CouncilMessage.class);

        assertThat(topics.councilMessages.key().of(message)).isEqualTo("c7");
    }

    @Test
    void compactedTopicsAreKeyedAsTheAppReadsAndWritesThem() {
        Instant now = Instant.parse("2026-11-22T10:00:00Z");
        Checkpoint checkpoint = Checkpoint.newBuilder().setSessionId("s1").setSequence(7).setBranchId("main")
                .setStage("PLAN").setPacketId("p").setRequestId("r").setSourceTopic(Topics.COGNITION_PACKETS)
                .setSourcePartition(0).setSourceOffset(3).setHistoryRef("0").setRetryCount(0).setTimestamp(now)
                .build();
        DeadLetter letter = DeadLetter.newBuilder().setReason("bad").setErrorKind(ErrorKind.DESERIALIZATION)
                .setErrorClass("X").setSourceTopic(Topics.LLM_OUTPUTS).setSourcePartition(2).setSourceOffset(41)
                .setProcessor("p").setApplicationId("a").setValueSize(0).setTimestamp(now).build();
        Identity identity = Identity.newBuilder().setText("t").setVersion(1).setAuthors(List.of("azrael"))
                .setTimestamp(now).build();

        assertThat(topics.checkpoints.key().of(checkpoint)).isEqualTo(Checkpoints.key("s1", 7));
        assertThat(topics.deadLetters.key().of(letter)).isEqualTo(DeadLetters.key(Topics.LLM_OUTPUTS, 2, 41));
        assertThat(topics.identity.key().of(identity)).isEqualTo(IdentityGovernance.KEY);
    }

    @Test
    void aDecisionIsKeyedByItsCallsSessionAndACallWithoutOneHasNoKey() {
        ToolCall call = ToolCall.newBuilder().setCallId("c1").setSessionId("s9").setCaller("git").setTool("git.log")
                .setTimestamp(Instant.EPOCH).build();
        ToolCall sessionless = ToolCall.newBuilder(call).setSessionId(null).build();
        ToolDecision decision = ToolDecision.newBuilder().setCall(call).setVerdict(Verdict.APPROVED).setReason("ok")
                .setTimestamp(Instant.EPOCH).build();

        assertThat(topics.toolDecisions.key().of(decision)).isEqualTo("s9");
        assertThat(topics.toolCalls.key().of(sessionless)).isNull();
    }
}
