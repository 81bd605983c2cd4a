package io.cognitionstreams.model;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.streams.CloseOptions;
import org.apache.kafka.streams.KafkaStreams;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import io.cognitionstreams.app.ModelEndpoints;
import io.cognitionstreams.app.Pipeline;
import io.cognitionstreams.app.Settings;
import io.cognitionstreams.app.StreamsSettings;
import io.cognitionstreams.app.TopicProvisioner;
import io.cognitionstreams.broker.EmbeddedKafkaBroker;
import io.cognitionstreams.prompt.ModelClient;
import io.cognitionstreams.routing.RoutingTopology;
import io.cognitionstreams.schema.AnswerDelta;
import io.cognitionstreams.schema.CognitionPacket;
import io.cognitionstreams.schema.DeltaKind;
import io.cognitionstreams.schema.Marker;
import io.cognitionstreams.schema.RoutedBlock;
import io.cognitionstreams.security.Principals;
import io.cognitionstreams.testing.Cli;
import io.cognitionstreams.testing.Drivers;
import io.cognitionstreams.testing.Kafka;
import io.cognitionstreams.testing.Logins;
import io.cognitionstreams.testing.Records;
import io.cognitionstreams.testing.SharedBroker;
import io.cognitionstreams.topics.Channel;
import io.cognitionstreams.topics.Topic;
import io.cognitionstreams.topics.Topics;

/**
 * Streamed answers on a real broker: the model worker with {@link StreamedAnswers}, marker routing running, and a
 * model that writes its answers a few characters at a time. The text reaches the stream topics while the model is
 * still writing, before any block; put together it is the blocks' text; a tenant's session streams to the tenant's
 * own topic; a flood of one-character pieces becomes a few records; an answer too large for routing is abandoned
 * on the stream and dead-lettered; `cognition tail --follow` prints the text.
 */
@ExtendWith(SharedBroker.class)
class AnswerStreamsIT {

    private static final Duration TIMEOUT = Duration.ofSeconds(60);
    private static final String TENANT = "tenant-a";

