package io.cognitionstreams.testing;

import java.time.Instant;

import java.util.Collections;
import java.util.List;
import java.util.Optional;

import io.cognitionstreams.assembly.AssemblyInput;
import io.cognitionstreams.assembly.IdentityDefaults;
import io.cognitionstreams.assembly.Personas;
import io.cognitionstreams.events.PipelineEvents;
import io.cognitionstreams.schema.CognitionRequest;
import io.cognitionstreams.schema.LlmOutput;
import io.cognitionstreams.schema.Marker;
import io.cognitionstreams.schema.Persona;
import io.cognitionstreams.schema.RoutedBlock;
import io.cognitionstreams.topics.Channel;

/** Valid records to start tests from; each test changes only what it is about. */
public final class Records {

    public static final Instant T0 = Instant.parse("2026-11-22T10:00:00Z");
    /** Where a record read in a test sits, for the events it leads to. */
    public static final PipelineEvents.Source SOURCE = new PipelineEvents.Source("test", 0, 0);

    private Records() {
    }

    public static CognitionRequest.Builder request(String session, String prompt) {
        return CognitionRequest.newBuilder()
                .setRequestId(session + "-r1")
                .setSessionId(session)
                .setUserPrompt(prompt)
                .setTargetModel("gpt-4o")
                .setTimestamp(T0);
    }

    /** A request as assembly sees it with nothing in the stores: default identity, no skills, no history. */
    public static AssemblyInput input(CognitionRequest request) {
        return new AssemblyInput(request, SOURCE, IdentityDefaults.TEXT, builtInPersona(request), Optional.empty(), List::of,
                AssemblyInput.MemorySearch.NONE, Collections::emptyIterator, Optional.empty());
    }

    /** The built-in persona the request names, as `run` ships them; the default one when it names none. */
    public static Persona builtInPersona(CognitionRequest request) {
        return request.getPersona() == null ? Personas.defaultPersona()
                : Personas.builtIns(T0).get(request.getPersona());
    }

    /** A block on channel.memory, as routing writes a VERIFY of {@code session}; its scope the session's own. */
    public static RoutedBlock.Builder memoryBlock(String blockId, String session, String text) {
        return RoutedBlock.newBuilder().setBlockId(blockId).setOutputId(session + "-out").setPacketId("0a1b2c3d")
                .setRequestId(session + "-r1").setSessionId(session).setMarker(Marker.VERIFY).setSequence(0)
                .setBlockCount(1).setChannel(Channel.MEMORY.id()).setText(text).setTimestamp(T0);
    }

    public static LlmOutput.Builder output(String session, String text) {
        return LlmOutput.newBuilder()
                .setOutputId(session + "-out")
                .setPacketId("0a1b2c3d")
                .setRequestId(session + "-r1")
                .setSessionId(session)
                .setModel("replay:test")
                .setText(text)
                .setTimestamp(T0);
    }
}
