package io.cognitionstreams.topics;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.utils.Utils;

import io.cognitionstreams.schema.AnswerDelta;
import io.cognitionstreams.schema.Checkpoint;
import io.cognitionstreams.serde.AvroSerdes;
import io.cognitionstreams.schema.CognitionPacket;
import io.cognitionstreams.schema.CognitionRequest;
import io.cognitionstreams.schema.CouncilDecision;
import io.cognitionstreams.schema.CouncilKey;
import io.cognitionstreams.schema.CouncilMessage;
import io.cognitionstreams.schema.CouncilState;
import io.cognitionstreams.schema.DeadLetter;
import io.cognitionstreams.schema.GatekeeperSession;
import io.cognitionstreams.schema.HistoryImport;
import io.cognitionstreams.schema.Identity;
import io.cognitionstreams.schema.LlmOutput;
import io.cognitionstreams.schema.MemoryEntry;
import io.cognitionstreams.schema.Persona;
import io.cognitionstreams.schema.PipelineEvent;
import io.cognitionstreams.schema.RoleStatus;
import io.cognitionstreams.schema.RoutedBlock;
import io.cognitionstreams.schema.SessionControl;
import io.cognitionstreams.schema.SessionUsage;
import io.cognitionstreams.schema.Skill;
import io.cognitionstreams.schema.ToolCall;
import io.cognitionstreams.schema.ToolDecision;
import io.cognitionstreams.schema.ToolDescriptor;
import io.cognitionstreams.schema.ToolLedgerEntry;
import io.cognitionstreams.schema.ToolResult;
import io.cognitionstreams.serde.AvroSerdeFactory;

/**
 * The one place that names every topic and its serdes. Names are constants so tests and docs import them; the
 * {@link Topic} objects are built per app because the value wire format (registry or not) is configuration.
 *
 * <p>Keys are plain strings: the session id for everything that belongs to a session, so all of one session's
 * records share a partition and keep their order end to end; the council id for council traffic, so every vote of
 * a council meets its proposal in one task; the entity's own id on compacted topics. Each topic states its key
 * ({@link TopicKey}) here and nowhere else.
 */
public final class Topics {

    public static final String COGNITION_REQUESTS = "cognition.requests";
    public static final String COGNITION_PACKETS = "cognition.packets";
    public static final String LLM_OUTPUTS = "llm.outputs";
    public static final String TOOL_CALLS = "tool.calls";
    public static final String TOOL_DECISIONS = "tool.decisions";
    public static final String TOOL_OUTCOMES = "tool.outcomes";
    public static final String TOOL_RESULTS = "tool.results";
    public static final String TOOL_LEDGER = "tool.ledger";
    public static final String COGNITION_TOOLS = "cognition.tools";
    public static final String SESSION_CONTROL = "session.control";
    public static final String SESSION_IMPORTS = "session.imports";
    public static final String SESSION_USAGE = "session.usage";
    public static final String COUNCIL_MESSAGES = "council.messages";
    public static final String COUNCIL_DECISIONS = "council.decisions";
    public static final String COUNCIL_DECISIONS_BY_SESSION = "council.decisions.by-session";
    public static final String COUNCIL_ROLES = "council.roles";
    public static final String COUNCIL_STATE = "council.state";
    public static final String COUNCIL_KEYS = "council.keys";
    public static final String GATEKEEPER_SESSIONS = "gatekeeper.sessions";
    public static final String COGNITION_CHECKPOINTS = "cognition.checkpoints";
    public static final String COGNITION_SKILLS = "cognition.skills";
    public static final String COGNITION_IDENTITY = "cognition.identity";
    public static final String COGNITION_PERSONAS = "cognition.personas";
    public static final String COGNITION_MEMORY = "cognition.memory";
    public static final String COGNITION_EVENTS = "cognition.events";
    public static final String COGNITION_DLQ = "cognition.dlq";
    public static final String CHANNEL_PREFIX = "channel.";
    /** After a chat channel's topic name, the name of its stream of answers as they are written. */
    public static final String STREAM_SUFFIX = ".stream";

    private static final String SESSION = "session_id";
    private static final String COUNCIL = "council_id";
    private static final Map<String, String> COMPACTED =
            Map.of(TopicConfig.CLEANUP_POLICY_CONFIG, TopicConfig.CLEANUP_POLICY_COMPACT);

