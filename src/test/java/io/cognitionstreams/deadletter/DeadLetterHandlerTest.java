package io.cognitionstreams.deadletter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

import org.apache.avro.Schema;
import org.apache.avro.SchemaBuilder;
import org.apache.avro.SchemaNormalization;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.generic.GenericRecordBuilder;
import org.apache.avro.message.BinaryMessageEncoder;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.errors.DeserializationExceptionHandler;
import org.apache.kafka.streams.errors.ErrorHandlerContext;
import org.apache.kafka.streams.errors.ProcessingExceptionHandler;
import org.apache.kafka.streams.errors.ProductionExceptionHandler;
import org.apache.kafka.streams.errors.StreamsException;
import org.apache.kafka.streams.processor.TaskId;
import org.apache.kafka.streams.processor.api.Record;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.cognitionstreams.schema.CognitionRequest;
import io.cognitionstreams.schema.DeadLetter;
import io.cognitionstreams.schema.ErrorKind;
import io.cognitionstreams.serde.SingleObjectAvroSerdeFactory;
import io.cognitionstreams.topics.OutputGuard;
import io.cognitionstreams.topics.OutputLimits;
import io.cognitionstreams.testing.Records;
import io.cognitionstreams.testing.SingleObject;
import io.cognitionstreams.topics.Topics;

class DeadLetterHandlerTest {

    private static final byte[] KEY = "s1".getBytes(StandardCharsets.UTF_8);
    private static final byte[] VALUE = "garbage".getBytes(StandardCharsets.UTF_8);

    private final DeadLetterHandler handler = new DeadLetterHandler();
    private final ErrorHandlerContext context = new Context("cognition.requests", 2, 41L, "validate-request");

    @BeforeEach
    void configure() {
        handler.configure(Map.of(StreamsConfig.APPLICATION_ID_CONFIG, "app-1"));
    }

    @Test
    void anUndecodableRecordBecomesADeserializationLetterAndTheStreamResumes() {
        DeserializationExceptionHandler.Response response = handler.handleError(context,
                new ConsumerRecord<>("cognition.requests", 2, 41L, KEY, VALUE),
                new SerializationException("not Avro"));

        assertThat(response.result()).isEqualTo(DeserializationExceptionHandler.Result.RESUME);
        DeadLetter letter = onlyLetter(response.deadLetterQueueRecords());
        assertThat(letter.getErrorKind()).isEqualTo(ErrorKind.DESERIALIZATION);
        assertThat(letter.getReason()).isEqualTo("not Avro");
        assertThat(letter.getErrorClass()).isEqualTo(SerializationException.class.getName());
        assertThat(letter.getSourceTopic()).isEqualTo("cognition.requests");
        assertThat(letter.getSourcePartition()).isEqualTo(2);
        assertThat(letter.getSourceOffset()).isEqualTo(41L);
        assertThat(letter.getApplicationId()).isEqualTo("app-1");
        assertThat(letter.getKey().array()).isEqualTo(KEY);
        assertThat(letter.getValue().array()).isEqualTo(VALUE);
        assertThat(letter.getValueSize()).isEqualTo(VALUE.length);
    }

    @Test
    void aRecordWithAnUnknownSchemaIsLetteredWithItsHeaderInHexAsOnTheWire() throws Exception {
        Schema foreign = SchemaBuilder.record("CognitionRequest").namespace("io.cognitionstreams.schema")
                .fields().requiredString("request_id").endRecord();
        GenericRecord record = new GenericRecordBuilder(foreign).set("request_id", "r1").build();
        ByteBuffer encoded = new BinaryMessageEncoder<GenericRecord>(GenericData.get(), foreign).encode(record);
        byte[] value = new byte[encoded.remaining()];
        encoded.get(value);
        byte[] ours = new SingleObjectAvroSerdeFactory().serde(CognitionRequest.class).serializer()
                .serialize(Topics.COGNITION_REQUESTS, Records.request("s1", "hello").build());
        SerializationException refused = catchThrowableOfType(SerializationException.class,
                () -> new SingleObjectAvroSerdeFactory().serde(CognitionRequest.class).deserializer()
                        .deserialize(Topics.COGNITION_REQUESTS, value));

        DeadLetter letter = onlyLetter(handler.handleError(context,
                new ConsumerRecord<>("cognition.requests", 2, 41L, KEY, value), refused).deadLetterQueueRecords());

        assertThat(letter.getReason()).isEqualTo("value on cognition.requests was written with a schema this app "
                + "does not know: header " + SingleObject.hex(value) + ", where the app's io.cognitionstreams.schema."
                + "CognitionRequest has " + SingleObject.hex(ours) + " (`cognition schema` lists each topic's)");
        assertThat(letter.getReason()).doesNotContain(
                Long.toString(SchemaNormalization.parsingFingerprint64(foreign)));
    }

