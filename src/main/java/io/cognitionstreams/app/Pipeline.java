package io.cognitionstreams.app;

import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.function.BiConsumer;
import java.util.function.Function;

import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.TopologyConfig;

import io.cognitionstreams.assembly.AssemblyTopology;
import io.cognitionstreams.assembly.ContextLayers;
import io.cognitionstreams.assembly.FieldCompressor;
import io.cognitionstreams.assembly.SessionBudgets;
import io.cognitionstreams.assembly.PacketAssembler;
import io.cognitionstreams.assembly.TaskInstructions;
import io.cognitionstreams.assembly.compression.CompressionChain;
import io.cognitionstreams.assembly.compression.ExtractiveSummarizer;
import io.cognitionstreams.council.CouncilSettings;
import io.cognitionstreams.council.CouncilSignatures;
import io.cognitionstreams.council.CouncilTopology;
import io.cognitionstreams.embeddings.CachingEmbedder;
import io.cognitionstreams.embeddings.EmbeddingModel;
import io.cognitionstreams.embeddings.MiniLmEmbedder;
import io.cognitionstreams.embeddings.SentenceEmbedder;
import io.cognitionstreams.embeddings.StaticEmbedder;
import io.cognitionstreams.executor.ExecutorSettings;
import io.cognitionstreams.gatekeeper.DecisionSignatures;
import io.cognitionstreams.gatekeeper.GatekeeperSettings;
import io.cognitionstreams.gatekeeper.GatekeeperTopology;
import io.cognitionstreams.governance.GovernanceTopology;
import io.cognitionstreams.prompt.ModelClient;
import io.cognitionstreams.prompt.ToolCalling;
import io.cognitionstreams.redaction.Redactor;
import io.cognitionstreams.routing.DestinationMatrix;
import io.cognitionstreams.routing.OutputRouter;
import io.cognitionstreams.routing.RoutingTopology;
import io.cognitionstreams.signing.Ed25519;
import io.cognitionstreams.timetravel.AutoFixPolicy;
import io.cognitionstreams.timetravel.StageContracts;
import io.cognitionstreams.timetravel.TimeTravelTopology;
import io.cognitionstreams.tokens.Tokenizers;
import io.cognitionstreams.topics.Topics;
import io.cognitionstreams.topology.CouncilSeal;

/**
 * All capabilities of the app, each a static topology builder. Each runs as its own Kafka Streams application
 * ({@code <application id>-<capability>}): capabilities read some topics in common (assembly and routing both
 * read llm.outputs, one for history and one for routing), which one topology cannot do, and each scales, fails
 * and restores its state independently. The same builders are what topology-docs/ draws and what each
 * capability's tests drive.
 */
public final class Pipeline {

    // One per JVM like the model it wraps: every app of the runtime embeds prompts, memories and sentences with it.
    private static final SentenceEmbedder EMBEDDER = new CachingEmbedder(MiniLmEmbedder.shared(), 10_000);

    /** The static table, one per JVM, loaded (or distilled, the first time on a machine) when first asked for. */
    private static final class StaticTable {
        static final StaticEmbedder INSTANCE = StaticEmbedder.cachedIn(StaticEmbedder.defaultCache());
    }

    /** The domain objects the topologies wrap, built once per app. */
    public record Parts(PacketAssembler assembler, OutputRouter router, GatekeeperSettings gatekeeper,
                        CouncilSettings council, DecisionSignatures.Signer signer, int autoContinueSteps,
                        SessionBudgets budgets, Settings.MemorySettings memory, EmbeddingModel memoryModel) {

        /** Signs the app's council messages with the gatekeeper's key when the council requires signatures. */
        public CouncilSeal seal() {
            return CouncilSignatures.seal(council, signer.key());
        }

        /** The local parts only: extractive compression, no model tiers, the defaults of everything else. */
        public static Parts defaults() {
            return with(CompressionChain.builder()
                    .extractive(new ExtractiveSummarizer(EMBEDDER)).build(),
                    new OutputRouter(DestinationMatrix.defaults(), Redactor.defaults()), GatekeeperSettings.defaults(),
                    CouncilSettings.defaults(), DecisionSignatures.Signer.generated(), 0, SessionBudgets.NONE,
                    Settings.MemorySettings.defaults(), Settings.Provider.defaults().tools());
        }

        /**
         * With the Lite and Prime compression tiers when the settings name them, calling the model endpoint through
         * its shared client in {@code endpoints} ({@link ModelEndpoints#unlessDown}).
         */
        public static Parts of(Settings settings, ModelEndpoints endpoints) {
            CompressionChain.Builder chain = CompressionChain.builder()
                    .extractive(new ExtractiveSummarizer(EMBEDDER));
            Settings.ModelSettings model = settings.model();
            if (!model.usesReplay()) {
                ModelClient client = endpoints.unlessDown(model.endpoint().get());
                settings.compression().liteModel().ifPresent(name -> chain.lite(client, name));
                settings.compression().primeModel().ifPresent(name -> chain.prime(client, name));
            }
            Settings.RoutingSettings routing = settings.routing();
            try {
                Redactor redactor = routing.redactionConfig().isPresent()
                        ? Redactor.fromConfig(routing.redactionConfig().get()) : Redactor.defaults();
                DestinationMatrix matrix = routing.destinations().map(DestinationMatrix::parse)
                        .orElseGet(DestinationMatrix::defaults);
                ExecutorSettings tools = settings.executor();
                return with(chain.deadline(settings.compression().deadline()).build(),
                        new OutputRouter(matrix, redactor, routing.limits()), settings.gatekeeper(),
                        settings.council(), new DecisionSignatures.Signer(new Ed25519.Key(Ed25519.loadOrCreate(
                                tools.signingKeyFile(settings.stateDir())))), tools.autoContinueSteps(),
                        settings.budgets(), settings.memory(), model.provider().tools());
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException("cannot read the redaction config "
                        + routing.redactionConfig().get(), e);
            }
        }

        private static Parts with(FieldCompressor compressor, OutputRouter router, GatekeeperSettings gatekeeper,
                                  CouncilSettings council, DecisionSignatures.Signer signer,
                                  int autoContinueSteps, SessionBudgets budgets, Settings.MemorySettings memory,
                                  ToolCalling calling) {
            Tokenizers tokenizers = new Tokenizers();
            return new Parts(new PacketAssembler(tokenizers, TaskInstructions.defaults(tokenizers),
                    ContextLayers.defaults(compressor, calling), compressor, calling), router, gatekeeper, council,
                    signer, autoContinueSteps, budgets, memory, Pipeline.memoryModel(memory.embedder()));
        }
    }