    /**
     * Stream topics hold previews, read as they arrive or not at all: an hour covers a front end that reconnects, and
     * segments roll every ten minutes so that what is older is deleted (the default segment of a week would keep it).
     */
    private static final Map<String, String> PREVIEWS = Map.of(TopicConfig.RETENTION_MS_CONFIG, "3600000",
            TopicConfig.SEGMENT_MS_CONFIG, "600000", TopicConfig.CLEANUP_POLICY_CONFIG,
            TopicConfig.CLEANUP_POLICY_DELETE);

    /** cognition.identity holds one current value, under this key. */
    public static final String IDENTITY_KEY = "identity";

    /**
     * A session's record at a sequence (a checkpoint, a history entry, a waiting turn): the sequence zero-padded to
     * ten digits, so that a session's records sort in sequence order. Built by hand: {@code String.format} was a few
     * percent of the assembly's and time travel's threads.
     */
    public static String sequenceKey(String session, long sequence) {
        String digits = Long.toString(sequence);
        if (sequence < 0 || digits.length() >= 10) {
            return session + "/" + String.format("%010d", sequence);
        }
        return session + "/" + "0".repeat(10 - digits.length()) + digits;
    }

    /**
     * The partition the producers' default partitioner gives a record keyed {@code key}: for a record that must sit
     * beside the records of that key without being keyed by it (a memory entry beside its owner's requests).
     */
    public static int partitionOfKey(String key, int partitions) {
        return Utils.toPositive(Utils.murmur2(key.getBytes(StandardCharsets.UTF_8))) % partitions;
    }

    /** A dead letter's key: where the refused record was, so letters about one record land together. */
    public static String deadLetterKey(String topic, int partition, long offset) {
        return topic + "-" + partition + "@" + offset;
    }

    /**
     * Every topic of the pipeline, these tenants' own among them. Names do not depend on the wire format: any serdes
     * name them.
     */
    public static List<String> names(List<String> tenants) {
        return new Topics(AvroSerdes.forRegistry(Optional.empty()), OutputLimits.defaults(), tenants).all().stream()
                .map(Topic::name).toList();
    }

    public static String channelTopic(Channel channel) {
        return CHANNEL_PREFIX + channel.id();
    }

    /**
     * The requests topic only {@code tenant}'s agent writes: what is read from it is bound to the tenant
     * (security's TenantBinding). Tenant names hold no dot, so no tenant's topic is another's.
     */
    public static String tenantRequests(String tenant) {
        return COGNITION_REQUESTS + "." + tenant;
    }

    /**
     * The topic whose partition count {@code topic} must have, if any: its records meet that topic's in one task (a
     * tenant's requests are read beside cognition.requests; the council's decisions by session beside tool.calls).
     */
    public static Optional<String> partitionedLike(String topic) {
        if (topic.equals(COUNCIL_DECISIONS_BY_SESSION)) {
            return Optional.of(TOOL_CALLS);
        }
        return tenantOfRequests(topic).map(tenant -> COGNITION_REQUESTS);
    }

    /** The tenant whose requests topic this is, if it is one. */
    public static Optional<String> tenantOfRequests(String topic) {
        String prefix = COGNITION_REQUESTS + ".";
        if (!topic.startsWith(prefix)) {
            return Optional.empty();
        }
        String tenant = topic.substring(prefix.length());
        return tenant.isEmpty() || tenant.contains(".") ? Optional.empty() : Optional.of(tenant);
    }

    /**
     * The tenant whose topic this is, a requests topic or one of its per-tenant channels or their streams, if it is
     * one.
     */
    private static Optional<String> tenantOfTopic(String topic) {
        Optional<String> requests = tenantOfRequests(topic);
        if (requests.isPresent() || !topic.startsWith(CHANNEL_PREFIX)) {
            return requests;
        }
        String rest = topic.substring(CHANNEL_PREFIX.length());
        if (rest.endsWith(STREAM_SUFFIX)) {
            rest = rest.substring(0, rest.length() - STREAM_SUFFIX.length());
        }
        int dot = rest.indexOf('.');
        return dot > 0 && Channel.ofId(rest.substring(dot + 1)).filter(Channel::perTenant).isPresent()
                ? Optional.of(rest.substring(0, dot)) : Optional.empty();
    }

