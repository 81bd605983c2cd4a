package io.cognitionstreams.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

class TopologyDocsTest {

    private static final Path DOCS = Path.of("topology-docs");

    @Test
    void committedTopologyDocsMatchWhatTheCodeDescribes() throws IOException {
        Map<String, String> expected = TopologyDocs.render();

        for (Map.Entry<String, String> file : expected.entrySet()) {
            Path path = DOCS.resolve(file.getKey());
            assertThat(path).as("%s is missing; regenerate with %s", path, TopologyDocs.REGENERATE).exists();
            assertThat(Files.readString(path, StandardCharsets.UTF_8))
                    .as("%s is stale; regenerate with %s", path, TopologyDocs.REGENERATE)
                    .isEqualTo(file.getValue());
        }
        try (Stream<Path> files = Files.list(DOCS)) {
            assertThat(files.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".txt") || n.endsWith(".md"))
                    .filter(n -> !n.equals("README.md")))
                    .as("topology-docs/ holds a file for a topology that no longer exists")
                    .allMatch(expected::containsKey);
        }
    }

    @Test
    void theDiagramShowsEveryTopicTheTopologyReadsAndWrites() {
        String routing = TopologyDocs.render().get("routing.md");

        assertThat(routing).contains("([\"llm.outputs\"])", "([\"tool.calls\"])", "([\"channel.cli_chat\"])",
                "([\"channel.memory\"])");
        assertThat(routing).doesNotContain("([\"channel.shell\"])");
    }

    @Test
    void onlyTheGatekeeperWritesTheShellChannel() {
        Map<String, String> docs = TopologyDocs.render();

        assertThat(docs.get("gatekeeper.md")).contains("([\"tool.calls\"])", "([\"tool.decisions\"])",
                "([\"channel.shell\"])", "[(\"active-skills\")]");
        assertThat(docs).allSatisfy((file, text) -> {
            if (file.endsWith(".txt") && !file.equals("gatekeeper.txt")) {
                assertThat(text).as(file).doesNotContain("(topic: channel.shell)");
            }
        });
    }
}
