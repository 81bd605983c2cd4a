package io.cognitionstreams.cli;

import java.io.InputStream;
import java.io.PrintWriter;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.producer.ProducerRecord;

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

@Command(name = "produce",
        description = {"Sends JSON lines (one record per line, see docs/json-format.md) to a topic, or deletes keys "
                + "from a compacted topic (--tombstone).",
                "Each line is checked against the topic's Avro schema; a bad line is reported with its line number "
                        + "and JSON path and is not sent, the others are. Blank lines are skipped. Records go out in "
                        + "batches without waiting for each, in order within a partition; the first one the cluster "
                        + "refuses stops the command, which names its line and the reason.",
                "The key is --key, else the record's key field for its topic (below), as the app keys that topic."})
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

    @Option(names = "--raw", description = "Send each line's bytes as they are, unchecked, an empty line as an "
            + "empty value (for testing the dead-letter path).")
    boolean raw;

    @Option(names = "--tombstone", paramLabel = "KEY", description = "Delete KEY from a compacted topic: write it "
            + "with a null value. Repeatable; no input is read.")
    List<String> tombstones;

    @Option(names = "--max-line-bytes", paramLabel = "N", description = "Refuse a line longer than N bytes, "
            + "without holding more than N bytes of it (default: the topic's max.message.bytes on the cluster, "
            + "1 MiB for a topic not there yet).")
    Integer maxLineBytes;

    @Option(names = "--progress", negatable = true, description = "Print progress on standard error every second "
            + "(default: only on a terminal).")
    Boolean progress;

    @Override
    public Integer call() throws Exception {
        PrintWriter err = spec.commandLine().getErr();
        Topics topics = cluster.topics();
        Topic<?, ?> target = topics.byName(topic).orElse(null);
        if (tombstones != null) {
            if (file != null || key != null || raw) {
                err.println("error: --tombstone takes its keys from the command line; it goes with neither "
                        + "--file, --key nor --raw");
                return 2;
            }
            if (target == null) {
                err.println("error: unknown topic " + topic + "; `cognition topics` lists them");
                return 2;
            }
            return Tombstones.write(cluster, topics, target, tombstones, err);
        }
        if (target == null && !raw) {
            err.println("error: unknown topic " + topic + "; `cognition topics` lists them (use --raw to send "
                    + "unchecked bytes to any topic)");
            return 2;
        }
        if (maxLineBytes != null && maxLineBytes < 1) {
            err.println("error: --max-line-bytes must be at least 1");
            return 2;
        }
        long started = System.nanoTime();
        int recordLimit = AsyncSender.recordLimit(cluster.topicConfig(topic));
        int lineLimit = maxLineBytes != null ? maxLineBytes : recordLimit;
        AtomicLong read = new AtomicLong();
        long rejected = 0;
        long blank = 0;
        long unsent = 0;
        try (InputStream input = file != null ? Files.newInputStream(file) : System.in;
             AsyncSender sender = new AsyncSender(cluster.clientConfig(), recordLimit)) {
            try (Progress shown = new Progress(progress != null ? progress : System.console() != null, err,
                    read::get, sender)) {
                LineReader lines = new LineReader(input, lineLimit);
                for (LineReader.Line line = lines.next(); line != null; line = lines.next()) {
                    long number = read.incrementAndGet();
                    if (sender.failed()) {
                        unsent = number;
                        break;
                    }
                    if (line.oversized()) {
                        err.printf("line %d: $: the line is %,d bytes, over the limit of %,d (--max-line-bytes); "
                                + "it was not read%n", number, line.size(), lineLimit);
                        rejected++;
                        continue;
                    }
                    if (!raw && blank(line.bytes())) {
                        blank++;
                        continue;
                    }
                    ProducerRecord<byte[], byte[]> record;
                    try {
                        record = raw ? rawRecord(line.bytes()) : checkedRecord(target, strictUtf8(line.bytes()));
                    } catch (JsonAvroException e) {
                        err.printf("line %d: %s%n", number, e.getMessage());
                        rejected++;
                        continue;
                    }
                    // Refused here rather than by the broker, whose refusal would stop the command.
                    if (AsyncSender.batchBytes(record) > recordLimit) {
                        err.printf("line %d: $: its record is %,d bytes, over %s's max.message.bytes of %,d%n",
                                number, AsyncSender.batchBytes(record), topic, recordLimit);
                        rejected++;
                        continue;
                    }
                    sender.send(number, record);
                }
                sender.flush();
            }
            sender.printFailures(err, number -> "line " + number);
            double seconds = (System.nanoTime() - started) / 1e9;
            err.printf("sent %d record%s to %s%s%s%s in %.1f s (%,.0f records/s)%s%n", sender.acknowledged(),
                    plural(sender.acknowledged()), topic,
                    rejected == 0 ? "" : ", rejected " + rejected + " bad line" + plural(rejected),
                    blank == 0 ? "" : ", skipped " + blank + " blank line" + plural(blank),
                    sender.failed() ? ", " + sender.failureCount() + " not sent" : "",
                    seconds, sender.acknowledged() / seconds,
                    unsent == 0 ? "" : "; stopped at the first failure, so line " + unsent
                            + " and the lines after it were not sent");
            return rejected == 0 && !sender.failed() ? 0 : 1;
        }
    }

    private ProducerRecord<byte[], byte[]> rawRecord(byte[] line) {
        return new ProducerRecord<>(topic, key == null ? null : utf8(key), line);
    }

    /** Empty, or JSON whitespace alone: no record, as NDJSON readers may skip it (docs/json-format.md). */
    private static boolean blank(byte[] line) {
        for (byte b : line) {
            if (b != ' ' && b != '\t' && b != '\r') {
                return false;
            }
        }
        return true;
    }

    static String strictUtf8(byte[] line) {
        if (ascii(line)) {
            // Most lines, and a decoder costs a seventh of reading one: an ASCII byte is its own character.
            return new String(line, StandardCharsets.US_ASCII);
        }
        try {
            return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(line)).toString();
        } catch (CharacterCodingException e) {
            throw new JsonAvroException("$", "the line is not valid UTF-8");
        }
    }

    private static boolean ascii(byte[] line) {
        for (byte b : line) {
            if (b < 0) {
                return false;
            }
        }
        return true;
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

    private static String plural(long count) {
        return count == 1 ? "" : "s";
    }

    static byte[] utf8(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