    /** How every topic of one tenant's channels begins, {@code channel.<tenant>.}: what its agent may read. */
    public static String tenantChannelPrefix(String tenant) {
        return CHANNEL_PREFIX + tenant + ".";
    }

    public static String tenantChannel(String tenant, Channel channel) {
        return tenantChannelPrefix(tenant) + channel.id();
    }

    /** The stream of a chat channel's answers as they are written: {@code channel.<id>.stream}. */
    public static String streamTopic(Channel channel) {
        return channelTopic(channel) + STREAM_SUFFIX;
    }

    /** A tenant's own stream of a chat channel: {@code channel.<tenant>.<id>.stream}, under its channel prefix. */
    public static String tenantStream(String tenant, Channel channel) {
        return tenantChannel(tenant, channel) + STREAM_SUFFIX;
    }

    /**
     * The tenant a session belongs to: a session id {@code <tenant>.<rest>} with a configured tenant and a rest
     * that is not empty. Any other session (no dot, an unknown prefix) belongs to no tenant.
     */
    public static Optional<String> tenantOfSession(String session, List<String> tenants) {
        int dot = session == null ? -1 : session.indexOf('.');
        if (dot <= 0 || dot == session.length() - 1) {
            return Optional.empty();
        }
        String tenant = session.substring(0, dot);
        return tenants.contains(tenant) ? Optional.of(tenant) : Optional.empty();
    }

    public final Topic<String, CognitionRequest> requests;
    public final Topic<String, CognitionPacket> packets;
    public final Topic<String, LlmOutput> llmOutputs;
    public final Topic<String, ToolCall> toolCalls;
    public final Topic<String, ToolDecision> toolDecisions;
    public final Topic<String, ToolResult> toolOutcomes;
    public final Topic<String, ToolResult> toolResults;
    public final Topic<String, ToolLedgerEntry> toolLedger;
    public final Topic<String, ToolDescriptor> tools;
    public final Topic<String, SessionControl> sessionControl;
    public final Topic<String, HistoryImport> sessionImports;
    public final Topic<String, SessionUsage> sessionUsage;
    public final Topic<String, CouncilMessage> councilMessages;
    public final Topic<String, CouncilDecision> councilDecisions;
    public final Topic<String, CouncilDecision> councilDecisionsBySession;
    public final Topic<String, RoleStatus> councilRoles;
    public final Topic<String, CouncilState> councilState;
    public final Topic<String, CouncilKey> councilKeys;
    public final Topic<String, GatekeeperSession> gatekeeperSessions;
    public final Topic<String, Checkpoint> checkpoints;
    public final Topic<String, Skill> skills;
    public final Topic<String, Identity> identity;
    public final Topic<String, Persona> personas;
    public final Topic<String, MemoryEntry> memory;
    public final Topic<String, PipelineEvent> events;
    public final Topic<String, DeadLetter> deadLetters;
    private final Map<Channel, Topic<String, RoutedBlock>> channels = new EnumMap<>(Channel.class);
    private final Map<Channel, Topic<String, AnswerDelta>> streams = new EnumMap<>(Channel.class);
    private final List<String> tenants;
    private final List<Topic<String, CognitionRequest>> tenantRequestTopics = new ArrayList<>();
    private final Map<String, Topic<String, RoutedBlock>> tenantChannels = new HashMap<>();
    private final Map<String, Topic<String, AnswerDelta>> tenantStreams = new HashMap<>();
    private final List<Topic<?, ?>> all = new ArrayList<>();
    private final AvroSerdeFactory avro;
    private final OutputLimits limits;

    /** With Kafka's default limits: for clients and tests that do not read the cluster's. */
    public Topics(AvroSerdeFactory avro) {
        this(avro, OutputLimits.defaults());
    }

    /** Without tenants. */
    public Topics(AvroSerdeFactory avro, OutputLimits limits) {
        this(avro, limits, List.of());
    }

