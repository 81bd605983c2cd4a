package io.cognitionstreams.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;

import io.cognitionstreams.serde.SingleObjectAvroSerdeFactory;
import io.cognitionstreams.topics.Topic;
import io.cognitionstreams.topics.Topics;

class ReadmeTest {

    @Test
    void theTopicTableListsEveryTopicWithItsValueSchemaAndNoOther() throws IOException {
        List<String> rows = Files.readAllLines(Path.of("README.md")).stream()
                .filter(line -> line.startsWith("| `")).toList();
        Topics topics = new Topics(new SingleObjectAvroSerdeFactory());

        for (Topic<?, ?> topic : topics.all()) {
            assertThat(rows).as("README topic table row for %s", topic.name())
                    .anySatisfy(row -> assertThat(row).startsWith("| `" + topic.name() + "` |")
                            .contains("| `" + topic.valueType().getSimpleName() + "` |"));
        }
        assertThat(rows).allSatisfy(row -> assertThat(topics.byName(row.split("`")[1]))
                .as("README lists %s, which the code does not have", row).isPresent());
    }
}
