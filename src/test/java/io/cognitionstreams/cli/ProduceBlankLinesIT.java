package io.cognitionstreams.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import io.cognitionstreams.testing.Cli;
import io.cognitionstreams.broker.EmbeddedKafkaBroker;
import io.cognitionstreams.schema.CognitionRequest;
import io.cognitionstreams.serde.SingleObjectAvroSerdeFactory;
import io.cognitionstreams.serde.json.JsonAvro;
import io.cognitionstreams.testing.Kafka;
import io.cognitionstreams.testing.SharedBroker;
import io.cognitionstreams.topics.Topics;

/** docs/json-format.md's "Blank lines": its example, produced as the doc says, gives the summary the doc shows. */
@ExtendWith(SharedBroker.class)
class ProduceBlankLinesIT {

    @Test
    void theDocsBlankLinesExampleIsProducedAsTheDocSays(EmbeddedKafkaBroker broker, @TempDir Path dir)
            throws IOException {
        List<List<String>> blocks = fencedBlocks("## Blank lines");
        List<String> input = blocks.get(0);
        String summary = blocks.get(1).get(0);
        assertThat(input).as("the example has blank lines between and after its records").contains("");
        Path file = dir.resolve("example.jsonl");
        Files.write(file, input);

        Cli produce = Cli.run("produce", "--topic", Topics.COGNITION_REQUESTS, "--file", file.toString(),
                "--bootstrap-servers", broker.bootstrapServers());

        assertThat(produce.exitCode()).as(produce.err()).isZero();
        assertThat(produce.err()).contains(summary + " in ");
        List<String> documented = input.stream().filter(line -> !line.isBlank())
                .map(line -> JsonAvro.fromJson(line, CognitionRequest.class).getRequestId()).toList();
        assertThat(Kafka.readAll(broker.bootstrapServers(),
                new Topics(new SingleObjectAvroSerdeFactory()).requests,
                request -> documented.contains(request.getRequestId())))
                .extracting(CognitionRequest::getRequestId).containsAll(documented);
    }

    @Test
    void aFileOfBlankLinesSendsNothingAndSucceeds(EmbeddedKafkaBroker broker, @TempDir Path dir)
            throws IOException {
        Path file = dir.resolve("blank.jsonl");
        Files.writeString(file, "\n  \n\t\r\n\n");

        Cli produce = Cli.run("produce", "--topic", Topics.COGNITION_REQUESTS, "--file", file.toString(),
                "--bootstrap-servers", broker.bootstrapServers());

        assertThat(produce.exitCode()).as(produce.err()).isZero();
        assertThat(produce.err()).contains("sent 0 records to cognition.requests, skipped 4 blank lines in ");
    }

    /** The lines of each fenced code block after {@code heading}, up to the next heading. */
    private static List<List<String>> fencedBlocks(String heading) throws IOException {
        List<String> doc = Files.readAllLines(Path.of("docs/json-format.md"));
        List<List<String>> blocks = new ArrayList<>();
        List<String> block = null;
        for (String line : doc.subList(doc.indexOf(heading) + 1, doc.size())) {
            if (block == null && line.startsWith("#")) {
                break;
            }
            if (line.startsWith("```")) {
                if (block != null) {
                    blocks.add(block);
                }
                block = block == null ? new ArrayList<>() : null;
            } else if (block != null) {
                block.add(line);
            }
        }
        return blocks;
    }
}
