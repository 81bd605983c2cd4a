package io.cognitionstreams.serde;

import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.serialization.Serde;

/**
 * Makes the value serde of every topic. Two wire formats exist: Avro single-object encoding with schemas built into
 * the app (no registry needed), and the Confluent wire format backed by a schema registry. Both decode either
 * generated class from the same {@code .avsc} files, so topologies never know which one runs.
 */
public interface AvroSerdeFactory {

    <T extends SpecificRecord> Serde<T> serde(Class<T> type);

    /** A short name for logs and the README: which wire format values are in. */
    String describe();
}
