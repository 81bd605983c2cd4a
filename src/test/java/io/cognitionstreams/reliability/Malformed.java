package io.cognitionstreams.reliability;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Arrays;
import java.util.Random;

import org.apache.avro.Schema;
import org.apache.avro.SchemaBuilder;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;
import org.apache.avro.message.BinaryMessageEncoder;

import io.cognitionstreams.assembly.ContextLayers;
import io.cognitionstreams.assembly.FieldCompressor;
import io.cognitionstreams.assembly.PacketAssembler;
import io.cognitionstreams.assembly.RequestValidator;
import io.cognitionstreams.load.Workload;
import io.cognitionstreams.assembly.TaskInstructions;
import io.cognitionstreams.topics.Channel;
import io.cognitionstreams.schema.CognitionPacket;
import io.cognitionstreams.schema.CognitionRequest;
import io.cognitionstreams.schema.ErrorKind;
import io.cognitionstreams.schema.LlmOutput;
import io.cognitionstreams.testing.Records;
import io.cognitionstreams.tokens.Tokenizers;
import io.cognitionstreams.topics.Topics;

/**
 * Every kind of bad record the soak sends, where it goes, and the dead letter it must get: the error kind and a
 * fragment of the reason. Records on llm.outputs are read by two capabilities; only routing, their owner, may
 * write the letter. Values are built from valid records, so each is wrong in exactly one way.
 */
enum Malformed {

