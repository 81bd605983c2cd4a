package io.cognitionstreams.redaction;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.Map;

import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.kstream.KStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.cognitionstreams.schema.RoutedBlock;
import io.cognitionstreams.testing.Drivers;
import io.cognitionstreams.testing.Records;
import io.cognitionstreams.testing.TopicDriver;
import io.cognitionstreams.topics.Channel;
import io.cognitionstreams.topics.Topics;
import io.cognitionstreams.topology.ChannelCheck;
import io.cognitionstreams.topology.Outputs;

/** The last check before a channel topic: what redaction missed is redacted there, counted, and never written. */
class LastCheckTest {

    private final LastCheck check = new LastCheck(Redactor.defaults());
    private final Topics topics = Drivers.topics();

    @TempDir
    Path stateDir;

    @Test
    void aBlockTheRedactorScrubbedPassesAsItIs() {
        String scrubbed = Redactor.defaults().redact("mail ops@example.com or call +49 151 23456789").text();

        assertThat(check.residue(Records.memoryBlock("b1", "s1", scrubbed).build())).isEmpty();
    }

    @Test
    void whatIsStillThereIsRedactedAndAddedToTheBlocksCounts() {
        RoutedBlock block = Records.memoryBlock("b1", "s1", "[REDACTED:EMAIL] wrote; reach bob@example.org")
                .setRedactions(Map.of("EMAIL", 1)).build();

        ChannelCheck.Residue residue = check.residue(block).orElseThrow();

        assertThat(residue.redacted().getText()).isEqualTo("[REDACTED:EMAIL] wrote; reach [REDACTED:EMAIL]");
        assertThat(residue.redacted().getRedactions()).isEqualTo(Map.of("EMAIL", 2));
        assertThat(residue.found()).isEqualTo(Map.of("EMAIL", 1));
        assertThat(residue.redacted().getBlockId()).isEqualTo("b1");
    }

    @Test
    void theSameTextOnSeveralChannelsGivesEachBlockItsOwnFieldsAndAnotherTextIsScannedAfresh() {
        RoutedBlock cli = Records.memoryBlock("b1", "s1", "reach bob@example.org").setChannel("cli_chat").build();
        RoutedBlock web = RoutedBlock.newBuilder(cli).setChannel("web_chat").build();

        assertThat(check.residue(cli).orElseThrow().redacted().getChannel()).isEqualTo("cli_chat");
        assertThat(check.residue(web).orElseThrow().redacted().getChannel()).isEqualTo("web_chat");
        assertThat(check.residue(Records.memoryBlock("b2", "s1", "all clear").build())).isEmpty();
        assertThat(check.residue(web).orElseThrow().redacted().getText()).isEqualTo("reach [REDACTED:EMAIL]");
        assertThat(check.residue(Records.memoryBlock("b3", "s1", "call +49 151 23456789").build()).orElseThrow()
                .found()).containsOnlyKeys("PHONE");
    }

    @Test
    void aBlockThatBypassedRedactionLeavesTheTopologyRedactedAndIsCounted() {
        StreamsBuilder builder = new StreamsBuilder();
        KStream<String, SpecificRecord> blocks = builder.stream(topics.channel(Channel.MEMORY).name(),
                topics.channel(Channel.MEMORY).consumed()).mapValues(block -> (SpecificRecord) block);
        Outputs.of(blocks, "out").checkingChannelsWith(check).to(topics.channel(Channel.CLI_CHAT)).end();
        try (TopologyTestDriver driver = Drivers.driver(builder.build(), stateDir)) {
            var in = TopicDriver.input(driver, topics.channel(Channel.MEMORY));
            in.pipeInput("s1", Records.memoryBlock("b1", "s1", "clean text").setChannel(Channel.CLI_CHAT.id()).build());
            in.pipeInput("s1", Records.memoryBlock("b2", "s1", "key AKIAIOSFODNN7EXAMPLE for carol@example.com")
                    .setChannel(Channel.CLI_CHAT.id()).build());

            assertThat(TopicDriver.output(driver, topics.channel(Channel.CLI_CHAT)).readValuesToList())
                    .extracting(RoutedBlock::getText)
                    .containsExactly("clean text", "key [REDACTED:API_KEY] for [REDACTED:EMAIL]");
            double residual = driver.metrics().entrySet().stream()
                    .filter(e -> e.getKey().group().equals("stream-redaction-metrics")
                            && e.getKey().name().equals("residual-redactions-total")
                            && (Topics.CHANNEL_PREFIX + Channel.CLI_CHAT.id()).equals(e.getKey().tags().get("channel")))
                    .mapToDouble(e -> (Double) e.getValue().metricValue()).sum();
            assertThat(residual).as("blocks the last check redacted").isEqualTo(1.0);
        }
    }

    @Test
    void aChannelCannotBeWiredWithoutTheCheck() {
        StreamsBuilder builder = new StreamsBuilder();
        KStream<String, SpecificRecord> blocks = builder.stream("in");
        Outputs outputs = Outputs.of(blocks, "out");

        assertThatThrownBy(() -> outputs.to(topics.channel(Channel.WEB_CHAT)))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("channel.web_chat without a last check");
    }
}
