package io.cognitionstreams.app;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.time.Duration;
import java.util.Optional;

import org.apache.kafka.clients.CommonClientConfigs;

import io.cognitionstreams.assembly.MemoryRetention;
import io.cognitionstreams.assembly.SessionBudgets;
import io.cognitionstreams.council.CouncilSettings;
import io.cognitionstreams.executor.ExecutorSettings;
import io.cognitionstreams.gatekeeper.ApprovalRule;
import io.cognitionstreams.gatekeeper.GatekeeperSettings;
import io.cognitionstreams.prompt.ToolCalling;
import io.cognitionstreams.roles.RoleEndpoints;
import io.cognitionstreams.routing.RoutingLimits;

/**
 * Everything an operator sets for one app instance. The CLI fills it from flags; tests build it directly.
 *
 * @param bootstrapServers  the cluster; the embedded broker's address when none was given
 * @param applicationId     Kafka Streams application id: instances with the same id share the work
 * @param stateDir          where state stores live on disk (restored from changelogs when lost)
 * @param schemaRegistryUrl Confluent-compatible registry; empty means registry-less single-object encoding
 * @param partitions        partitions of each topic the app creates
 * @param replicationFactor replication of the topics the app creates and of its internal topics
 * @param streamThreads     Kafka Streams threads (one per core is a good start)
 * @param model             which model answers packets
 * @param compression       which models compress oversized fields after the local summarizer
 * @param routing           the destination matrix and redaction rules, when not the defaults
 * @param gatekeeper        the root caller, if any, and the cognitive-load threshold
 * @param council           the council's roles, quorum and timeouts
 * @param tuning            Kafka Streams knobs an operator may turn: commit interval, standby replicas
 * @param clientProperties  settings every client gets (security, timeouts: {@code --command-config}), under the
 *                          app's own where its guarantees need those ({@link #clientConfig()})
 * @param executor          the tool loop: MCP servers, the shell runner, the signing key, auto-continue
 * @param memory            how much episodic memory each scope keeps, and what embeds it
 * @param tenants           tenants with topics of their own: a requests topic whose requests are bound to the
 *                          tenant, and their sessions' chat channels (docs/security.md, "Tenants"); none by default
 * @param roleWorkers       the council roles this instance votes for with a model ({@code --council-role})
 * @param streamAnswers     preview each answer's RESPONSE text on the chat channels' stream topics as the model
 *                          writes it ({@code --model-stream})
 * @param budgets           what a session may spend before it no longer continues on its own
 */