    BAD_BYTES(Topics.COGNITION_REQUESTS, ErrorKind.DESERIALIZATION, "not an Avro single-object encoded") {
        @Override
        byte[] value(Samples samples, long n, Random random) {
            byte[] bytes = new byte[1 + random.nextInt(300)];
            random.nextBytes(bytes);
            bytes[0] = (byte) 'x';
            return bytes;
        }
    },
    TRUNCATED(Topics.COGNITION_REQUESTS, ErrorKind.DESERIALIZATION, "is not a valid") {
        @Override
        byte[] value(Samples samples, long n, Random random) {
            byte[] whole = samples.request(n, "Triage the crash bug " + n);
            return Arrays.copyOf(whole, 12 + random.nextInt(whole.length - 14));
        }
    },
    BAD_UTF8(Topics.COGNITION_REQUESTS, ErrorKind.DESERIALIZATION, "$.user_prompt is not valid UTF-8") {
        @Override
        byte[] value(Samples samples, long n, Random random) {
            return replace(samples.request(n, "Triage the MARK bug"), "MARK", new byte[] {'a', (byte) 0xC3, 0x28, 'b'});
        }
    },
    TRAILING_BYTES(Topics.COGNITION_REQUESTS, ErrorKind.DESERIALIZATION, "after the end of the record") {
        @Override
        byte[] value(Samples samples, long n, Random random) {
            byte[] whole = samples.request(n, "Triage the crash bug " + n);
            return Arrays.copyOf(whole, whole.length + 1 + random.nextInt(8));
        }
    },
    /** A well-formed record of another type: an LLM output where a request belongs. */
    WRONG_TYPE(Topics.COGNITION_REQUESTS, ErrorKind.DESERIALIZATION, "LlmOutput") {
        @Override
        byte[] value(Samples samples, long n, Random random) {
            return samples.output(n, "RESPONSE: misplaced");
        }
    },
    /** Written with a schema that lacks required fields, which this app has never seen. */
    UNKNOWN_SCHEMA(Topics.COGNITION_REQUESTS, ErrorKind.DESERIALIZATION, "schema this app does not know") {
        @Override
        byte[] value(Samples samples, long n, Random random) {
            return samples.partialRequest(n);
        }
    },
    TOMBSTONE(Topics.COGNITION_REQUESTS, ErrorKind.VALIDATION, "is null") {
        @Override
        byte[] value(Samples samples, long n, Random random) {
            return null;
        }
    },
    MISSING_SESSION(Topics.COGNITION_REQUESTS, ErrorKind.VALIDATION, "session_id is empty") {
        @Override
        byte[] value(Samples samples, long n, Random random) {
            return samples.requests(samples.valid(n, "Triage it").setSessionId(" ").build());
        }
    },
    OVERSIZED_PROMPT(Topics.COGNITION_REQUESTS, ErrorKind.VALIDATION, "over the limit") {
        @Override
        byte[] value(Samples samples, long n, Random random) {
            return samples.request(n, "x".repeat(RequestValidator.MAX_PROMPT_CHARS + 1));
        }
    },
    MTU_OUT_OF_RANGE(Topics.COGNITION_REQUESTS, ErrorKind.VALIDATION, "is outside") {
        @Override
        byte[] value(Samples samples, long n, Random random) {
            return samples.requests(samples.valid(n, "Triage it").setMtu(random.nextBoolean() ? 12 : -4).build());
        }
    },
    UNKNOWN_INSTRUCTION(Topics.COGNITION_REQUESTS, ErrorKind.VALIDATION, "unknown task_instruction_key") {
        @Override
        byte[] value(Samples samples, long n, Random random) {
            return samples.requests(samples.valid(n, "Triage it").setTaskInstructionKey("obey_me").build());
        }
    },
    /** A history message whose role is enum symbol 9 of 4. */
    BAD_ENUM_INDEX(Topics.COGNITION_PACKETS, ErrorKind.DESERIALIZATION, "out of range") {
        @Override
        byte[] value(Samples samples, long n, Random random) {
            return samples.packetWithHistory(n, encoder -> {
                encoder.writeArrayStart();
                encoder.setItemCount(1);
                encoder.writeEnum(9);
                encoder.writeString("who am I");
                encoder.writeIndex(0);
                encoder.writeIndex(0);
                encoder.writeIndex(0);
                encoder.writeArrayEnd();
            });
        }
    },
    /** A history array that declares a billion messages, then ends. */
    HUGE_ARRAY(Topics.COGNITION_PACKETS, ErrorKind.DESERIALIZATION, "is not a valid") {
        @Override
        byte[] value(Samples samples, long n, Random random) {
            return samples.packetWithHistory(n, encoder -> encoder.writeLong(1_000_000_000L));
        }
    },
    OUTPUT_BAD_BYTES(Topics.LLM_OUTPUTS, ErrorKind.DESERIALIZATION, "not an Avro single-object encoded") {
        @Override
        byte[] value(Samples samples, long n, Random random) {
            return BAD_BYTES.value(samples, n, random);
        }
    },
    OUTPUT_WITHOUT_ID(Topics.LLM_OUTPUTS, ErrorKind.VALIDATION, "empty session_id or output_id") {
        @Override
        byte[] value(Samples samples, long n, Random random) {
            return samples.outputs(Records.output(samples.session(n), "RESPONSE: hi").setOutputId("")
                    .setRequestId(samples.requestId(n)).build());
        }
    },
    MEMORY_BAD_BYTES(Topics.channelTopic(Channel.MEMORY), ErrorKind.DESERIALIZATION,
            "not an Avro single-object encoded") {
        @Override
        byte[] value(Samples samples, long n, Random random) {
            return BAD_BYTES.value(samples, n, random);
        }
    };

    private final String topic;
    private final ErrorKind kind;
    private final String reason;

    Malformed(String topic, ErrorKind kind, String reason) {
        this.topic = topic;
        this.kind = kind;
        this.reason = reason;
    }

    String topic() {
        return topic;
    }

    ErrorKind kind() {
        return kind;
    }

    /** A fragment the dead letter's reason must contain. */
    String reason() {
        return reason;
    }

    /** The bad value of record {@code n} (null: a tombstone). */
    abstract byte[] value(Samples samples, long n, Random random);

    static byte[] replace(byte[] bytes, String marker, byte[] replacement) {
        byte[] needle = marker.getBytes(StandardCharsets.UTF_8);
        for (int i = 0; i + needle.length <= bytes.length; i++) {
            if (Arrays.equals(bytes, i, i + needle.length, needle, 0, needle.length)) {
                if (replacement.length != needle.length) {
                    throw new IllegalArgumentException("the replacement must keep the length, or the record breaks");
                }
                byte[] copy = bytes.clone();
                System.arraycopy(replacement, 0, copy, i, replacement.length);
                return copy;
            }
        }
        throw new IllegalArgumentException(marker + " not found");
    }