    @Test
    void aBrokenRuleIsAValidationLetterAndABugAProcessingLetter() {
        ProcessingExceptionHandler.Response invalid = handler.handleError(context, new Record<>("s1", "v", 0L),
                new InvalidRecordException("user_prompt is empty"));
        ProcessingExceptionHandler.Response bug = handler.handleError(context, new Record<>("s1", "v", 0L),
                new IllegalStateException("outer", new NullPointerException("inner cause")));

        assertThat(invalid.result()).isEqualTo(ProcessingExceptionHandler.Result.RESUME);
        DeadLetter validation = onlyLetter(invalid.deadLetterQueueRecords());
        assertThat(validation.getErrorKind()).isEqualTo(ErrorKind.VALIDATION);
        assertThat(validation.getProcessor()).isEqualTo("validate-request");
        DeadLetter processing = onlyLetter(bug.deadLetterQueueRecords());
        assertThat(processing.getErrorKind()).isEqualTo(ErrorKind.PROCESSING);
        assertThat(processing.getReason()).isEqualTo("outer <- inner cause");
    }

    @Test
    void aProcessorFailingBecauseKafkaDidFailsTheTaskInsteadOfBlamingTheRecord() {
        ProcessingExceptionHandler.Response sendFailed = handler.handleError(context, new Record<>("s1", "v", 0L),
                new StreamsException("Error encountered trying to send record to topic channel.discord_chat",
                        new KafkaException("Cannot perform send because at least one previous transactional or "
                                + "idempotent request has failed with errors.")));
        ProcessingExceptionHandler.Response unserializable = handler.handleError(context,
                new Record<>("s1", "v", 0L), new SerializationException("not a packet"));

        assertThat(sendFailed.result()).isEqualTo(ProcessingExceptionHandler.Result.FAIL);
        assertThat(sendFailed.deadLetterQueueRecords()).isEmpty();
        assertThat(onlyLetter(unserializable.deadLetterQueueRecords()).getErrorKind())
                .isEqualTo(ErrorKind.PROCESSING);
    }

    @Test
    void hugeValuesAreCutButTheirSizeIsKept() {
        byte[] huge = new byte[DeadLetters.MAX_KEPT_BYTES + 10];
        DeserializationExceptionHandler.Response response = handler.handleError(context,
                new ConsumerRecord<>("cognition.requests", 2, 41L, KEY, huge), new SerializationException("big"));

        DeadLetter letter = onlyLetter(response.deadLetterQueueRecords());
        assertThat(letter.getValue().remaining()).isEqualTo(DeadLetters.MAX_KEPT_BYTES);
        assertThat(letter.getValueSize()).isEqualTo(huge.length);
    }

    @Test
    void anOutputThatCannotBeSerializedIsDeadLetteredButABrokerErrorFailsTheTask() {
        ProducerRecord<byte[], byte[]> out = new ProducerRecord<>("cognition.packets", KEY, VALUE);

        assertThat(handler.handleSerializationError(context, out, new SerializationException("bad"),
                ProductionExceptionHandler.SerializationExceptionOrigin.VALUE).result())
                .isEqualTo(ProductionExceptionHandler.Result.RESUME);
        assertThat(handler.handleError(context, out, new RuntimeException("broker gone")).result())
                .isEqualTo(ProductionExceptionHandler.Result.FAIL);
    }

