package io.cognitionstreams.serde;

import java.nio.ByteBuffer;

import org.apache.avro.AvroRuntimeException;
import org.apache.avro.Schema;
import org.apache.avro.message.BadHeaderException;
import org.apache.avro.message.BinaryMessageDecoder;
import org.apache.avro.message.BinaryMessageEncoder;
import org.apache.avro.message.MissingSchemaException;
import org.apache.avro.message.SchemaStore;
import org.apache.avro.specific.SpecificData;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.Serializer;

/**
 * Registry-less default: Avro single-object encoding (header C3 01, then the schema's 8-byte fingerprint, then the
 * binary body). The fingerprint lets a reader pick the writer's schema from the {@link SchemaStore}, so a record
 * written with an older schema version still decodes after the app's schema has evolved compatibly: the store
 * knows every schema a released version wrote with ({@link SchemaHistory}).
 */
public final class SingleObjectAvroSerdeFactory implements AvroSerdeFactory {

    private final SchemaStore.Cache knownSchemas = new SchemaStore.Cache();

    public SingleObjectAvroSerdeFactory() {
        TrustedPackages.allowGeneratedClasses();
        SchemaHistory.schemas().forEach(knownSchemas::addSchema);
    }

    /** Registers an older writer schema so records written with it still decode. */
    public SingleObjectAvroSerdeFactory withPastSchema(Schema schema) {
        knownSchemas.addSchema(schema);
        return this;
    }

    @Override
    public <T extends SpecificRecord> Serde<T> serde(Class<T> type) {
        SpecificData model = SpecificData.getForClass(type);
        Schema schema = model.getSchema(type);
        knownSchemas.addSchema(schema);
        BinaryMessageEncoder<T> encoder = new BinaryMessageEncoder<>(model, schema);
        BinaryMessageDecoder<T> decoder = new BinaryMessageDecoder<>(model, schema, knownSchemas);
        return Serdes.serdeFrom(new Writer<>(encoder), new Reader<>(decoder, knownSchemas, schema.getFullName(),
                SingleObjectHeader.hex(SingleObjectHeader.of(schema))));
    }

    @Override
    public String describe() {
        return "avro single-object encoding (no registry)";
    }

    private record Writer<T>(BinaryMessageEncoder<T> encoder) implements Serializer<T> {
        @Override
        public byte[] serialize(String topic, T data) {
            if (data == null) {
                return null;
            }
            try {
                ByteBuffer buffer = encoder.encode(data);
                byte[] bytes = new byte[buffer.remaining()];
                buffer.get(bytes);
                return bytes;
            } catch (Exception e) {
                throw new SerializationException("cannot encode " + data.getClass().getSimpleName()
                        + " for topic " + topic + ": " + e.getMessage(), e);
            }
        }
    }

    private record Reader<T>(BinaryMessageDecoder<T> decoder, SchemaStore schemas, String typeName,
                             String header) implements Deserializer<T> {
        @Override
        public T deserialize(String topic, byte[] data) {
            if (data == null) {
                return null;
            }
            try {
                // Walked before Avro decodes: Avro allocates whatever a length declares (StrictBody says more).
                Schema writer = data.length < SingleObjectHeader.LENGTH ? null
                        : schemas.findByFingerprint(SingleObjectHeader.fingerprint(data));
                if (writer != null) {
                    StrictBody.requireValid(writer, data, SingleObjectHeader.LENGTH);
                }
                return decoder.decode(data);
            } catch (BadHeaderException e) {
                throw new SerializationException("value on " + topic + " is not an Avro single-object encoded "
                        + typeName + " (expected header C3 01): " + e.getMessage(), e);
            } catch (MissingSchemaException e) {
                // Not chained: Avro's message names the fingerprint as a signed long, and the dead letter's
                // reason would quote it next to the bytes.
                throw new SerializationException("value on " + topic + " was written with a schema this app does "
                        + "not know: header " + SingleObjectHeader.hex(data) + ", where the app's " + typeName
                        + " has " + header + " (`cognition schema` lists each topic's)");
            } catch (Exception e) {
                throw new SerializationException("value on " + topic + " is not a valid " + typeName + ": "
                        + describe(e), e);
            }
        }
    }

    static String describe(Exception e) {
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        String message = root.getMessage();
        return root.getClass().getSimpleName() + (message == null ? "" : ": " + message);
    }
}