    @Test
    void answersStreamToTheChatChannelsStreamsBeforeTheirBlocksAndPutTogetherAreTheBlocks(
            EmbeddedKafkaBroker broker, @TempDir Path dir) throws Exception {
        String bootstrap = broker.bootstrapServers();
        String run = UUID.randomUUID().toString().substring(0, 8);
        Settings settings = Logins.app(Settings.local(bootstrap, "streams-it-" + run, dir)
                .withTenants(List.of(TENANT)));
        Pipeline.Parts parts = Pipeline.Parts.of(settings, new ModelEndpoints(settings.model()));
        Topics topics = Drivers.topics(List.of(TENANT));
        try (Admin admin = Admin.create(settings.clientConfig())) {
            TopicProvisioner.ensure(admin, topics, settings.partitions(), settings.replicationFactor());
        }
        String plain = "plain-" + run;
        String tenants = TENANT + ".s-" + run;
        String flood = "flood-" + run;
        String huge = "huge-" + run;
        String retried = "retried-" + run;
        String body = "The parser fails on an empty header line. Write to ann@example.com, card 4111 1111 1111 "
                + "1111, or call +44 20 7946 0958. ";
        Map<String, String> answers = Map.of(
                plain, "PLAN: look first\nRESPONSE: " + body.repeat(6) + "\nTHOUGHT_SEED: a checklist\nRESPONSE: bye",
                tenants, "RESPONSE: for the tenant only, " + body,
                flood, "RESP" + "ONSE: " + body.repeat(1_500),
                huge, "RESPONSE: " + "lorem ipsum dolor sit amet ".repeat(80_000),
                retried, "RESPONSE: the answer after a retry, to ann@example.com");
        CountDownLatch seen = new CountDownLatch(1);
        ModelClient model = call -> {
            String session = call.prompt().get(call.prompt().size() - 1).content();
            String text = answers.get(session);
            return CompletableFuture.supplyAsync(() -> {
                if (session.equals(retried)) {
                    // A client that retries within the call streams its first, broken attempt too.
                    call.deltas().accept("RESPONSE: a first attempt that broke off midway through its ");
                }
                int piece = session.equals(huge) ? 65_536 : session.equals(flood) ? 1 : 3;
                for (int at = 0; at < text.length(); at += piece) {
                    call.deltas().accept(text.substring(at, Math.min(text.length(), at + piece)));
                    // Half way through, the model waits until a reader has seen its text on the stream topic.
                    if (session.equals(plain) && at < text.length() / 2 && at + piece >= text.length() / 2) {
                        await(seen);
                    }
                }
                return new ModelClient.Completion(text, "streaming-double", 100, 50);
            });
        };
        StreamedAnswers streams = new StreamedAnswers(settings.clientConfig(), topics, parts.router());
        ModelWorker worker = new ModelWorker(settings.clientConfig(), settings.applicationId() + "-model-worker",
                "it", topics, model, 10, settings.tuning().sessionTimeout(), streams);
        Thread thread = new Thread(worker, "model-worker-streams-it");
        KafkaStreams routing = startRouting(settings, topics, parts);
        thread.start();
        try {
            var assembler = parts.assembler();
            for (String session : List.of(plain, tenants, flood, huge, retried)) {
                CognitionPacket packet = assembler.assemble(Records.input(Records.request(session, session)
                        .build())).packet();
                Kafka.send(settings.clientConfig(), topics.packets, session, packet);
            }
            Topic<String, AnswerDelta> cliStream = topics.stream(Channel.CLI_CHAT);
            List<AnswerDelta> early = Kafka.readUntil(bootstrap, cliStream, delta -> delta.getSessionId()
                    .equals(plain), found -> !found.isEmpty(), TIMEOUT);
            assertThat(Kafka.readAll(bootstrap, topics.channel(Channel.CLI_CHAT), block -> block.getSessionId()
                    .equals(plain))).as("no block while the model is still writing").isEmpty();
            assertThat(early.get(0).getKind()).isEqualTo(DeltaKind.TEXT);
            assertThat(early.get(0).getText()).startsWith("The parser fails");
            seen.countDown();

            // Routing writes an output's blocks on all its channels in one transaction: once the last session's
            // block is on channel.cli_chat, every block of the run is on every channel.
            List<RoutedBlock> cliBlocks = Kafka.readUntil(bootstrap, topics.channel(Channel.CLI_CHAT),
                    block -> Set.of(plain, flood, retried).contains(block.getSessionId())
                            && block.getMarker() == Marker.RESPONSE, found -> found.size() >= 4, TIMEOUT);
            List<AnswerDelta> cliDeltas = Kafka.readAll(bootstrap, cliStream, delta -> delta.getSessionId()
                    .endsWith(run));
            for (String session : List.of(plain, flood, retried)) {
                assertStreamIsTheBlocks(of(cliDeltas, session), cliBlocks.stream()
                        .filter(block -> block.getSessionId().equals(session)).toList(), session);
            }
            for (Channel channel : List.of(Channel.WEB_CHAT, Channel.DISCORD_CHAT)) {
                assertStreamIsTheBlocks(Kafka.readAll(bootstrap, topics.stream(channel), delta -> delta
                        .getSessionId().equals(plain)), Kafka.readAll(bootstrap, topics.channel(channel), block ->
                        block.getSessionId().equals(plain) && block.getMarker() == Marker.RESPONSE), channel.id());
            }
            assertThat(of(cliDeltas, flood)).as("%,d one-character pieces", answers.get(flood).length())
                    .hasSizeLessThan(answers.get(flood).length() / 1_000);
            assertThat(of(cliDeltas, tenants)).as("a tenant's answer only on its tenant's stream").isEmpty();
            assertStreamIsTheBlocks(Kafka.readAll(bootstrap, topics.stream(TENANT, Channel.CLI_CHAT), delta -> delta
                    .getSessionId().equals(tenants)), Kafka.readUntil(bootstrap, topics.channel(TENANT,
                    Channel.CLI_CHAT), block -> block.getSessionId().equals(tenants), found -> !found.isEmpty(),
                    TIMEOUT), tenants);

            assertThat(of(cliDeltas, huge)).last().satisfies(delta -> {
                assertThat(delta.getKind()).isEqualTo(DeltaKind.ABANDONED);
                assertThat(delta.getText()).contains("over 524288 bytes, which routing refuses");
            });
            assertThat(Kafka.readUntil(bootstrap, topics.deadLetters, letter -> letter.getKey() != null
                    && new String(letter.getKey().array(), StandardCharsets.UTF_8).equals(huge),
                    found -> !found.isEmpty(), TIMEOUT)).as("the output too large for llm.outputs").isNotEmpty();

            Cli follow = Cli.run(Logins.cli(bootstrap, Principals.OPERATOR, "tail", "--topic", cliStream.name(),
                    "--follow", "--session", plain, "--timeout", "2s"));
            assertThat(follow.exitCode()).as(follow.err()).isZero();
            assertThat(follow.out()).contains(plain + "  " + early.get(0).getBlockId() + "  The parser fails on an "
                    + "empty header line. Write to [REDACTED:EMAIL], card [REDACTED:CARD], or call [REDACTED:PHONE]")
                    .contains("  bye\n").doesNotContain("ann@", "4111");
        } finally {
            seen.countDown();
            worker.close();
            thread.join(10_000);
            streams.close();
            routing.close(CloseOptions.groupMembershipOperation(CloseOptions.GroupMembershipOperation.LEAVE_GROUP)
                    .withTimeout(Duration.ofSeconds(30)));
        }
    }

