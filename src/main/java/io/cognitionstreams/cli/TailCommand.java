package io.cognitionstreams.cli;

import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.Callable;

import org.apache.avro.generic.IndexedRecord;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.cognitionstreams.schema.AnswerDelta;
import io.cognitionstreams.serde.json.JsonAvro;
import io.cognitionstreams.topics.Topic;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

@Command(name = "tail", mixinStandardHelpOptions = true,
        description = {"Prints a topic's records as JSON lines (the form `produce` accepts), read_committed.",
                "Reads every partition without joining a consumer group, so it never moves the app's offsets."})
final class TailCommand implements Callable<Integer> {

    private static final ObjectMapper JSON = new ObjectMapper();

    @Mixin
    ClusterOptions cluster;

    @Spec
    CommandSpec spec;

    @Option(names = "--topic", required = true, description = "Topic to read.")
    String topic;

    @Option(names = "--from", defaultValue = "beginning", paramLabel = "beginning|end",
            description = "Start at the beginning (default) or only print records that arrive from now on.")
    String from;

    @Option(names = "--max", paramLabel = "N", description = "Stop after N records.")
    Integer max;

    @Option(names = "--timeout", paramLabel = "DURATION",
            description = "Stop when no record has arrived for this long (e.g. 10s). Default: run until Ctrl-C.")
    Duration timeout;

    @Option(names = "--metadata", description = "Wrap each value with its topic, partition, offset, key and "
            + "timestamp: {\"topic\":..., \"value\":{...}}.")
    boolean metadata;

    @Option(names = "--follow", description = "On a stream topic (channel.<chat>.stream, --model-stream): print each "
            + "answer's text as it grows, not JSON lines; --max counts deltas.")
    boolean follow;

    @Option(names = "--session", paramLabel = "ID", description = "Only this session's records (the record key).")
    String session;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        if (!from.equals("beginning") && !from.equals("end")) {
            err.println("error: --from is 'beginning' or 'end', not '" + from + "'");
            return 2;
        }
        Topic<?, ?> source = cluster.topics().byName(topic).orElse(null);
        if (source == null) {
            err.println("error: unknown topic " + topic + "; `cognition topics` lists them");
            return 2;
        }
        if (follow && !AnswerDelta.class.equals(source.valueType())) {
            err.println("error: --follow prints a stream topic's text as it grows; " + topic + " is not a stream "
                    + "topic (channel.<chat>.stream)");
            return 2;
        }
        DeltaFollower follower = follow ? new DeltaFollower(out) : null;
        byte[] key = session == null ? null : session.getBytes(StandardCharsets.UTF_8);
        int printed = 0;
        try (KafkaConsumer<byte[], byte[]> consumer = consumer()) {
            List<TopicPartition> partitions = new ArrayList<>();
            for (PartitionInfo info : consumer.partitionsFor(topic, Duration.ofSeconds(30))) {
                partitions.add(new TopicPartition(topic, info.partition()));
            }
            consumer.assign(partitions);
            if (from.equals("end")) {
                consumer.seekToEnd(partitions);
                partitions.forEach(consumer::position);
            } else {
                consumer.seekToBeginning(partitions);
            }
            long lastRecord = System.nanoTime();
            while (max == null || printed < max) {
                var records = consumer.poll(Duration.ofMillis(200));
                for (ConsumerRecord<byte[], byte[]> record : records) {
                    lastRecord = System.nanoTime();
                    if (key != null && !Arrays.equals(key, record.key())) {
                        continue;
                    }
                    try {
                        Object value = source.valueSerde().deserializer().deserialize(topic, record.value());
                        if (follower != null) {
                            if (value != null) {
                                follower.accept((AnswerDelta) value);
                            }
                        } else {
                            out.println(line(record, (IndexedRecord) value));
                        }
                        printed++;
                    } catch (RuntimeException e) {
                        err.printf("%s-%d@%d: cannot decode: %s%n", record.topic(), record.partition(),
                                record.offset(), CognitionCli.rootMessage(e));
                    }
                    if (max != null && printed >= max) {
                        break;
                    }
                }
                out.flush();
                if (timeout != null && System.nanoTime() - lastRecord > timeout.toNanos()) {
                    break;
                }
            }
        }
        return 0;
    }

    private String line(ConsumerRecord<byte[], byte[]> record, IndexedRecord value) {
        String json = value == null ? "null" : JsonAvro.toJson(value);
        if (!metadata) {
            return json;
        }
        try {
            ObjectNode wrapped = JSON.createObjectNode()
                    .put("topic", record.topic())
                    .put("partition", record.partition())
                    .put("offset", record.offset())
                    .put("key", record.key() == null ? null : new String(record.key(), StandardCharsets.UTF_8))
                    .put("timestamp", Instant.ofEpochMilli(record.timestamp()).toString());
            wrapped.set("value", JSON.readTree(json));
            return JSON.writeValueAsString(wrapped);
        } catch (java.io.IOException e) {
            throw new IllegalStateException(e);
        }
    }

    private KafkaConsumer<byte[], byte[]> consumer() {
        Properties props = new Properties();
        props.putAll(cluster.clientConfig());
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        return new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    }
}