    @Test
    void aRecordTheBrokerRefusedFailsTheTaskTwiceThenItsInputIsRefusedBeforeItIsProcessed() {
        byte[] value = "an output the topic's new limit is too small for".getBytes(StandardCharsets.UTF_8);
        ProducerRecord<byte[], byte[]> out = new ProducerRecord<>(Topics.CHANNEL_PREFIX + "cli_chat", KEY, value);

        assertThat(handler.handleError(context, out, new RecordTooLargeException("The request included a message "
                + "larger than the max message size the server will accept.")).result())
                .as("the transaction can only abort").isEqualTo(ProductionExceptionHandler.Result.FAIL);

        Serializer<byte[]> guarded = OutputGuard.values(Serdes.ByteArray(), OutputLimits.defaults()).serializer();
        OutputGuard.RefusedBeforeException again = catchThrowableOfType(OutputGuard.RefusedBeforeException.class,
                () -> guarded.serialize(out.topic(), value));
        assertThat(again).hasMessage("the broker refused a record for channel.cli_chat that this input led to: "
                + "RecordTooLargeException: The request included a message larger than the max message size the "
                + "server will accept.");
        assertThat(guarded.serialize(out.topic(), value)).as("refused once, then forgotten").isEqualTo(value);

        assertThat(handler.handleSerializationError(context, out, again,
                ProductionExceptionHandler.SerializationExceptionOrigin.VALUE).result())
                .as("other records of the input may be in the transaction").isEqualTo(
                        ProductionExceptionHandler.Result.FAIL);
        assertThat(RefusedInputs.take("app-1", "cognition.requests", 2, 41L)).hasValue(again.brokerReason());
        assertThat(RefusedInputs.take("app-1", "cognition.requests", 2, 41L)).as("refused once").isEmpty();
    }

    @Test
    void onTheGlobalThreadNothingIsSentBecauseNothingCanBe() {
        ErrorHandlerContext global = new Context("cognition.skills", 0, 7L, "from-cognition.skills") {
            @Override
            public TaskId taskId() {
                return new TaskId(-1, -1);
            }
        };

        DeserializationExceptionHandler.Response undecodable = handler.handleError(global,
                new ConsumerRecord<>("cognition.skills", 0, 7L, KEY, VALUE), new SerializationException("not Avro"));
        ProcessingExceptionHandler.Response bug = handler.handleError(global, new Record<>("git", "v", 0L),
                new IllegalStateException("bug"));

        assertThat(undecodable.result()).isEqualTo(DeserializationExceptionHandler.Result.RESUME);
        assertThat(undecodable.deadLetterQueueRecords()).isEmpty();
        assertThat(bug.result()).isEqualTo(ProcessingExceptionHandler.Result.RESUME);
        assertThat(bug.deadLetterQueueRecords()).isEmpty();
    }

    @Test
    void aLetterKeepsAtMostItsCapsWhateverTheRecordAndTheReason() {
        byte[] hugeKey = new byte[DeadLetters.MAX_KEPT_KEY_BYTES * 3];
        byte[] hugeValue = new byte[DeadLetters.MAX_KEPT_BYTES * 3];
        String hugeReason = "\uD83D\uDE00".repeat(DeadLetters.MAX_REASON_CHARS);

        DeadLetter letter = DeadLetters.of(ErrorKind.VALIDATION, new InvalidRecordException(hugeReason),
                new DeadLetters.Origin("cognition.requests", 0, 1L, "x", "app"), hugeKey, hugeValue,
                java.time.Instant.EPOCH);

        assertThat(letter.getKey().remaining()).isEqualTo(DeadLetters.MAX_KEPT_KEY_BYTES);
        assertThat(letter.getValue().remaining()).isEqualTo(DeadLetters.MAX_KEPT_BYTES);
        assertThat(letter.getReason()).hasSizeLessThan(DeadLetters.MAX_REASON_CHARS + 64)
                .endsWith("more characters)").doesNotContain("\uFFFD");
        byte[] serialized = new SingleObjectAvroSerdeFactory().serde(DeadLetter.class).serializer()
                .serialize(Topics.COGNITION_DLQ, letter);
        assertThat(serialized.length).isLessThan(DeadLetters.MAX_LETTER_BYTES);
    }

