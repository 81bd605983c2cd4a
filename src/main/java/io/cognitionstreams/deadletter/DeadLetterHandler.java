package io.cognitionstreams.deadletter;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.errors.DeserializationExceptionHandler;
import org.apache.kafka.streams.errors.ErrorHandlerContext;
import org.apache.kafka.streams.errors.ProcessingExceptionHandler;
import org.apache.kafka.streams.errors.ProductionExceptionHandler;
import org.apache.kafka.streams.processor.api.Record;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.cognitionstreams.schema.DeadLetter;
import io.cognitionstreams.schema.ErrorKind;
import io.cognitionstreams.serde.AvroSerdes;
import io.cognitionstreams.topics.OutputGuard;
import io.cognitionstreams.topics.Topics;

/**
 * Sends every record a topology cannot take to {@code cognition.dlq} and lets the stream go on. Kafka Streams
 * (KIP-1034) writes the returned letters in the task's own transaction, so under exactly-once a record is either
 * answered or dead-lettered, never both and never neither.
 *
 * <p>Serialization failures on the way out are dead-lettered too, and so are records the serializers refuse because
 * the broker would ({@link OutputGuard}). A record the broker refuses all the same (a limit changed since start)
 * fails the task: under exactly-once its transaction can only abort. The handler remembers the record; when the
 * replacement thread produces it again the guard refuses it, which tells the handler which input it came from; it
 * fails the task once more (other records of that input may already be in the transaction) and remembers the
 * input ({@link RefusedInputs}), which the next thread refuses before processing it: one letter, no half answer,
 * two restarts of the task. Any other
 * production error (broker down, authorization) fails the task, because resuming there would silently drop a
 * valid record. For the same reason a schema registry that cannot be reached fails the task (its thread is
 * replaced and retries from the last commit) instead of dead-lettering records that are fine.
 *
 * <p>On the global thread nothing can be sent: there the handler only lets the record pass, and the topic's owner
 * dead-letters it ({@link io.cognitionstreams.topology.GlobalMirror}).
 */
