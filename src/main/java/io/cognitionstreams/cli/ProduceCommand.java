package io.cognitionstreams.cli;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.Callable;

import org.apache.avro.Schema;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

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
                        + "and path and is not sent. The key is --key, else the record's session_id or council_id."})
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
        try (BufferedReader lines = file != null ? Files.newBufferedReader(file, StandardCharsets.UTF_8)
                : new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
             KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(Map.of(
                     ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapOrLocal(),
                     ProducerConfig.ACKS_CONFIG, "all",
                     ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true),
                     new ByteArraySerializer(), new ByteArraySerializer())) {
            String line;
            int number = 0;
            while ((line = lines.readLine()) != null) {
                number++;
                if (line.isBlank()) {
                    continue;
                }
                ProducerRecord<byte[], byte[]> record;
                try {
                    record = raw ? rawRecord(line) : checkedRecord(target, line);
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

    private ProducerRecord<byte[], byte[]> rawRecord(String line) {
        return new ProducerRecord<>(topic, key == null ? null : utf8(key), utf8(line));
    }

    @SuppressWarnings("unchecked")
    private <V> ProducerRecord<byte[], byte[]> checkedRecord(Topic<?, V> target, String line) {
        Class<? extends SpecificRecord> type = (Class<? extends SpecificRecord>) target.valueType();
        V value = (V) JsonAvro.fromJson(line, type);
        String recordKey = key != null ? key : keyOf((SpecificRecord) value);
        return new ProducerRecord<>(topic, recordKey == null ? null : utf8(recordKey),
                target.valueSerde().serializer().serialize(topic, value));
    }

    /** Session or council id, so a record produced here is partitioned like the app's own records. */
    static String keyOf(SpecificRecord record) {
        for (String field : new String[] {"session_id", "council_id"}) {
            Schema.Field f = record.getSchema().getField(field);
            if (f != null && record.get(f.pos()) != null) {
                return record.get(f.pos()).toString();
            }
        }
        return null;
    }

    private static byte[] utf8(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