    /**
     * @param limits  what the brokers accept on each topic: records over them are refused by the serializers, where
     *                they can still be dead-lettered (see {@link OutputGuard})
     * @param tenants tenants with topics of their own: a requests topic and one topic per {@link Channel#perTenant}
     *                channel each (names checked by security's Principals)
     */
    public Topics(AvroSerdeFactory avro, OutputLimits limits, List<String> tenants) {
        this.avro = avro;
        this.limits = limits;
        this.tenants = List.copyOf(tenants);
        requests = add(COGNITION_REQUESTS, CognitionRequest.class, Map.of(), SESSION,
                "agents, `cognition produce`, AutoFix retries, `cognition replay`/`fork` -> assembly, time travel");
        packets = add(COGNITION_PACKETS, CognitionPacket.class, Map.of(), SESSION,
                "assembly -> model worker, time travel (checkpoints)");
        llmOutputs = add(LLM_OUTPUTS, LlmOutput.class, Map.of(), SESSION,
                "model worker -> marker routing, assembly (history), time travel (stage contracts)");
        toolCalls = add(TOOL_CALLS, ToolCall.class, Map.of(), SESSION,
                "marker routing (EXECUTE) and agents -> gatekeeper");
        // The gatekeeper answers a call under the call's own key.
        toolDecisions = add(TOOL_DECISIONS, ToolDecision.class, Map.of(), "call." + SESSION,
                "gatekeeper -> tool executors, assembly (re-anchoring)");
        toolOutcomes = add(TOOL_OUTCOMES, ToolResult.class, Map.of(), SESSION,
                "tool executors -> gatekeeper (cognitive-load warnings)");
        toolResults = add(TOOL_RESULTS, ToolResult.class, Map.of(), SESSION,
                "gatekeeper (outcomes, with a warning when the session is overloaded; denials) -> agents, "
                        + "assembly (the session's next packet, auto-continue)");
        // Written to the partition of the decision it is about, not by its key's hash: the executor that owns a
        // decisions partition restores its ledger from the same partition number, as a store from its changelog.
        toolLedger = add(TOOL_LEDGER, ToolLedgerEntry.class, COMPACTED,
                new TopicKey<>("<n>:<session_id>:<call_id> (n: session_id's length)",
                        entry -> new LedgerKey(entry.getSessionId(), entry.getCallId()).text()),
                "executor -> executor (at-most-once ledger: STARTED before a side effect, FINISHED with its result)");
        tools = add(COGNITION_TOOLS, ToolDescriptor.class, COMPACTED, "name",
                "executors (what their MCP servers list) -> assembly (the tools index layer)");
        gatekeeperSessions = add(GATEKEEPER_SESSIONS, GatekeeperSession.class, COMPACTED,
                new TopicKey<>("session id (the value does not repeat it)", state -> null),
                "gatekeeper (each change of a session's state; a tombstone when it ends) -> `cognition gatekeeper`, "
                        + "monitoring");
        sessionControl = add(SESSION_CONTROL, SessionControl.class, Map.of(), SESSION,
                "agents and operators -> gatekeeper (reset a session's active skills, end a session)");
        sessionImports = add(SESSION_IMPORTS, HistoryImport.class, Map.of(), SESSION,
                "`cognition session import` -> assembly (appends to the session's history)");
        sessionUsage = add(SESSION_USAGE, SessionUsage.class, COMPACTED,
                new TopicKey<>("session id (the value does not repeat it)", usage -> null),
                "assembly (each answer's usage added to its session's; a budget that stopped it) -> "
                        + "`cognition session show`, monitoring");
        councilMessages = add(COUNCIL_MESSAGES, CouncilMessage.class, Map.of(), COUNCIL,
                "council roles, routing and AutoFix escalations, the council's clock ticks and escalations -> "
                        + "council, Prime");
        councilDecisions = add(COUNCIL_DECISIONS, CouncilDecision.class, Map.of(), COUNCIL,
                "council -> agents");
        // The gatekeeper reads it in the task that holds the session's calls, so it must be co-partitioned with
        // tool.calls: same key, and as many partitions (the app creates both with --partitions and refuses to start
        // when an existing pair differs).
        councilDecisionsBySession = add(COUNCIL_DECISIONS_BY_SESSION, CouncilDecision.class, Map.of(), SESSION,
                "council (its decisions on the gatekeeper's proposals, again, keyed by session) -> gatekeeper");
        councilRoles = add(COUNCIL_ROLES, RoleStatus.class, Map.of(), COUNCIL,
                "council -> monitoring");
        councilState = add(COUNCIL_STATE, CouncilState.class, COMPACTED, COUNCIL,
                "council (each council's roles, open proposals and held votes, once a tick) -> `cognition council`, "
                        + "monitoring");
        councilKeys = add(COUNCIL_KEYS, CouncilKey.class, COMPACTED, "role",
                "`cognition council keygen --publish` (governance only) -> council (global store: the role keys "
                        + "signatures are checked with)");
        checkpoints = add(COGNITION_CHECKPOINTS, Checkpoint.class, COMPACTED,
                new TopicKey<>("session_id/sequence (sequence as 10 digits)",
                        checkpoint -> sequenceKey(checkpoint.getSessionId(), checkpoint.getSequence())),
                "time travel -> `cognition checkpoints`, `replay`, `fork`");
        skills = add(COGNITION_SKILLS, Skill.class, COMPACTED, "name",
                "`cognition skills load` -> assembly, gatekeeper (global tables), governance (audit, letters)");
        identity = add(COGNITION_IDENTITY, Identity.class, COMPACTED, TopicKey.fixed(IDENTITY_KEY),
                "`cognition identity set` (governance only) -> assembly (global table), "
                        + "governance (audit, letters)");
        personas = add(COGNITION_PERSONAS, Persona.class, COMPACTED, "name",
                "`cognition persona load`, `run` at start (the built-ins it lacks) -> assembly (global table), "
                        + "governance (audit, letters)");
        memory = add(COGNITION_MEMORY, MemoryEntry.class, COMPACTED, "block_id",
                "the memory writer (embeds channel.memory), assembly (tombstones past retention); each entry in "
                        + "its scope owner's partition; `cognition memory forget` -> assembly (the store of the task that holds the "
                        + "scope), governance (letters), `cognition memory`");
        events = add(COGNITION_EVENTS, PipelineEvent.class, Map.of(), SESSION,
                "every topology -> monitoring");
        deadLetters = add(COGNITION_DLQ, DeadLetter.class, Map.of(),
                new TopicKey<>("source_topic-source_partition@source_offset", letter -> deadLetterKey(
                        letter.getSourceTopic(), letter.getSourcePartition(), letter.getSourceOffset())),
                "every topology, the model worker, the executor and the memory writer -> operators");
        for (Channel channel : Channel.values()) {
            String producer = channel == Channel.SHELL ? "gatekeeper (approved shell calls only)" : "marker routing";
            channels.put(channel, add(channelTopic(channel), RoutedBlock.class, Map.of(), SESSION,
                    producer + " -> " + channel.id() + " consumers"));
        }
        for (Channel channel : Channel.values()) {
            if (channel.streamed()) {
                streams.put(channel, add(streamTopic(channel), AnswerDelta.class, PREVIEWS, SESSION,
                        "model worker (RESPONSE text as it is written, with --model-stream; a preview, at most once) "
                                + "-> " + channel.id() + " front ends"));
            }
        }
        for (String tenant : this.tenants) {
            tenantRequestTopics.add(add(tenantRequests(tenant), CognitionRequest.class, Map.of(), SESSION,
                    "agent-" + tenant + " -> assembly (sessions and memory scopes bound to " + tenant + ")"));
            for (Channel channel : Channel.values()) {
                if (channel.perTenant()) {
                    String name = tenantChannel(tenant, channel);
                    tenantChannels.put(name, add(name, RoutedBlock.class, Map.of(), SESSION,
                            "marker routing (" + tenant + "'s sessions) -> " + tenant + "'s " + channel.id()
                                    + " consumers"));
                }
                if (channel.streamed()) {
                    String name = tenantStream(tenant, channel);
                    tenantStreams.put(name, add(name, AnswerDelta.class, PREVIEWS, SESSION,
                            "model worker (" + tenant + "'s sessions, with --model-stream) -> " + tenant + "'s "
                                    + channel.id() + " front ends"));
                }
            }
        }
    }

