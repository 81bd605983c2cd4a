package io.cognitionstreams.topology;

import java.util.Map;
import java.util.Optional;

import io.cognitionstreams.schema.RoutedBlock;

/** The last look at a block before its channel topic: what is still to redact in it (see {@link Outputs}). */
@FunctionalInterface
public interface ChannelCheck {

    /** Empty when the block may be written as it is. */
    Optional<Residue> residue(RoutedBlock block);

    /** The block to write instead, and what was found in it, per redaction type. */
    record Residue(RoutedBlock redacted, Map<String, Integer> found) {
    }
}
