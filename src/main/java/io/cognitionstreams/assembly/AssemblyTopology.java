package io.cognitionstreams.assembly;

import java.util.Optional;
import java.util.Set;

import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.kstream.Named;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.kstream.Repartitioned;
import org.apache.kafka.streams.state.Stores;

import io.cognitionstreams.embeddings.EmbeddingModel;
import io.cognitionstreams.governance.IdentityGovernance;
import io.cognitionstreams.governance.PersonaRules;
import io.cognitionstreams.governance.ToolDescriptors;
import io.cognitionstreams.schema.HistoryEntry;
import io.cognitionstreams.schema.HistoryImport;
import io.cognitionstreams.schema.MemoryEntry;
import io.cognitionstreams.schema.MemoryLookup;
import io.cognitionstreams.schema.MemoryRecall;
import io.cognitionstreams.schema.SessionState;
import io.cognitionstreams.schema.ToolDecision;
import io.cognitionstreams.schema.WaitingTurn;
import io.cognitionstreams.skills.SkillsStore;
import io.cognitionstreams.topics.Topics;
import io.cognitionstreams.topology.GlobalMirror;
import io.cognitionstreams.topology.CouncilSeal;
import io.cognitionstreams.topology.Outputs;
import io.cognitionstreams.telemetry.Meters;

/**
 * Budget compression: cognition.requests (and each tenant's cognition.requests.<tenant>) -> packets within budget
 * -> cognition.packets, with what it needs kept in state: each session's history (fed back from llm.outputs), a
 * pending re-anchoring protocol (from denied calls on tool.decisions), episodic memory by scope, and the skills,
 * governed identity and personas as global stores, so an edited skill or persona shows up in the next packet
 * without a restart.
 */
public final class AssemblyTopology {

    public static final String NAME = "assembly";
    public static final String SESSION_STORE = "session-state";
    public static final String HISTORY_STORE = "session-history";
    public static final String SKILLS_STORE = "skills";
    public static final String IDENTITY_STORE = "identity";
    public static final String PERSONAS_STORE = "personas";
    public static final String MEMORY_STORE = "episodic-memory";
    public static final String WAITING_STORE = "waiting-turns";
    public static final String TOOLS_STORE = "tools";
    /** The app configuration that tells the assembly how many partitions cognition.memory has. */
    public static final String MEMORY_PARTITIONS_CONFIG = "cognition.memory.partitions";

    /** Every state store a processor of a session's records reads or writes. */
    private static final String[] SESSION_STORES = {SESSION_STORE, HISTORY_STORE, WAITING_STORE, MEMORY_STORE};

    private AssemblyTopology() {
    }