    private <V extends SpecificRecord> Topic<String, V> add(String name, Class<V> type, Map<String, String> configs,
                                                             String keyField, String role) {
        return add(name, type, configs, TopicKey.field(type, keyField), role);
    }

    private <V extends SpecificRecord> Topic<String, V> add(String name, Class<V> type, Map<String, String> configs,
                                                             TopicKey<V> key, String role) {
        Topic<String, V> topic = new Topic<>(name, OutputGuard.keys(), OutputGuard.values(avro.serde(type), limits),
                type, configs, key, role);
        all.add(topic);
        return topic;
    }

    public Topic<String, RoutedBlock> channel(Channel channel) {
        return channels.get(channel);
    }

    public Topic<String, RoutedBlock> channel(String tenant, Channel channel) {
        Topic<String, RoutedBlock> topic = tenantChannels.get(tenantChannel(tenant, channel));
        if (topic == null) {
            throw new IllegalArgumentException("no topic " + tenantChannel(tenant, channel) + ": " + tenant
                    + " is not a configured tenant, or " + channel.id() + " is not a per-tenant channel");
        }
        return topic;
    }

    /** The stream of a chat channel ({@link Channel#streamed}). */
    public Topic<String, AnswerDelta> stream(Channel channel) {
        Topic<String, AnswerDelta> topic = streams.get(channel);
        if (topic == null) {
            throw new IllegalArgumentException(channel.id() + " has no stream topic");
        }
        return topic;
    }

