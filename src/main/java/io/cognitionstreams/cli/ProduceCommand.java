package io.cognitionstreams.cli;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;

import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

import io.cognitionstreams.serde.AvroSerdes;
import io.cognitionstreams.serde.json.JsonAvro;
import io.cognitionstreams.serde.json.JsonAvroException;
import io.cognitionstreams.topics.Topic;
import io.cognitionstreams.topics.Topics;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

@Command(name = "produce", mixinStandardHelpOptions = true,
        description = {"Sends JSON lines (one record per line, see docs/json-format.md) to a topic.",
                "Each line is checked against the topic's Avro schema; a bad line is reported with its line number "
                        + "and path and is not sent. The key is --key, else the record's key field for its topic "
                        + "(below), as the app keys that topic."})
final class ProduceCommand implements Callable<Integer> {

    @Mixin
    ClusterOptions cluster;

    @Spec
    CommandSpec spec;

    @Option(names = "--topic", required = true, description = "Topic to write to.")
    String topic;

    @Option(names = "--file", paramLabel = "FILE", description = "Read lines from FILE instead of standard input.")
    Path file;

    @Option(names = "--key", description = "Key for every record.")
    String key;

    @Option(names = "--raw", description = "Send each line's bytes as they are, unchecked (for testing the "
            + "dead-letter path).")
    boolean raw;

    @Override
    public Integer call() throws Exception {
        PrintWriter err = spec.commandLine().getErr();
        Topics topics = cluster.topics();
        Topic<?, ?> target = topics.byName(topic).orElse(null);
        if (target == null && !raw) {
            err.println("error: unknown topic " + topic + "; `cognition topics` lists them (use --raw to send "
                    + "unchecked bytes to any topic)");
            return 2;
        }
        int sent = 0;
        int rejected = 0;
        // Lines are read as bytes: a reader would either stop at the first invalid UTF-8 (a file) or replace it
        // silently (stdin), and --raw must send the bytes exactly as given.
        try (InputStream input = new BufferedInputStream(file != null ? Files.newInputStream(file) : System.in);
             KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(Map.of(
                     ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapOrLocal(),
                     ProducerConfig.ACKS_CONFIG, "all",
                     ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true),
                     new ByteArraySerializer(), new ByteArraySerializer())) {
            byte[] line;
            int number = 0;
            while ((line = readLine(input)) != null) {
                number++;
                if (new String(line, StandardCharsets.ISO_8859_1).isBlank()) {
                    continue;
                }
                ProducerRecord<byte[], byte[]> record;
                try {
                    record = raw ? rawRecord(line) : checkedRecord(target, strictUtf8(line));
                } catch (JsonAvroException e) {
                    err.printf("line %d: %s%n", number, e.getMessage());
                    rejected++;
                    continue;
                }
                producer.send(record).get();
                sent++;
            }
        }
        err.printf("sent %d record%s to %s%s%n", sent, sent == 1 ? "" : "s", topic,
                rejected == 0 ? "" : ", rejected " + rejected + " bad line" + (rejected == 1 ? "" : "s"));
        return rejected == 0 ? 0 : 1;
    }

    private ProducerRecord<byte[], byte[]> rawRecord(byte[] line) {
        return new ProducerRecord<>(topic, key == null ? null : utf8(key), line);
    }

    /** One line without its LF or CRLF; null at the end of the input. */
    static byte[] readLine(InputStream input) throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        int b;
        while ((b = input.read()) != -1 && b != '\n') {
            line.write(b);
        }
        if (b == -1 && line.size() == 0) {
            return null;
        }
        byte[] bytes = line.toByteArray();
        return bytes.length > 0 && bytes[bytes.length - 1] == '\r' ? Arrays.copyOf(bytes, bytes.length - 1) : bytes;
    }

    private static String strictUtf8(byte[] line) {
        try {
            return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(line)).toString();
        } catch (CharacterCodingException e) {
            throw new JsonAvroException("$", "the line is not valid UTF-8");
        }
    }

    @SuppressWarnings("unchecked")
    private <V> ProducerRecord<byte[], byte[]> checkedRecord(Topic<?, V> target, String line) {
        Class<? extends SpecificRecord> type = (Class<? extends SpecificRecord>) target.valueType();
        V value = (V) JsonAvro.fromJson(line, type);
        String recordKey = key != null ? key : target.key().of(value);
        return new ProducerRecord<>(topic, recordKey == null ? null : utf8(recordKey),
                target.valueSerde().serializer().serialize(topic, value));
    }

    /** The help's table of each topic's key, drawn from the topic definitions so it cannot drift from them. */
    static void describeKeys(CommandSpec produce) {
        List<String> footer = new ArrayList<>(List.of("", "Keys, by topic (--key overrides):"));
        for (Topic<?, ?> topic : new Topics(AvroSerdes.forRegistry(Optional.empty())).all()) {
            footer.add(String.format("  %-22s %s", topic.name(), topic.key().description()));
        }
        produce.usageMessage().footer(footer.toArray(String[]::new));
    }

    private static byte[] utf8(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
