package io.cognitionstreams.app;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;
import java.util.function.BiConsumer;

import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.Topology;

import io.cognitionstreams.assembly.AssemblyTopology;
import io.cognitionstreams.assembly.ContextLayers;
import io.cognitionstreams.assembly.FieldCompressor;
import io.cognitionstreams.assembly.PacketAssembler;
import io.cognitionstreams.assembly.TaskInstructions;
import io.cognitionstreams.routing.DestinationMatrix;
import io.cognitionstreams.routing.OutputRouter;
import io.cognitionstreams.routing.RoutingTopology;
import io.cognitionstreams.tokens.Tokenizers;
import io.cognitionstreams.topics.Topics;

/**
 * All capabilities of the app, each a static topology builder. Each runs as its own Kafka Streams application
 * ({@code <application id>-<capability>}): capabilities read some topics in common (assembly and routing both
 * read llm.outputs, one for history and one for routing), which one topology cannot do, and each scales, fails
 * and restores its state independently. The same builders are what topology-docs/ draws and what each
 * capability's tests drive.
 */
public final class Pipeline {

    /** The domain objects the topologies wrap, built once per app. */
    public record Parts(PacketAssembler assembler, OutputRouter router) {

        public static Parts defaults() {
            Tokenizers tokenizers = new Tokenizers();
            FieldCompressor compressor = FieldCompressor.NONE;
            return new Parts(new PacketAssembler(tokenizers, TaskInstructions.defaults(tokenizers),
                    ContextLayers.defaults(compressor), compressor),
                    new OutputRouter(DestinationMatrix.defaults()));
        }
    }

    private Pipeline() {
    }

    /** Each capability's builder, by name, in the order records flow through them. */
    public static Map<String, BiConsumer<StreamsBuilder, Topics>> capabilities(Parts parts) {
        Map<String, BiConsumer<StreamsBuilder, Topics>> capabilities = new LinkedHashMap<>();
        capabilities.put(AssemblyTopology.NAME, (builder, topics) ->
                AssemblyTopology.build(builder, topics, parts.assembler()));
        capabilities.put(RoutingTopology.NAME, (builder, topics) ->
                RoutingTopology.build(builder, topics, parts.router()));
        return capabilities;
    }

    public static Topology topology(String name, Topics topics, Parts parts, Properties streamsProperties) {
        BiConsumer<StreamsBuilder, Topics> capability = capabilities(parts).get(name);
        if (capability == null) {
            throw new IllegalArgumentException("no capability named " + name);
        }
        StreamsBuilder builder = new StreamsBuilder();
        capability.accept(builder, topics);
        return builder.build(streamsProperties);
    }

    public static Topology topology(String name, Topics topics, Parts parts) {
        return topology(name, topics, parts, new Properties());
    }
}
