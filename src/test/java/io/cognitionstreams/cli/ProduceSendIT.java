package io.cognitionstreams.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.config.TopicConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import io.cognitionstreams.testing.Cli;
import io.cognitionstreams.broker.EmbeddedKafkaBroker;
import io.cognitionstreams.schema.CognitionRequest;
import io.cognitionstreams.serde.SingleObjectAvroSerdeFactory;
import io.cognitionstreams.testing.Kafka;
import io.cognitionstreams.testing.SharedBroker;
import io.cognitionstreams.topics.Topics;

/** How `produce` sends: batched and unawaited, yet in order, exact bytes under --raw, and loud when a send fails. */
@ExtendWith(SharedBroker.class)
class ProduceSendIT {

    private final Topics topics = new Topics(new SingleObjectAvroSerdeFactory());

    @Test
    void aSessionsLinesArriveInTheOrderOfTheFileAndNoProgressIsPrintedOffATerminal(EmbeddedKafkaBroker broker,
                                                                                   @TempDir Path dir)
            throws Exception {
        String session = "order-" + UUID.randomUUID().toString().substring(0, 8);
        List<String> ids = new ArrayList<>();
        List<String> lines = new ArrayList<>();
        for (int i = 0; i < 5_000; i++) {
            ids.add(session + "-" + i);
            lines.add("{\"request_id\":\"" + ids.get(i) + "\",\"session_id\":\"" + session + "\","
                    + "\"user_prompt\":\"step " + i + "\",\"timestamp\":\"2026-11-22T10:00:00Z\"}");
        }
        Path file = dir.resolve("requests.jsonl");
        Files.write(file, lines);

        Cli produce = Cli.run("produce", "--topic", Topics.COGNITION_REQUESTS, "--file", file.toString(),
                "--bootstrap-servers", broker.bootstrapServers());

        assertThat(produce.exitCode()).as(produce.err()).isZero();
        assertThat(produce.err()).contains("sent 5000 records to cognition.requests in ")
                .doesNotContain("progress:");
        List<String> arrived = Kafka.readAll(broker.bootstrapServers(), topics.requests,
                request -> request.getSessionId().equals(session)).stream().map(CognitionRequest::getRequestId)
                .toList();
        assertThat(arrived).containsExactlyElementsOf(ids);
    }

    @Test
    void progressIsPrintedWhenAskedForEndingWithTheFinalCounts(EmbeddedKafkaBroker broker, @TempDir Path dir)
            throws Exception {
        Path file = dir.resolve("requests.jsonl");
        Files.writeString(file, String.join("\n",
                "{\"request_id\":\"p1\",\"session_id\":\"progress\",\"user_prompt\":\"a\",\"timestamp\":1}",
                "{\"request_id\":\"p2\",\"session_id\":\"progress\",\"timestamp\":1}",
                "{\"request_id\":\"p3\",\"session_id\":\"progress\",\"user_prompt\":\"c\",\"timestamp\":1}"));

        Cli produce = Cli.run("produce", "--topic", Topics.COGNITION_REQUESTS, "--file", file.toString(),
                "--progress", "--bootstrap-servers", broker.bootstrapServers());

        assertThat(produce.exitCode()).isEqualTo(1);
        assertThat(produce.err().lines().filter(line -> line.startsWith("progress:")).reduce((a, b) -> b))
                .hasValueSatisfying(last -> assertThat(last)
                        .startsWith("progress: 3 lines read, 2 records sent, 2 acknowledged, "));
    }

