package io.cognitionstreams.serde;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.apache.avro.AvroRuntimeException;
import org.apache.avro.Schema;
import org.apache.avro.SchemaNormalization;
import org.apache.avro.specific.SpecificData;

import io.cognitionstreams.topics.Topic;
import io.cognitionstreams.topics.Topics;

/**
 * Writes src/main/resources/schema-history/ from git and the code: every version of every record schema that a
 * commit of schemas/ held, and each topic's schema today, self-contained, one file per fingerprint, and the index
 * {@link SchemaHistory} loads. Run after changing a schema ({@code bin/test-main
 * io.cognitionstreams.serde.SchemaHistoryWriter}) and commit what it writes, so a build never needs git;
 * SchemaHistoryTest fails while a topic's schema of today is missing.
 */
public final class SchemaHistoryWriter {

    private SchemaHistoryWriter() {
    }

    public static void main(String[] args) throws Exception {
        Path out = Path.of("src/main/resources").resolve(SchemaHistory.DIRECTORY);
        Files.createDirectories(out);
        Map<String, Schema> byFile = new TreeMap<>();
        for (String commit : git("log", "--format=%H", "--", "schemas/").split("\n")) {
            if (!commit.isBlank()) {
                versionsAt(commit.strip()).forEach(schema -> byFile.put(fileName(schema), schema));
            }
        }
        // Today's, committed or not, so the history has them before the change lands.
        for (Topic<?, ?> topic : new Topics(new SingleObjectAvroSerdeFactory()).all()) {
            Schema current = SpecificData.get().getSchema(topic.valueType());
            byFile.put(fileName(current), current);
        }
        for (Map.Entry<String, Schema> version : byFile.entrySet()) {
            Files.writeString(out.resolve(version.getKey()), version.getValue().toString(true) + "\n");
        }
        Files.writeString(out.resolve("index.txt"), String.join("\n", byFile.keySet()) + "\n");
        System.out.printf("wrote %d schema versions to %s%n", byFile.size(), out);
    }

    /** {@code <full name>-<fingerprint as the single-object header's 8 bytes>.avsc} */
    static String fileName(Schema schema) {
        long fingerprint = SchemaNormalization.parsingFingerprint64(schema);
        StringBuilder hex = new StringBuilder();
        for (int i = 0; i < 8; i++) {
            hex.append(String.format("%02x", (fingerprint >>> (8 * i)) & 0xff));
        }
        return schema.getFullName() + "-" + hex + ".avsc";
    }

    /** The record schemas of schemas/ at {@code commit}: each top-level file's, its named types inlined. */
    private static List<Schema> versionsAt(String commit) throws IOException, InterruptedException {
        Map<String, String> texts = new LinkedHashMap<>();
        for (String path : git("ls-tree", "-r", "--name-only", commit, "schemas/").split("\n")) {
            if (path.endsWith(".avsc")) {
                texts.put(path, git("show", commit + ":" + path));
            }
        }
        // Files name types of other files: parse what can be, then again with what that defined, until done.
        Map<String, Schema> known = new LinkedHashMap<>();
        List<Schema> topLevel = new ArrayList<>();
        while (!texts.isEmpty()) {
            int before = texts.size();
            for (var file : List.copyOf(texts.entrySet())) {
                try {
                    Schema schema = new Schema.Parser().addTypes(known.values()).parse(file.getValue());
                    collectNamed(schema, known);
                    texts.remove(file.getKey());
                    if (!file.getKey().startsWith("schemas/common/") && schema.getType() == Schema.Type.RECORD) {
                        topLevel.add(schema);
                    }
                } catch (AvroRuntimeException undefinedYet) {
                    // tried again once more types are known
                }
            }
            if (texts.size() == before) {
                throw new IllegalStateException("cannot parse " + texts.keySet() + " at " + commit);
            }
        }
        return topLevel;
    }

    /** {@code schema} and every named type inside it, by full name: what a later file may refer to. */
    private static void collectNamed(Schema schema, Map<String, Schema> named) {
        switch (schema.getType()) {
            case RECORD -> {
                if (named.putIfAbsent(schema.getFullName(), schema) == null) {
                    schema.getFields().forEach(field -> collectNamed(field.schema(), named));
                }
            }
            case ENUM, FIXED -> named.putIfAbsent(schema.getFullName(), schema);
            case ARRAY -> collectNamed(schema.getElementType(), named);
            case MAP -> collectNamed(schema.getValueType(), named);
            case UNION -> schema.getTypes().forEach(branch -> collectNamed(branch, named));
            default -> {
            }
        }
    }

    private static String git(String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of("git"));
        command.addAll(List.of(args));
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (process.waitFor() != 0) {
            throw new IllegalStateException("git " + String.join(" ", args) + ": " + output);
        }
        return output;
    }
}