    /**
     * @param memoryModel       what episodic memory embeds prompts and memories with
     * @param autoContinueSteps turns a session may take on its own in a row after tool results; 0 for none
     * @param budgets           what a session may spend before it no longer continues on its own
     * @param retention         how much episodic memory each scope keeps
     * @param shelves           the heap for memory scopes in use, shared by the instance's tasks
     */
    public static void build(StreamsBuilder builder, Topics topics, PacketAssembler assembler,
                             EmbeddingModel memoryModel, int autoContinueSteps, SessionBudgets budgets,
                             MemoryRetention retention, MemoryShelves shelves, CouncilSeal seal) {
        // Skills, identity, personas and tools are small and read by every session: a global copy on each instance.
        GlobalRecords globals = new GlobalRecords();
        SkillsStore.addGlobal(builder, topics, SKILLS_STORE, globals.skills());
        GlobalMirror.add(builder, topics.identity, IDENTITY_STORE, IdentityGovernance.CHECK, globals.identity());
        GlobalMirror.add(builder, topics.personas, PERSONAS_STORE, PersonaRules.CHECK, globals.personas());
        GlobalMirror.add(builder, topics.tools, TOOLS_STORE, ToolDescriptors::refuse, globals.tools());
        // Changelogged, so a restart or a rebalance restores every session's history, pending re-anchor, waiting
        // turns and memories. A session's state and a waiting turn are rewritten as a turn goes (arrives, waits for
        // its memories, is assembled, answered): cached, each key writes its changelog once per commit rather than
        // once per change (docs/benchmarks.md, "Records and requests per answer").
        builder.addStateStore(Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(SESSION_STORE),
                Serdes.String(), topics.serde(SessionState.class)).withCachingEnabled());
        builder.addStateStore(Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(HISTORY_STORE),
                Serdes.String(), topics.serde(HistoryEntry.class)));
        builder.addStateStore(Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(WAITING_STORE),
                Serdes.String(), topics.serde(WaitingTurn.class)).withCachingEnabled());
        // Memory is partitioned by its scope's owner (a session's own beside the session's requests, a shared scope
        // in one partition): each instance holds its share of it, not all of it (docs/assembly.md).
        builder.addStateStore(Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(MEMORY_STORE),
                Serdes.String(), topics.serde(MemoryEntry.class)));
        AssemblyProcessors.MemoryParts memory = new AssemblyProcessors.MemoryParts(memoryModel, shelves, retention,
                globals);
        Meters.memoryShelfBytes(shelves, MemoryShelves::bytes);
        SessionAssembly sessions = new SessionAssembly(assembler, memoryModel, autoContinueSteps, budgets);
        Serde<MemoryWrite> memoryWrites = MemoryWrite.serde(topics.memory);
        Produced<String, MemoryWrite> toMemory = Produced.with(Serdes.String(), memoryWrites)
                // Placed by the scope's owner, or where the write says (MemoryWrite), not by the block id it is keyed by.
                .withStreamPartitioner((topic, key, write, partitions) -> Optional.of(Set.of(write.partition() != null
                        ? write.partition() : MemoryWrite.partitionOf(write.scope(), partitions))));

        // Every input here is keyed by session (cognition.memory by its entries' owner, placed like a session's
        // records) and they share the stores, so they form one sub-topology whose task for partition p owns the
        // sessions and memory scopes of partition p on every topic. Requests come from the shared topic and from
        // each tenant's own (as many partitions each), where the processor binds them to the tenant
        // (TenantBinding). A turn whose scope another task holds waits while its lookup goes there and comes back.
        Outputs.of(builder.stream(topics.requestTopicNames(), topics.requests.consumed())
                        .process(() -> new AssemblyProcessors.Assemble(sessions, topics, memory), Named.as("assemble"),
                                SESSION_STORES), "assembled")
                .to(topics.packets)
                .to(topics.events)
                .to(topics.deadLetters)
                .then(MemoryLookup.class, "memory-lookups", lookups -> Outputs.of(lookups
                                .repartition(Repartitioned.with(Serdes.String(), topics.serde(MemoryLookup.class))
                                        .withName("memory-lookups"))
                                .process(() -> new AssemblyProcessors.Lookup(memory), Named.as("look-up-memory"),
                                        MEMORY_STORE)
                                .repartition(Repartitioned.with(Serdes.String(), topics.serde(MemoryRecall.class))
                                        .withName("memory-recalls"))
                                .process(() -> new AssemblyProcessors.Recall(sessions, topics, memory),
                                        Named.as("recall-memory"), SESSION_STORES), "recalled")
                        .to(topics.packets)
                        .to(topics.events)
                        .to(topics.deadLetters)
                        .end())
                .end();
        builder.stream(topics.memory.name(), Consumed.with(Serdes.String(), Serdes.ByteArray())
                        .withName("from-" + topics.memory.name()))
                .process(() -> new AssemblyProcessors.Keep(topics.memory, memory), Named.as("keep-memory"),
                        MEMORY_STORE)
                .to(topics.memory.name(), toMemory.withName("keep-to-" + topics.memory.name()));
        // Each answer's usage adds to its session's, published for operators (`cognition session show`); results
        // that came before their answer join the history after it, and may start the next turn then.
        KStream<String, SpecificRecord> answered = builder.stream(topics.llmOutputs.name(),
                        topics.llmOutputs.consumed())
                .process(() -> new AssemblyProcessors.RememberOutput(sessions, memory), Named.as("remember-output"),
                        SESSION_STORES);
        builder.stream(topics.toolDecisions.name(), topics.toolDecisions.consumed())
                .process(() -> new AssemblyProcessors.Remember<ToolDecision>(sessions::reanchor, memory),
                        Named.as("reanchor-on-denial"), SESSION_STORES);
        // An imported conversation takes the same exactly-once path into the history store as the model's answers.
        builder.stream(topics.sessionImports.name(), topics.sessionImports.consumed())
                .process(() -> new AssemblyProcessors.Remember<HistoryImport>(sessions::importMessage, memory),
                        Named.as("import-history"), SESSION_STORES);
        // A result joins the history; the last result of a turn may ask for the session's next turn itself.
        Outputs.of(builder.stream(topics.toolResults.name(), topics.toolResults.consumed())
                        .process(() -> new AssemblyProcessors.RememberResult(sessions, memory),
                                Named.as("remember-result"), SESSION_STORES)
                        .merge(answered, Named.as("answered-or-result")), "after-result")
                .sealingCouncilMessagesWith(seal)
                .to(topics.requests)
                .to(topics.councilMessages)
                .to(topics.events)
                .to(topics.sessionUsage)
                .end();
    }
}
