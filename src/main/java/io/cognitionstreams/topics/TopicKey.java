package io.cognitionstreams.topics;

import java.util.Objects;
import java.util.function.Function;

import org.apache.avro.Schema;
import org.apache.avro.generic.IndexedRecord;
import org.apache.avro.specific.SpecificData;
import org.apache.avro.specific.SpecificRecord;

/**
 * How the app keys a topic's records, so anything else that writes to the topic (the CLI) puts a record in the
 * partition the app's own records of that session, council or skill are in.
 *
 * @param description what the key is, for humans: a field path, or how it is built
 * @param function    the key of a value; null when the value has no key (a null field)
 */
public record TopicKey<V>(String description, Function<V, String> function) {

    public TopicKey {
        Objects.requireNonNull(description, "description");
        Objects.requireNonNull(function, "function");
    }

    /**
     * The value of a field, a dotted path for a field of a nested record ({@code call.session_id}). The path is
     * checked against the schema here, so a misspelt key fails when the topics are defined, not on some record.
     */
    public static <V extends SpecificRecord> TopicKey<V> field(Class<V> type, String path) {
        String[] names = path.split("\\.");
        Schema schema = SpecificData.getForClass(type).getSchema(type);
        for (String name : names) {
            Schema.Field field = recordOf(schema).getField(name);
            if (field == null) {
                throw new IllegalArgumentException(type.getSimpleName() + " has no field " + path);
            }
            schema = field.schema();
        }
        return new TopicKey<>(path, value -> {
            Object current = value;
            for (String name : names) {
                if (current == null) {
                    return null;
                }
                IndexedRecord record = (IndexedRecord) current;
                current = record.get(record.getSchema().getField(name).pos());
            }
            return current == null ? null : current.toString();
        });
    }

    /** The same key for every record: a topic that holds one current value (the identity). */
    public static <V> TopicKey<V> fixed(String key) {
        return new TopicKey<>("\"" + key + "\" (fixed)", value -> key);
    }

    public String of(V value) {
        return function.apply(value);
    }

    /** A record field's own record schema, looking through a nullable union. */
    private static Schema recordOf(Schema schema) {
        if (schema.getType() == Schema.Type.UNION) {
            return schema.getTypes().stream().filter(branch -> branch.getType() == Schema.Type.RECORD).findFirst()
                    .orElseThrow(() -> new IllegalArgumentException(schema + " holds no record"));
        }
        if (schema.getType() != Schema.Type.RECORD) {
            throw new IllegalArgumentException(schema.getName() + " is not a record");
        }
        return schema;
    }
}
