package io.cognitionstreams.cli;

import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;

import io.cognitionstreams.serde.SingleObjectAvroSerdeFactory;
import io.cognitionstreams.serde.SingleObjectHeader;
import io.cognitionstreams.topics.Topic;
import io.cognitionstreams.topics.Topics;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

@Command(name = "schema",
        description = {"Gives each topic's value schema to clients outside the app, in any language "
                + "(docs/serialization.md). Needs no cluster.",
                "Without options it lists every topic with its value type and the 10 bytes its values start with "
                        + "when no schema registry is used: C3 01, then the CRC-64-AVRO fingerprint of the "
                        + "schema's Parsing Canonical Form, little-endian, in hex as on the wire.",
                "A schema printed or written here is one JSON document that parses on its own in any Avro "
                        + "library: every named type is defined where it is first used."})
final class SchemaCommand implements Callable<Integer> {

    static final String FINGERPRINTS = "fingerprints.txt";

    @Spec
    CommandSpec spec;

    @ArgGroup(exclusive = true)
    Target target;

    static final class Target {
        @Option(names = "--topic", paramLabel = "TOPIC", description = "Print TOPIC's value schema.")
        String topic;

        @ArgGroup(exclusive = false)
        AllTopics all;
    }

    static final class AllTopics {
        @Option(names = "--all", required = true, description = "Write every topic's value schema to "
                + "DIR/<topic>.avsc, and the list of headers to DIR/" + FINGERPRINTS + ".")
        boolean all;

        @Option(names = "--out", required = true, paramLabel = "DIR", description = "Where --all writes; "
                + "made if missing, files of the same name replaced.")
        Path out;
    }

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        Topics topics = new Topics(new SingleObjectAvroSerdeFactory());
        if (target == null) {
            out.print(listing(topics));
        } else if (target.topic != null) {
            Topic<?, ?> topic = topics.byName(target.topic).orElse(null);
            if (topic == null) {
                spec.commandLine().getErr().println("error: unknown topic " + target.topic
                        + "; `cognition schema` lists them");
                return 2;
            }
            out.print(json(topic));
        } else {
            Path dir = target.all.out;
            Files.createDirectories(dir);
            Map<String, String> files = files(topics);
            for (Map.Entry<String, String> file : files.entrySet()) {
                Files.writeString(dir.resolve(file.getKey()), file.getValue(), StandardCharsets.UTF_8);
            }
            out.printf("wrote %d schemas and %s to %s%n", files.size() - 1, FINGERPRINTS, dir);
        }
        // print() does not flush on its own, and main() exits right after.
        out.flush();
        return 0;
    }

    /** What --all writes: {@code <topic>.avsc} for each topic, then the listing. */
    static Map<String, String> files(Topics topics) {
        Map<String, String> files = new LinkedHashMap<>();
        for (Topic<?, ?> topic : topics.all()) {
            files.put(topic.name() + ".avsc", json(topic));
        }
        files.put(FINGERPRINTS, listing(topics));
        return files;
    }

    /** Avro's JSON form of a parsed schema writes each named type in full the first time it meets it. */
    static String json(Topic<?, ?> topic) {
        return topic.valueSchema().toString(true) + "\n";
    }

    static String listing(Topics topics) {
        StringBuilder listing = new StringBuilder(String.format("%-24s %-18s %s\n", "TOPIC", "VALUE",
                "HEADER (C3 01 | CRC-64-AVRO FINGERPRINT, LITTLE-ENDIAN)"));
        for (Topic<?, ?> topic : topics.all()) {
            listing.append(String.format("%-24s %-18s %s\n", topic.name(), topic.valueType().getSimpleName(),
                    SingleObjectHeader.hex(SingleObjectHeader.of(topic.valueSchema()))));
        }
        return listing.toString();
    }
}