public class DeadLetterHandler
        implements DeserializationExceptionHandler, ProcessingExceptionHandler, ProductionExceptionHandler {

    /**
     * Topics this application reads but another capability owns (comma-separated). Their undecodable or invalid
     * records are dead-lettered by the owner; this one skips them, so one bad record makes one letter.
     */
    public static final String SECONDARY_INPUTS = "cognition.dead-letter.secondary-inputs";

    private static final Logger LOG = LoggerFactory.getLogger(DeadLetterHandler.class);

    private final Serializer<String> keys = new StringSerializer();
    private Serializer<DeadLetter> letters;
    private String applicationId;
    private Set<String> secondaryInputs = Set.of();

    @Override
    public void configure(Map<String, ?> configs) {
        letters = AvroSerdes.fromConfig(configs).serde(DeadLetter.class).serializer();
        Object id = configs.get(StreamsConfig.APPLICATION_ID_CONFIG);
        applicationId = id == null ? null : id.toString();
        Object secondary = configs.get(SECONDARY_INPUTS);
        if (secondary != null && !secondary.toString().isBlank()) {
            secondaryInputs = Set.of(secondary.toString().split(","));
        }
    }

    @Override
    public DeserializationExceptionHandler.Response handleError(ErrorHandlerContext context,
                                                                ConsumerRecord<byte[], byte[]> record,
                                                                Exception exception) {
        if (AvroSerdes.isRegistryOutage(exception)) {
            return DeserializationExceptionHandler.Response.fail();
        }
        if (secondaryInputs.contains(context.topic()) || isGlobal(context)) {
            return DeserializationExceptionHandler.Response.resume();
        }
        return DeserializationExceptionHandler.Response.resume(letter(ErrorKind.DESERIALIZATION, context, exception,
                record.key(), record.value()));
    }

    @Override
    public ProcessingExceptionHandler.Response handleError(ErrorHandlerContext context, Record<?, ?> record,
                                                           Exception exception) {
        if (isClientFailure(exception)) {
            // A send that failed, a broken store: not the record's fault, and the transaction is lost anyway.
            return ProcessingExceptionHandler.Response.fail();
        }
        ErrorKind kind = kindOf(exception);
        if ((kind == ErrorKind.VALIDATION && secondaryInputs.contains(context.topic())) || isGlobal(context)) {
            return ProcessingExceptionHandler.Response.resume();
        }
        return ProcessingExceptionHandler.Response.resume(letter(kind, context, exception,
                context.sourceRawKey(), context.sourceRawValue()));
    }

    @Override
    public ProductionExceptionHandler.Response handleSerializationError(ErrorHandlerContext context,
                                                                       ProducerRecord record, Exception exception,
                                                                       SerializationExceptionOrigin origin) {
        if (AvroSerdes.isRegistryOutage(exception)) {
            return ProductionExceptionHandler.Response.fail();
        }
        if (exception instanceof OutputGuard.RefusedBeforeException refused && context.topic() != null) {
            RefusedInputs.remember(applicationId, context.topic(), context.partition(), context.offset(),
                    refused.brokerReason());
            LOG.error("{} led to a record the broker refused ({}): the task restarts once more, and the input is "
                    + "dead-lettered before anything of it is written", DeadLetters.key(context.topic(),
                    context.partition(), context.offset()), refused.brokerReason());
            return ProductionExceptionHandler.Response.fail();
        }
        return ProductionExceptionHandler.Response.resume(letter(kindOf(exception), context, exception,
                context.sourceRawKey(), context.sourceRawValue()));
    }

    @Override
    public ProductionExceptionHandler.Response handleError(ErrorHandlerContext context,
                                                           ProducerRecord<byte[], byte[]> record,
                                                           Exception exception) {
        if (OutputGuard.isRefusalOfTheRecord(exception)) {
            String reason = OutputGuard.remember(record.topic(), record.value(), exception);
            LOG.error("the broker refused a record for {} ({}): the transaction aborts and the task restarts, and "
                    + "the input that produced the record is dead-lettered when it is read again", record.topic(),
                    reason);
        }
        return ProductionExceptionHandler.Response.fail();
    }

    /**
     * A broken rule, or an output too big or too odd for its topic (which the input it came from made so), is the
     * record's fault; anything else is the code's.
     */
    private static ErrorKind kindOf(Exception exception) {
        return exception instanceof InvalidRecordException || exception instanceof OutputGuard.RefusedOutputException
                ? ErrorKind.VALIDATION : ErrorKind.PROCESSING;
    }

    /**
     * Whether a processor failed because a Kafka client or Kafka Streams did (a send refused after the producer's
     * transaction failed, a state store that cannot write), which is no rule the record broke. Serialization
     * failures are the record's and stay letters.
     */
    static boolean isClientFailure(Exception exception) {
        return exception instanceof KafkaException && !(exception instanceof SerializationException);
    }

    /** The global thread's task id is -1_-1; it has no record collector to send a letter with. */
    private static boolean isGlobal(ErrorHandlerContext context) {
        return context.taskId() == null || context.taskId().subtopology() < 0;
    }

    private List<ProducerRecord<byte[], byte[]>> letter(ErrorKind kind, ErrorHandlerContext context,
                                                        Exception exception, byte[] key, byte[] value) {
        DeadLetters.Origin origin = new DeadLetters.Origin(context.topic(), context.partition(), context.offset(),
                context.processorNodeId(), applicationId);
        DeadLetter letter = DeadLetters.of(kind, exception, origin, key, value, Instant.now());
        LOG.warn("dead-lettered {} from {}: {}", kind, DeadLetters.key(origin.topic(), origin.partition(),
                origin.offset()), letter.getReason());
        String letterKey = DeadLetters.key(origin.topic(), origin.partition(), origin.offset());
        return List.of(new ProducerRecord<>(Topics.COGNITION_DLQ, keys.serialize(Topics.COGNITION_DLQ, letterKey),
                letters.serialize(Topics.COGNITION_DLQ, letter)));
    }
}