    /** Valid records of one run to break, keyed like the app's own: ids {@code <run>-bad-<n>}, sessions alike. */
    static final class Samples {
        private final Topics topics;
        private final String run;
        private final PacketAssembler assembler;

        Samples(Topics topics, String run) {
            this.topics = topics;
            this.run = run;
            Tokenizers tokenizers = new Tokenizers();
            assembler = new PacketAssembler(tokenizers, TaskInstructions.defaults(tokenizers),
                    ContextLayers.defaults(FieldCompressor.NONE), FieldCompressor.NONE);
        }

        String requestId(long n) {
            return run + "-bad-" + n;
        }

        String session(long n) {
            return run + "-bad-s" + n;
        }

        CognitionRequest.Builder valid(long n, String prompt) {
            return CognitionRequest.newBuilder(Workload.NO_MEMORY.request(run, n, Instant.now()))
                    .setRequestId(requestId(n)).setSessionId(session(n)).setUserPrompt(prompt);
        }

        byte[] request(long n, String prompt) {
            return requests(valid(n, prompt).build());
        }

        /** Without the app's output guard: a client may write what the app itself never would. */
        byte[] requests(CognitionRequest request) {
            return topics.serde(CognitionRequest.class).serializer().serialize(Topics.COGNITION_REQUESTS, request);
        }

        byte[] output(long n, String text) {
            return outputs(Records.output(session(n), text).setRequestId(requestId(n)).build());
        }

        byte[] outputs(LlmOutput output) {
            return topics.serde(LlmOutput.class).serializer().serialize(Topics.LLM_OUTPUTS, output);
        }

        /** A request written with a schema that has only request_id: single-object encoded, fingerprint unknown. */
        byte[] partialRequest(long n) {
            Schema partial = SchemaBuilder.record("CognitionRequest").namespace("io.cognitionstreams.schema")
                    .fields().requiredString("request_id").endRecord();
            GenericRecord record = new GenericData.Record(partial);
            record.put("request_id", requestId(n));
            try {
                ByteBuffer buffer = new BinaryMessageEncoder<GenericRecord>(GenericData.get(), partial).encode(record);
                byte[] bytes = new byte[buffer.remaining()];
                buffer.get(bytes);
                return bytes;
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        /** A valid packet whose (empty) history array is replaced by what {@code history} writes. */
        byte[] packetWithHistory(long n, HistoryWriter history) {
            String marker = "HISTORY-FOLLOWS-" + n;
            CognitionPacket packet = assembler.assemble(Records.input(valid(n, marker).build())).packet();
            byte[] bytes = topics.packets.valueSerde().serializer().serialize(Topics.COGNITION_PACKETS, packet);
            // The empty history is one 0 byte, right before the user prompt's length and bytes.
            int prompt = indexOf(bytes, marker.getBytes(StandardCharsets.UTF_8));
            int array = prompt - 2;
            if (bytes[array] != 0) {
                throw new IllegalStateException("expected the empty history right before the prompt");
            }
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            out.write(bytes, 0, array);
            BinaryEncoder encoder = EncoderFactory.get().binaryEncoder(out, null);
            try {
                history.write(encoder);
                encoder.flush();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            out.write(bytes, array + 1, bytes.length - array - 1);
            return out.toByteArray();
        }

        private static int indexOf(byte[] bytes, byte[] needle) {
            for (int i = 0; i + needle.length <= bytes.length; i++) {
                if (Arrays.equals(bytes, i, i + needle.length, needle, 0, needle.length)) {
                    return i;
                }
            }
            throw new IllegalArgumentException("marker not in the packet");
        }
    }

    @FunctionalInterface
    interface HistoryWriter {
        void write(BinaryEncoder encoder) throws IOException;
    }
}