public record Settings(String bootstrapServers, String applicationId, Path stateDir,
                       Optional<String> schemaRegistryUrl, int partitions, short replicationFactor,
                       int streamThreads, ModelSettings model, CompressionSettings compression,
                       RoutingSettings routing, GatekeeperSettings gatekeeper, CouncilSettings council,
                       Tuning tuning, Map<String, Object> clientProperties, ExecutorSettings executor,
                       MemorySettings memory, List<String> tenants, RoleEndpoints roleWorkers,
                       boolean streamAnswers, SessionBudgets budgets) {

    public Settings {
        clientProperties = Map.copyOf(clientProperties);
        tenants = List.copyOf(tenants);
    }

    /** Without council role workers, streamed answers or session budgets. */
    public Settings(String bootstrapServers, String applicationId, Path stateDir,
                    Optional<String> schemaRegistryUrl, int partitions, short replicationFactor,
                    int streamThreads, ModelSettings model, CompressionSettings compression,
                    RoutingSettings routing, GatekeeperSettings gatekeeper, CouncilSettings council,
                    Tuning tuning, Map<String, Object> clientProperties, ExecutorSettings executor,
                    MemorySettings memory, List<String> tenants) {
        this(bootstrapServers, applicationId, stateDir, schemaRegistryUrl, partitions, replicationFactor,
                streamThreads, model, compression, routing, gatekeeper, council, tuning, clientProperties, executor,
                memory, tenants, RoleEndpoints.none(), false, SessionBudgets.NONE);
    }

    public static final String DEFAULT_APPLICATION_ID = "cognition-streams";

    /**
     * The local single-node defaults tests use. No tool call waits for the council here (approval never): `run`
     * defaults to risky ({@code --approval}), and a test of the council's decisions asks for it
     * ({@link #withGatekeeper}).
     */
    public static Settings local(String bootstrapServers, String applicationId, Path stateDir) {
        return new Settings(bootstrapServers, applicationId, stateDir, Optional.empty(), 3, (short) 1, 1,
                ModelSettings.replay(), CompressionSettings.localOnly(), RoutingSettings.defaults(),
                GatekeeperSettings.defaults().withApproval(ApprovalRule.Policy.NEVER,
                        GatekeeperSettings.DEFAULT_APPROVAL_TIMEOUT), CouncilSettings.defaults(), Tuning.defaults(),
                Map.of(), ExecutorSettings.none(), MemorySettings.defaults(), List.of());
    }

    /** The same settings with another council (tests and tools that drive the council with short timeouts). */
    public Settings withCouncil(CouncilSettings other) {
        return new Settings(bootstrapServers, applicationId, stateDir, schemaRegistryUrl, partitions,
                replicationFactor, streamThreads, model, compression, routing, gatekeeper, other, tuning,
                clientProperties, executor, memory, tenants, roleWorkers, streamAnswers, budgets);
    }

    /** The same settings with another gatekeeper (tests of what waits for the council). */
    public Settings withGatekeeper(GatekeeperSettings other) {
        return new Settings(bootstrapServers, applicationId, stateDir, schemaRegistryUrl, partitions,
                replicationFactor, streamThreads, model, compression, routing, other, council, tuning,
                clientProperties, executor, memory, tenants, roleWorkers, streamAnswers, budgets);
    }

    /** The same settings with these council role workers. */
    public Settings withRoleWorkers(RoleEndpoints other) {
        return new Settings(bootstrapServers, applicationId, stateDir, schemaRegistryUrl, partitions,
                replicationFactor, streamThreads, model, compression, routing, gatekeeper, council, tuning,
                clientProperties, executor, memory, tenants, other, streamAnswers, budgets);
    }

    /** The same settings with another model (tests that answer packets from a model endpoint of their own). */
    public Settings withModel(ModelSettings other) {
        return new Settings(bootstrapServers, applicationId, stateDir, schemaRegistryUrl, partitions,
                replicationFactor, streamThreads, other, compression, routing, gatekeeper, council, tuning,
                clientProperties, executor, memory, tenants, roleWorkers, streamAnswers, budgets);
    }

    /** The same settings with another tool loop (tests that run the executor). */
    public Settings withExecutor(ExecutorSettings other) {
        return new Settings(bootstrapServers, applicationId, stateDir, schemaRegistryUrl, partitions,
                replicationFactor, streamThreads, model, compression, routing, gatekeeper, council, tuning,
                clientProperties, other, memory, tenants, roleWorkers, streamAnswers, budgets);
    }

    /** The same settings with these tenants' own topics (tests of tenant-bound sessions). */
    public Settings withTenants(List<String> other) {
        return new Settings(bootstrapServers, applicationId, stateDir, schemaRegistryUrl, partitions,
                replicationFactor, streamThreads, model, compression, routing, gatekeeper, council, tuning,
                clientProperties, executor, memory, other, roleWorkers, streamAnswers, budgets);
    }

    /**
     * The same settings logged in another way: client properties and tuning (a secured cluster's login, and no
     * aborting of others' transactions, which needs CLUSTER_ACTION).
     */
    public Settings withClient(Map<String, Object> properties, Tuning other) {
        return new Settings(bootstrapServers, applicationId, stateDir, schemaRegistryUrl, partitions,
                replicationFactor, streamThreads, model, compression, routing, gatekeeper, council, other,
                properties, executor, memory, tenants, roleWorkers, streamAnswers, budgets);
    }

    /** The same settings streaming answers as they are written, or not (--model-stream). */
    public Settings withStreamAnswers(boolean stream) {
        return new Settings(bootstrapServers, applicationId, stateDir, schemaRegistryUrl, partitions,
                replicationFactor, streamThreads, model, compression, routing, gatekeeper, council, tuning,
                clientProperties, executor, memory, tenants, roleWorkers, stream, budgets);
    }

    /** The same settings with these session budgets. */
    public Settings withBudgets(SessionBudgets other) {
        return new Settings(bootstrapServers, applicationId, stateDir, schemaRegistryUrl, partitions,
                replicationFactor, streamThreads, model, compression, routing, gatekeeper, council, tuning,
                clientProperties, executor, memory, tenants, roleWorkers, streamAnswers, other);
    }

    /** What a plain client of the app (admin, publisher, model worker) starts from: the file's, then the cluster. */
    public Map<String, Object> clientConfig() {
        Map<String, Object> config = new HashMap<>(clientProperties);
        config.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        return config;
    }

    /**
     * @param commitInterval  how often each capability commits its transaction: under exactly-once, output is
     *                        visible only then, so each of the pipeline's three transactional hops waits half of it
     *                        on average, which is why the default is 25 ms rather than Kafka Streams' 100 ms
     * @param standbyReplicas warm copies of each state store on other instances, so a failover need not restore
     *                        from the changelogs
     * @param assemblyThreads stream threads of the assembly capability, where the CPU goes (embedding prompts for
     *                        episodic memory above all; each thread embeds on one core). One by default: a second
     *                        carries more requests with memory but, as one more transaction per commit interval,
     *                        lengthens the latency tail without it (docs/benchmarks.md)
     * @param hangingTransactionAfter how long a transaction may stay silent on one of the pipeline's partitions
     *                        before it is reported as hanging: the brokers' transaction.max.timeout.ms, past which
     *                        no producer's transaction can legitimately be open
     * @param abortHangingTransactions abort a hanging transaction of the app's own producers when that is safe
     *                        ({@code HangingTransactions.judge}), rather than only report it
     * @param sessionTimeout  how long a dead instance keeps its partitions (the consumer groups' session timeout)
     * @param groupProtocol   how the stream threads' groups rebalance (the workers' are classic either way)
     * @param fenceDeparted   fence the transactional ids of another instance as soon as it has left every group
     *                        ({@code DepartedInstances}), rather than wait for its transactions' timeout
     */
    public record Tuning(Duration commitInterval, int standbyReplicas, int assemblyThreads,
                         Duration hangingTransactionAfter, boolean abortHangingTransactions,
                         Duration sessionTimeout, GroupProtocol groupProtocol, boolean fenceDeparted) {

        public static final int DEFAULT_COMMIT_INTERVAL_MS = 25;
        public static final int DEFAULT_ASSEMBLY_THREADS = 1;
        /** Kafka's default transaction.max.timeout.ms. */
        public static final String DEFAULT_HANGING_TRANSACTION_AFTER = "15m";
        public static final String DEFAULT_SESSION_TIMEOUT = "15s";

        public Tuning {
            if (assemblyThreads < 1) {
                throw new IllegalArgumentException("assembly threads must be at least 1, was " + assemblyThreads);
            }
            if (hangingTransactionAfter.isNegative() || hangingTransactionAfter.isZero()) {
                throw new IllegalArgumentException("the hanging-transaction limit must be positive, was "
                        + hangingTransactionAfter);
            }
            if (sessionTimeout.isNegative() || sessionTimeout.isZero()) {
                throw new IllegalArgumentException("the session timeout must be positive, was " + sessionTimeout);
            }
        }

        /** The same, reporting hanging transactions without aborting any. */
        public Tuning reportingOnly() {
            return new Tuning(commitInterval, standbyReplicas, assemblyThreads, hangingTransactionAfter, false,
                    sessionTimeout, groupProtocol, fenceDeparted);
        }

        public Tuning withSessionTimeout(Duration timeout) {
            return new Tuning(commitInterval, standbyReplicas, assemblyThreads, hangingTransactionAfter,
                    abortHangingTransactions, timeout, groupProtocol, fenceDeparted);
        }

        public static Tuning defaults() {
            return new Tuning(Duration.ofMillis(DEFAULT_COMMIT_INTERVAL_MS), 0, DEFAULT_ASSEMBLY_THREADS,
                    Duration.ofMinutes(15), true, Duration.ofSeconds(15), GroupProtocol.CLASSIC, true);
        }
    }

    /**
     * @param destinations    rows replacing the default destination matrix, e.g. {@code PLAN=cli_chat;VERIFY=}
     * @param redactionConfig a redaction config file (docs/redaction.md); empty means the built-in rules
     * @param limits          how many blocks and records one output may become
     */
    public record RoutingSettings(Optional<String> destinations, Optional<Path> redactionConfig,
                                  RoutingLimits limits) {

        public static RoutingSettings defaults() {
            return new RoutingSettings(Optional.empty(), Optional.empty(), RoutingLimits.defaults());
        }
    }

    /**
     * @param liteModel  the Lite model (seed 003's Phi) on the model endpoint, tried after the local summarizer
     * @param primeModel the Prime model (Hermes), the last resort
     * @param deadline   total time compression may take for one field, well inside Kafka's poll interval
     */
    public record CompressionSettings(Optional<String> liteModel, Optional<String> primeModel, Duration deadline) {

        public static CompressionSettings localOnly() {
            return new CompressionSettings(Optional.empty(), Optional.empty(), Duration.ofSeconds(20));
        }
    }

    /**
     * @param endpoint     base URL of an OpenAI-compatible API (…/v1); empty means the replay model
     * @param apiKey       bearer token for the endpoint, if it needs one
     * @param modelName    model name sent to the endpoint instead of each packet's target model
     * @param timeout      per-call timeout
     * @param concurrency  model calls in flight at once, one session each, at most this many at the endpoint
     * @param provider     which API the endpoint speaks and how the model calls tools
     */
    public record ModelSettings(Optional<String> endpoint, Optional<String> apiKey, Optional<String> modelName,
                                Duration timeout, int concurrency, Provider provider) {

        public static final int DEFAULT_CONCURRENCY = 256;

        /** With the default provider: OpenAI-compatible, native tool calls. */
        public ModelSettings(Optional<String> endpoint, Optional<String> apiKey, Optional<String> modelName,
                             Duration timeout, int concurrency) {
            this(endpoint, apiKey, modelName, timeout, concurrency, Provider.defaults());
        }

        public static ModelSettings replay() {
            return new ModelSettings(Optional.empty(), Optional.empty(), Optional.empty(), Duration.ofSeconds(60),
                    DEFAULT_CONCURRENCY);
        }

        public boolean usesReplay() {
            return endpoint.isEmpty();
        }
    }

    /**
     * The model endpoint's API and how the model calls tools (docs/model.md).
     *
     * @param api       the wire format of --model-endpoint
     * @param tools     native: packets carry the specs of the tools the active skill may call, sent as the API's
     *                  tools; text: the model writes EXECUTE lines
     * @param maxTokens the most an answer may have, where the API requires a bound (Anthropic's max_tokens)
     */
    public record Provider(ModelApi api, ToolCalling tools, int maxTokens) {

        public static final int DEFAULT_MAX_TOKENS = 4096;

        public static Provider defaults() {
            return new Provider(ModelApi.OPENAI, ToolCalling.NATIVE, DEFAULT_MAX_TOKENS);
        }
    }

    /** The APIs a model endpoint may speak. */
    public enum ModelApi {
        /** Chat completions: OpenAI, Ollama, vLLM, llama.cpp server, most hosted APIs. */
        OPENAI,
        /** Anthropic's Messages API. */
        ANTHROPIC
    }

    /** Episodic memory: how much each scope keeps, and which model embeds prompts and memories. */
    public record MemorySettings(MemoryRetention retention, MemoryEmbedder embedder) {

        /** MiniLM: the static table is 100 times cheaper but misses the recall target (docs/benchmarks.md). */
        public static MemorySettings defaults() {
            return new MemorySettings(MemoryRetention.defaults(), MemoryEmbedder.MINILM);
        }
    }

    /** all-MiniLM-L6-v2 itself, or the static table distilled from it (docs/assembly.md#episodic-memory). */
    public enum MemoryEmbedder {
        MINILM, STATIC
    }
}