    private Pipeline() {
    }

    /** What episodic memory embeds with: MiniLM behind the runtime's cache, or the static table. */
    public static EmbeddingModel memoryModel(Settings.MemoryEmbedder embedder) {
        return switch (embedder) {
            case MINILM -> EmbeddingModel.miniLm(EMBEDDER);
            case STATIC -> EmbeddingModel.of(StaticTable.INSTANCE);
        };
    }

    /**
     * A capability: how to build its topology, and the topics it reads that another capability owns (a function of
     * the topics, as tenants' requests topics are among them). Bad records on those are dead-lettered by their
     * owner, so this one skips them without a second letter.
     */
    public record Capability(BiConsumer<StreamsBuilder, Topics> builder,
                             Function<Topics, Set<String>> secondaryInputs) {
    }

    /** Each capability, by name, in the order records flow through them. */
    public static Map<String, Capability> capabilities(Parts parts) {
        Map<String, Capability> capabilities = new LinkedHashMap<>();
        // Routing owns llm.outputs, governance cognition.memory, the model worker cognition.packets (the gatekeeper
        // reads them for the recent turns it shows the council). tool.decisions is written by the gatekeeper and read
        // here only, so a bad record on it is this capability's to dead-letter.
        capabilities.put(AssemblyTopology.NAME, new Capability((builder, topics) ->
                AssemblyTopology.build(builder, topics, parts.assembler(), parts.memoryModel(),
                        parts.autoContinueSteps(), parts.budgets(), parts.memory().retention(),
                        parts.memory().shelves(), parts.seal()),
                topics -> Set.of(Topics.LLM_OUTPUTS, Topics.COGNITION_MEMORY)));
        capabilities.put(RoutingTopology.NAME, new Capability((builder, topics) ->
                RoutingTopology.build(builder, topics, parts.router(), parts.seal()), topics -> Set.of()));
        capabilities.put(GatekeeperTopology.NAME, new Capability((builder, topics) ->
                GatekeeperTopology.build(builder, topics, parts.gatekeeper(), parts.router().redactor(),
                        parts.signer(), parts.seal()), topics -> Set.of(Topics.COGNITION_PACKETS)));
        capabilities.put(CouncilTopology.NAME, new Capability((builder, topics) ->
                CouncilTopology.build(builder, topics, parts.council(), parts.router().redactor(),
                        parts.signer().key()), topics -> Set.of()));
        capabilities.put(TimeTravelTopology.NAME, new Capability((builder, topics) ->
                TimeTravelTopology.build(builder, topics, new StageContracts(parts.assembler().instructions()),
                        AutoFixPolicy.defaults(), parts.seal()),
                topics -> {
                    Set<String> owned = new HashSet<>(topics.requestTopicNames());
                    owned.addAll(Set.of(Topics.COGNITION_PACKETS, Topics.LLM_OUTPUTS));
                    return owned;
                }));
        // The skills, identity and memory the other capabilities mirror: their bad records are dead-lettered here.
        capabilities.put(GovernanceTopology.NAME, new Capability(GovernanceTopology::build, topics -> Set.of()));
        return capabilities;
    }

    public static Topology topology(String name, Topics topics, Parts parts, Properties streamsProperties) {
        // Built with the app's configuration, so the processor wrapper (InputGate) it names applies.
        StreamsBuilder builder = new StreamsBuilder(new TopologyConfig(new StreamsConfig(streamsProperties)));
        capability(name, parts).builder().accept(builder, topics);
        return builder.build(streamsProperties);
    }

    /** Without an app's configuration: for drawing the topology. */
    public static Topology topology(String name, Topics topics, Parts parts) {
        StreamsBuilder builder = new StreamsBuilder();
        capability(name, parts).builder().accept(builder, topics);
        return builder.build();
    }

    private static Capability capability(String name, Parts parts) {
        Capability capability = capabilities(parts).get(name);
        if (capability == null) {
            throw new IllegalArgumentException("no capability named " + name);
        }
        return capability;
    }
}