    @Test
    void rawSendsEachLinesBytesExactlyAndAnEmptyLineAsAnEmptyValue(EmbeddedKafkaBroker broker, @TempDir Path dir)
            throws Exception {
        String topic = "it-raw-" + UUID.randomUUID().toString().substring(0, 8);
        Path file = dir.resolve("raw.bin");
        Files.write(file, new byte[] {'a', (byte) 0xFF, (byte) 0xC0, '\r', '\n', '\n', ' ', '\t', '\n',
                '{', '"', '\r', 'x'});

        Cli produce = Cli.run("produce", "--topic", topic, "--raw", "--key", "k", "--file", file.toString(),
                "--bootstrap-servers", broker.bootstrapServers());

        assertThat(produce.exitCode()).as(produce.err()).isZero();
        assertThat(produce.err()).contains("sent 4 records to " + topic);
        List<ConsumerRecord<byte[], byte[]>> records = Kafka.readRaw(broker.bootstrapServers(), topic);
        assertThat(records).extracting(ConsumerRecord::value).containsExactly(
                new byte[] {'a', (byte) 0xFF, (byte) 0xC0}, new byte[0], new byte[] {' ', '\t'},
                new byte[] {'{', '"', '\r', 'x'});
        assertThat(records).extracting(record -> new String(record.key(), StandardCharsets.UTF_8)).containsOnly("k");
    }

    /** The topic's max.message.bytes bounds a line by default, and a record always: refused, not sent. */
    @Test
    void linesAndRecordsOverTheTopicsLimitAreRefusedAndTheOthersSent(EmbeddedKafkaBroker broker, @TempDir Path dir)
            throws Exception {
        String topic = "it-small-" + UUID.randomUUID().toString().substring(0, 8);
        try (Admin admin = Admin.create(Map.of(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG,
                broker.bootstrapServers()))) {
            admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1)
                    .configs(Map.of(TopicConfig.MAX_MESSAGE_BYTES_CONFIG, "1000")))).all().get(30, TimeUnit.SECONDS);
        }
        Path file = dir.resolve("raw.txt");
        Files.write(file, List.of("before", "x".repeat(2_000), "after"));

        Cli byDefault = Cli.run("produce", "--topic", topic, "--raw", "--file", file.toString(),
                "--bootstrap-servers", broker.bootstrapServers());
        Cli raisedLineLimit = Cli.run("produce", "--topic", topic, "--raw", "--file", file.toString(),
                "--max-line-bytes", "5000", "--bootstrap-servers", broker.bootstrapServers());

        assertThat(byDefault.exitCode()).isEqualTo(1);
        assertThat(byDefault.err()).contains("line 2: $: the line is 2,000 bytes, over the limit of 1,000 "
                + "(--max-line-bytes); it was not read", "sent 2 records to " + topic + ", rejected 1 bad line in ");
        assertThat(raisedLineLimit.exitCode()).isEqualTo(1);
        assertThat(raisedLineLimit.err()).contains("line 2: $: its record is 2,093 bytes, over " + topic
                + "'s max.message.bytes of 1,000", "sent 2 records to " + topic + ", rejected 1 bad line in ");
        assertThat(Kafka.readRaw(broker.bootstrapServers(), topic))
                .extracting(record -> new String(record.value(), StandardCharsets.UTF_8))
                .containsExactly("before", "after", "before", "after");
    }

    /** A compacted topic refuses records without a key: what --raw without --key sends. */
    @Test
    void recordsTheClusterRefusesFailTheCommandNamingTheirLinesAndWhy(EmbeddedKafkaBroker broker,
                                                                       @TempDir Path dir) throws Exception {
        String topic = "it-compacted-" + UUID.randomUUID().toString().substring(0, 8);
        try (Admin admin = Admin.create(Map.of(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG,
                broker.bootstrapServers()))) {
            admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1).configs(Map.of(
                    TopicConfig.CLEANUP_POLICY_CONFIG, TopicConfig.CLEANUP_POLICY_COMPACT))))
                    .all().get(30, TimeUnit.SECONDS);
        }
        Path file = dir.resolve("raw.txt");
        Files.write(file, List.of("first", "second", "third"));

        Cli produce = Cli.run("produce", "--topic", topic, "--raw", "--file", file.toString(),
                "--bootstrap-servers", broker.bootstrapServers());

        assertThat(produce.exitCode()).isEqualTo(1);
        assertThat(produce.err()).containsPattern("(?m)^line 1( to line \\d)?: not sent: InvalidRecordException: "
                        + "Compacted topic cannot accept message without key")
                .contains("sent 0 records to " + topic + ", 3 not sent in ");
        assertThat(Kafka.readRaw(broker.bootstrapServers(), topic)).isEmpty();
    }
}
