package io.cognitionstreams.assembly;

import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.kstream.Named;

import io.cognitionstreams.topics.Topics;

/** cognition.requests -> validate -> assemble within budget -> cognition.packets. */
public final class AssemblyTopology {

    public static final String NAME = "assembly";

    private AssemblyTopology() {
    }

    public static void build(StreamsBuilder builder, Topics topics, PacketAssembler assembler) {
        // Keyed by session already, so no repartition: a session's requests are assembled in order in one task.
        builder.stream(topics.requests.name(), topics.requests.consumed())
                .mapValues(RequestValidator::requireValid, Named.as("validate-request"))
                .mapValues(assembler::assemble, Named.as("assemble-packet"))
                .to(topics.packets.name(), topics.packets.produced());
    }
}
