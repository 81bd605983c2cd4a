package io.cognitionstreams.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import org.apache.avro.Schema;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.cognitionstreams.testing.Cli;
import io.cognitionstreams.schema.CognitionPacket;
import io.cognitionstreams.serde.SingleObjectAvroSerdeFactory;
import io.cognitionstreams.testing.Records;
import io.cognitionstreams.testing.SingleObject;
import io.cognitionstreams.topics.Topic;
import io.cognitionstreams.topics.Topics;

/** `cognition schema` as the launcher runs it: main() in a child JVM, no broker; its refusals in-process. */
class SchemaCommandTest {

    private static final Path COMMITTED = Path.of("topic-schemas");
    private static final String REGENERATE =
            "mvn -q -B -DskipTests package (or: mvn -q compile exec:exec@topic-schemas)";

    @TempDir
    Path dir;

    private final Topics topics = new Topics(new SingleObjectAvroSerdeFactory());

    /** CognitionPacket uses MetaHeader, RiskLevel and ChatMessage, which schemas/ keeps in other files. */
    @Test
    void aTopicsSchemaIsPrintedAsOneDocumentThatParsesOnItsOwn() throws Exception {
        Cli printed = Cli.launch(dir, "schema", "--topic", Topics.COGNITION_PACKETS);

        assertThat(printed.exitCode()).as(printed.err()).isZero();
        assertThat(new Schema.Parser().parse(printed.out())).isEqualTo(CognitionPacket.getClassSchema());
    }

    @Test
    void theListingGivesEveryTopicsHeaderAsTheAppWritesIt() throws Exception {
        Cli listed = Cli.launch(dir, "schema");

        assertThat(listed.exitCode()).as(listed.err()).isZero();
        List<String[]> rows = listed.out().lines().skip(1).map(line -> line.split(" +", 3)).toList();
        assertThat(rows).extracting(row -> row[0]).containsExactlyElementsOf(
                topics.all().stream().map(Topic::name).toList());
        for (String[] row : rows) {
            Topic<?, ?> topic = topics.byName(row[0]).orElseThrow();
            assertThat(row[1]).isEqualTo(topic.valueType().getSimpleName());
            assertThat(row[2]).as(row[0]).isEqualTo(SingleObject.hex(SingleObject.header(topic.valueSchema())));
        }
        byte[] written = topics.requests.valueSerde().serializer().serialize(Topics.COGNITION_REQUESTS,
                Records.request("s1", "hello").build());
        assertThat(rows.get(0)[2]).as("the first bytes of a request the app writes")
                .isEqualTo(SingleObject.hex(written));
    }

    @Test
    void allWritesEveryTopicsSchemaAsAFileThatParsesOnItsOwn() throws Exception {
        Path out = dir.resolve("schemas");

        Cli wrote = Cli.launch(dir, "schema", "--all", "--out", out.toString());

        assertThat(wrote.exitCode()).as(wrote.err()).isZero();
        assertThat(wrote.out()).isEqualTo("wrote " + topics.all().size() + " schemas and fingerprints.txt to "
                + out + "\n");
        for (Topic<?, ?> topic : topics.all()) {
            String json = Files.readString(out.resolve(topic.name() + ".avsc"), StandardCharsets.UTF_8);
            assertThat(new Schema.Parser().parse(json)).as(topic.name()).isEqualTo(topic.valueSchema());
        }
        assertThat(Files.readString(out.resolve(SchemaCommand.FINGERPRINTS), StandardCharsets.UTF_8))
                .isEqualTo(SchemaCommand.listing(topics));
    }

    @Test
    void anUnknownTopicAndAllWithoutADirectoryAreRefused() {
        // In-process: the exit code is execute()'s, which main() exits with; the launches above cover main() itself.
        Cli unknown = Cli.run("schema", "--topic", "cognition.nope");
        Cli nowhere = Cli.run("schema", "--all");

        assertThat(unknown.exitCode()).isEqualTo(2);
        assertThat(unknown.out()).isEmpty();
        assertThat(unknown.err()).contains("unknown topic cognition.nope");
        assertThat(nowhere.exitCode()).isEqualTo(2);
        assertThat(nowhere.out()).isEmpty();
        assertThat(nowhere.err()).contains("Missing required argument(s): --out=DIR");
    }

    @Test
    void theCommittedTopicSchemasAreWhatTheCommandWrites() throws IOException {
        Map<String, String> expected = SchemaCommand.files(topics);

        for (Map.Entry<String, String> file : expected.entrySet()) {
            Path path = COMMITTED.resolve(file.getKey());
            assertThat(path).as("%s is missing; regenerate with %s", path, REGENERATE).exists();
            assertThat(Files.readString(path, StandardCharsets.UTF_8))
                    .as("%s is stale; regenerate with %s", path, REGENERATE).isEqualTo(file.getValue());
        }
        try (Stream<Path> files = Files.list(COMMITTED)) {
            assertThat(files.map(p -> p.getFileName().toString()).filter(name -> !name.equals("README.md")))
                    .as("topic-schemas/ holds a file for a topic that no longer exists")
                    .allMatch(expected::containsKey);
        }
    }
}