    public Topic<String, AnswerDelta> stream(String tenant, Channel channel) {
        Topic<String, AnswerDelta> topic = tenantStreams.get(tenantStream(tenant, channel));
        if (topic == null) {
            throw new IllegalArgumentException("no topic " + tenantStream(tenant, channel) + ": " + tenant
                    + " is not a configured tenant, or " + channel.id() + " has no stream");
        }
        return topic;
    }

    /** Where a session's deltas of a chat channel go: its tenant's own stream, as its blocks go to its channels. */
    public Topic<String, AnswerDelta> streamFor(String session, Channel channel) {
        Optional<String> tenant = tenantOfSession(session, tenants);
        return tenant.isPresent() && channel.perTenant() ? stream(tenant.get(), channel) : stream(channel);
    }

    /** The tenants with topics of their own. */
    public List<String> tenants() {
        return tenants;
    }

    /** Each tenant's requests topic, in the order of {@link #tenants}. */
    public List<Topic<String, CognitionRequest>> tenantRequestTopics() {
        return Collections.unmodifiableList(tenantRequestTopics);
    }

    /**
     * Every topic requests arrive on, the shared one first, then each tenant's: what assembly and time travel
     * read, with {@link #requests}'s serdes (they are all requests topics, with as many partitions each).
     */
    public List<String> requestTopicNames() {
        List<String> names = new ArrayList<>(List.of(requests.name()));
        tenantRequestTopics.forEach(topic -> names.add(topic.name()));
        return names;
    }

    /**
     * Where a routed block goes: its tenant's own topic of its channel when its session belongs to a tenant and
     * the channel is per tenant, so only that tenant's agent reads it; the shared {@code channel.<id>} otherwise.
     */
    public String channelTopicName(RoutedBlock block) {
        Optional<Channel> channel = Channel.ofId(block.getChannel());
        Optional<String> tenant = tenantOfSession(block.getSessionId(), tenants);
        if (channel.isPresent() && channel.get().perTenant() && tenant.isPresent()) {
            return tenantChannel(tenant.get(), channel.get());
        }
        return CHANNEL_PREFIX + block.getChannel();
    }

    public List<Topic<?, ?>> all() {
        return Collections.unmodifiableList(all);
    }

    /**
     * The topic of this name, including any tenant's own topics: a client that knows no tenants (the CLI's
     * {@code produce} and {@code tail}) still writes and reads them with their serdes.
     */
    public Optional<Topic<?, ?>> byName(String name) {
        Optional<Topic<?, ?>> named = all.stream().filter(t -> t.name().equals(name)).findFirst();
        return named.or(() -> tenantOfTopic(name).filter(tenant -> !tenants.contains(tenant))
                .flatMap(tenant -> new Topics(avro, limits, List.of(tenant)).byName(name)));
    }

    /** The value serde of any record type, for topics other components define (e.g. changelogs, DLQ writers). */
    public <V extends SpecificRecord> Serde<V> serde(Class<V> type) {
        return avro.serde(type);
    }

    public AvroSerdeFactory avro() {
        return avro;
    }

    public OutputLimits limits() {
        return limits;
    }
}