    @Test
    void anUnreachableSchemaRegistryFailsTheTaskInsteadOfDeadLetteringGoodRecords() {
        SerializationException outage = new SerializationException("cannot register",
                new java.net.ConnectException("Connection refused"));

        assertThat(handler.handleError(context, new ConsumerRecord<>("cognition.requests", 2, 41L, KEY, VALUE),
                outage).result()).isEqualTo(DeserializationExceptionHandler.Result.FAIL);
        assertThat(handler.handleSerializationError(context, new ProducerRecord<>("cognition.packets", KEY, VALUE),
                outage, ProductionExceptionHandler.SerializationExceptionOrigin.VALUE).result())
                .isEqualTo(ProductionExceptionHandler.Result.FAIL);
    }

    @Test
    void badRecordsOnATopicAnotherCapabilityOwnsAreLeftToItsOwnerButBugsAreStillLettered() {
        DeadLetterHandler secondary = new DeadLetterHandler();
        secondary.configure(Map.of(StreamsConfig.APPLICATION_ID_CONFIG, "app-assembly",
                DeadLetterHandler.SECONDARY_INPUTS, "llm.outputs,tool.decisions"));
        ErrorHandlerContext onOutputs = new Context("llm.outputs", 0, 3L, "remember-output");

        DeserializationExceptionHandler.Response undecodable = secondary.handleError(onOutputs,
                new ConsumerRecord<>("llm.outputs", 0, 3L, KEY, VALUE), new SerializationException("not Avro"));
        ProcessingExceptionHandler.Response invalid = secondary.handleError(onOutputs, new Record<>("s1", "v", 0L),
                new InvalidRecordException("no session"));
        ProcessingExceptionHandler.Response bug = secondary.handleError(onOutputs, new Record<>("s1", "v", 0L),
                new IllegalStateException("bug"));

        assertThat(undecodable.result()).isEqualTo(DeserializationExceptionHandler.Result.RESUME);
        assertThat(undecodable.deadLetterQueueRecords()).isEmpty();
        assertThat(invalid.deadLetterQueueRecords()).isEmpty();
        assertThat(onlyLetter(bug.deadLetterQueueRecords()).getErrorKind()).isEqualTo(ErrorKind.PROCESSING);
    }

    private static DeadLetter onlyLetter(List<ProducerRecord<byte[], byte[]>> records) {
        assertThat(records).hasSize(1);
        ProducerRecord<byte[], byte[]> record = records.get(0);
        assertThat(record.topic()).isEqualTo(Topics.COGNITION_DLQ);
        DeadLetter letter = new SingleObjectAvroSerdeFactory().serde(DeadLetter.class).deserializer()
                .deserialize(Topics.COGNITION_DLQ, record.value());
        assertThat(new String(record.key(), StandardCharsets.UTF_8)).isEqualTo(DeadLetters.key(
                letter.getSourceTopic(), letter.getSourcePartition(), letter.getSourceOffset()));
        return letter;
    }

    private static class Context implements ErrorHandlerContext {
        private final String topic;
        private final int partition;
        private final long offset;
        private final String processorNodeId;

        Context(String topic, int partition, long offset, String processorNodeId) {
            this.topic = topic;
            this.partition = partition;
            this.offset = offset;
            this.processorNodeId = processorNodeId;
        }

        @Override
        public String topic() {
            return topic;
        }

        @Override
        public int partition() {
            return partition;
        }

        @Override
        public long offset() {
            return offset;
        }

        @Override
        public String processorNodeId() {
            return processorNodeId;
        }

        @Override
        public Headers headers() {
            return new RecordHeaders();
        }

        @Override
        public TaskId taskId() {
            return new TaskId(0, partition);
        }

        @Override
        public long timestamp() {
            return 0L;
        }

        @Override
        public byte[] sourceRawKey() {
            return KEY;
        }

        @Override
        public byte[] sourceRawValue() {
            return VALUE;
        }
    }
}
