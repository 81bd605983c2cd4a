package io.cognitionstreams.assembly;

import java.util.Collection;
import java.util.Iterator;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

import io.cognitionstreams.events.PipelineEvents;
import io.cognitionstreams.schema.ChatMessage;
import io.cognitionstreams.schema.CognitionRequest;
import io.cognitionstreams.schema.Persona;
import io.cognitionstreams.schema.Skill;

/**
 * Everything one packet is assembled from, gathered by the topology from its stores.
 *
 * @param source     where the request was read: the ids of the packet's events
 * @param identity   the governed identity text (the default when none was ever set)
 * @param persona    the persona the request named, or the default one
 * @param skill      the request's active skill, when it names one
 * @param skills     every known skill, for the tools index (read only if that layer has a budget)
 * @param memory     past experiences similar to a query, most similar first
 * @param history    the session's messages, newest first, each with its token count in the packet's encoding
 * @param reanchor   a skill protocol to put in front of the model after a denied tool call, if any
 * @param tools      the tools executors offer (cognition.tools), for the tools index and the native tool specs
 */
public record AssemblyInput(CognitionRequest request, PipelineEvents.Source source, String identity, Persona persona,
                            Optional<Skill> skill, Supplier<Collection<Skill>> skills, MemorySearch memory,
                            Supplier<Iterator<ChatMessage>> history, Optional<String> reanchor,
                            Supplier<RenderedTools> tools) {

    /** With no executor's tools. */
    public AssemblyInput(CognitionRequest request, PipelineEvents.Source source, String identity, Persona persona,
                         Optional<Skill> skill, Supplier<Collection<Skill>> skills, MemorySearch memory,
                         Supplier<Iterator<ChatMessage>> history, Optional<String> reanchor) {
        this(request, source, identity, persona, skill, skills, memory, history, reanchor, () -> RenderedTools.EMPTY);
    }

    /** Finds past experiences for the episodic-memory layer. */
    @FunctionalInterface
    public interface MemorySearch {
        List<String> similar(String query, int k);

        MemorySearch NONE = (query, k) -> List.of();
    }
}