    private static List<AnswerDelta> of(List<AnswerDelta> deltas, String session) {
        return deltas.stream().filter(delta -> delta.getSessionId().equals(session)).toList();
    }

    /**
     * A session's TEXT deltas on a stream, put together per block, are its RESPONSE blocks on the channel, and its
     * last delta, DONE, was written before them.
     */
    private static void assertStreamIsTheBlocks(List<AnswerDelta> all, List<RoutedBlock> routed, String what) {
        assertThat(all).as(what).isNotEmpty();
        // A call started over ends ABANDONED; the answer is what the last call streamed.
        String last = all.get(all.size() - 1).getCallId();
        assertThat(all).filteredOn(delta -> !delta.getCallId().equals(last)).allSatisfy(delta -> assertThat(
                delta.getKind()).isIn(DeltaKind.TEXT, DeltaKind.ABANDONED));
        List<AnswerDelta> deltas = all.stream().filter(delta -> delta.getCallId().equals(last)).toList();
        Map<String, String> streamed = new LinkedHashMap<>();
        for (int i = 0; i < deltas.size(); i++) {
            AnswerDelta delta = deltas.get(i);
            assertThat(delta.getSequence()).as("%s delta %d", what, i).isEqualTo(i);
            if (delta.getKind() == DeltaKind.TEXT) {
                streamed.merge(delta.getBlockId(), delta.getText(), String::concat);
            }
        }
        AnswerDelta done = deltas.get(deltas.size() - 1);
        assertThat(done.getKind()).as(what).isEqualTo(DeltaKind.DONE);
        // The worker writes the output only once the preview's end is acknowledged; its blocks carry its time.
        assertThat(done.getTimestamp()).isBeforeOrEqualTo(routed.get(0).getTimestamp());
        Map<String, String> expected = new LinkedHashMap<>();
        routed.forEach(block -> expected.put(block.getBlockId(), block.getText()));
        assertThat(streamed).as(what).isEqualTo(expected);
    }

    private static KafkaStreams startRouting(Settings settings, Topics topics, Pipeline.Parts parts)
            throws InterruptedException {
        Properties props = StreamsSettings.of(settings, RoutingTopology.NAME, Set.of());
        KafkaStreams app = new KafkaStreams(Pipeline.topology(RoutingTopology.NAME, topics, parts, props), props);
        app.start();
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        while (app.state() != KafkaStreams.State.RUNNING) {
            assertThat(System.nanoTime()).as("routing running; it is " + app.state()).isLessThan(deadline);
            Thread.sleep(100);
        }
        return app;
    }

    private static void await(CountDownLatch latch) {
        try {
            assertThat(latch.await(TIMEOUT.toSeconds(), TimeUnit.SECONDS)).isTrue();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
