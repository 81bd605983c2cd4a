package io.cognitionstreams.assembly;

import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.kstream.Named;
import org.apache.kafka.streams.state.Stores;

import io.cognitionstreams.embeddings.EmbeddingModel;
import io.cognitionstreams.governance.IdentityGovernance;
import io.cognitionstreams.governance.MemoryEntries;
import io.cognitionstreams.governance.PersonaRules;
import io.cognitionstreams.governance.ToolDescriptors;
import io.cognitionstreams.schema.HistoryEntry;
import io.cognitionstreams.schema.HistoryImport;
import io.cognitionstreams.schema.SessionState;
import io.cognitionstreams.schema.ToolDecision;
import io.cognitionstreams.skills.SkillsStore;
import io.cognitionstreams.topics.Channel;
import io.cognitionstreams.topics.Topics;
import io.cognitionstreams.topology.GlobalMirror;
import io.cognitionstreams.topology.CouncilSeal;
import io.cognitionstreams.topology.Outputs;
import io.cognitionstreams.telemetry.Meters;

/**
 * Budget compression: cognition.requests (and each tenant's cognition.requests.<tenant>) -> packets within budget
 * -> cognition.packets, with what it needs kept in state: each session's history (fed back from llm.outputs), a
 * pending re-anchoring protocol (from denied calls on tool.decisions), and the skills, governed identity and
 * personas as global stores, so an edited skill or persona shows up in the next packet without a restart.
 */
public final class AssemblyTopology {

    public static final String NAME = "assembly";
    public static final String SESSION_STORE = "session-state";
    public static final String HISTORY_STORE = "session-history";
    public static final String SKILLS_STORE = "skills";
    public static final String IDENTITY_STORE = "identity";
    public static final String PERSONAS_STORE = "personas";
    public static final String MEMORY_STORE = "episodic-memory";
    public static final String TOOLS_STORE = "tools";

    private AssemblyTopology() {
    }

    /**
     * @param memoryModel       what episodic memory embeds prompts and memories with
     * @param autoContinueSteps turns a session may take on its own in a row after tool results; 0 for none
     * @param budgets           what a session may spend before it no longer continues on its own
     * @param retention         how much episodic memory each scope keeps
     */
    public static void build(StreamsBuilder builder, Topics topics, PacketAssembler assembler,
                             EmbeddingModel memoryModel, int autoContinueSteps, SessionBudgets budgets,
                             MemoryRetention retention, CouncilSeal seal) {
        // Skills, identity, personas and tools are small and read by every session: a global copy on each instance.
        SkillsStore.addGlobal(builder, topics, SKILLS_STORE);
        GlobalMirror.add(builder, topics.identity, IDENTITY_STORE, IdentityGovernance.CHECK);
        GlobalMirror.add(builder, topics.personas, PERSONAS_STORE, PersonaRules.CHECK);
        GlobalMirror.add(builder, topics.tools, TOOLS_STORE, ToolDescriptors::refuse);
        // A scope's memories are searched by every session of the scope, wherever its partition is, so every
        // instance holds all of them; searched through an index of decoded vectors, one shelf per scope, that the
        // store's loader keeps, because decoding each entry per request was the bottleneck.
        MemoryIndex memoryIndex = new MemoryIndex();
        Meters.memoryEntries(memoryIndex, MemoryIndex::size);
        GlobalMirror.add(builder, topics.memory, MEMORY_STORE, MemoryEntries::refuse,
                EpisodicMemory.indexer(memoryIndex, memoryModel));
        // Changelogged, so a restart or a rebalance restores every session's history and pending re-anchor.
        builder.addStateStore(Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(SESSION_STORE),
                Serdes.String(), topics.serde(SessionState.class)));
        builder.addStateStore(Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(HISTORY_STORE),
                Serdes.String(), topics.serde(HistoryEntry.class)));
        SessionAssembly sessions = new SessionAssembly(assembler, new EpisodicMemory(memoryModel, memoryIndex),
                autoContinueSteps, budgets);

        // All six inputs are keyed by session and share the stores, so they form one sub-topology whose task
        // for partition p owns the sessions of partition p on every topic: no repartition is needed. Requests come
        // from the shared topic and from each tenant's own (as many partitions each), where the processor binds
        // them to the tenant (TenantBinding).
        Outputs.of(builder.stream(topics.requestTopicNames(), topics.requests.consumed())
                        .process(() -> new AssemblyProcessors.Assemble(sessions, topics), Named.as("assemble"), SESSION_STORE,
                                HISTORY_STORE), "assembled")
                .to(topics.packets)
                .to(topics.events)
                .to(topics.deadLetters)
                .end();
        // Each answer's usage adds to its session's, published for operators (`cognition session show`).
        builder.stream(topics.llmOutputs.name(), topics.llmOutputs.consumed())
                .process(() -> new AssemblyProcessors.RememberOutput(sessions), Named.as("remember-output"),
                        SESSION_STORE, HISTORY_STORE)
                .to(topics.sessionUsage.name(), topics.sessionUsage.produced());
        builder.stream(topics.toolDecisions.name(), topics.toolDecisions.consumed())
                .process(() -> new AssemblyProcessors.Remember<ToolDecision>(sessions::reanchor), Named.as("reanchor-on-denial"),
                        SESSION_STORE, HISTORY_STORE);
        // An imported conversation takes the same exactly-once path into the history store as the model's answers.
        builder.stream(topics.sessionImports.name(), topics.sessionImports.consumed())
                .process(() -> new AssemblyProcessors.Remember<HistoryImport>(sessions::importMessage), Named.as("import-history"),
                        SESSION_STORE, HISTORY_STORE);
        // A result joins the history; the last result of a turn may ask for the session's next turn itself.
        Outputs.of(builder.stream(topics.toolResults.name(), topics.toolResults.consumed())
                        .process(() -> new AssemblyProcessors.RememberResult(sessions), Named.as("remember-result"), SESSION_STORE,
                                HISTORY_STORE), "after-result")
                .sealingCouncilMessagesWith(seal)
                .to(topics.requests)
                .to(topics.councilMessages)
                .to(topics.events)
                .to(topics.sessionUsage)
                .end();
        // Embedded once here, on arrival, so neither a restore nor a search pays for it again; what retention
        // forgets is tombstoned here too, judged by the index the global store keeps.
        builder.stream(topics.channel(Channel.MEMORY).name(), topics.channel(Channel.MEMORY).consumed())
                .process(() -> new AssemblyProcessors.Embed(memoryModel, memoryIndex, retention),
                        Named.as("embed-memory"))
                .to(topics.memory.name(), topics.memory.produced());
    }
}
