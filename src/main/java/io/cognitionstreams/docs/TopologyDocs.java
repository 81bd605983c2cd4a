package io.cognitionstreams.docs;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.TopologyDescription;

import io.cognitionstreams.app.Pipeline;
import io.cognitionstreams.security.Principals;
import io.cognitionstreams.serde.SingleObjectAvroSerdeFactory;
import io.cognitionstreams.topics.OutputLimits;
import io.cognitionstreams.topics.Topics;

/**
 * Draws topology-docs/ from {@link Topology#describe()}: per capability the raw description ({@code .txt}) and a
 * Mermaid diagram ({@code .md}). The build runs it at package time; TopologyDocsTest fails when the committed
 * files differ from what the code describes.
 */
public final class TopologyDocs {

    public static final String REGENERATE = "mvn -q -B -DskipTests package (or: mvn -q compile exec:java@topology-docs)";

    private TopologyDocs() {
    }

    public static void main(String[] args) throws IOException {
        Path dir = Path.of(args.length > 0 ? args[0] : "topology-docs");
        Files.createDirectories(dir);
        for (Map.Entry<String, String> file : render().entrySet()) {
            Files.writeString(dir.resolve(file.getKey()), file.getValue(), StandardCharsets.UTF_8);
        }
    }

    /** File name to content, for every capability. */
    public static Map<String, String> render() {
        // With the default tenants of `run --secure`, so the docs draw the tenants' requests and chat topics that
        // docs/security.md explains; without tenants those sources and sinks are simply absent.
        Topics topics = new Topics(new SingleObjectAvroSerdeFactory(), OutputLimits.defaults(),
                Principals.defaultTenants());
        Pipeline.Parts parts = Pipeline.Parts.defaults();
        Map<String, String> files = new LinkedHashMap<>();
        for (String name : Pipeline.capabilities(parts).keySet()) {
            TopologyDescription description = Pipeline.topology(name, topics, parts).describe();
            files.put(name + ".txt", description.toString());
            files.put(name + ".md", mermaid(name, description));
        }
        return files;
    }

    static String mermaid(String name, TopologyDescription description) {
        StringBuilder md = new StringBuilder();
        md.append("# Topology: ").append(name).append("\n\n")
                .append("Generated from `Topology.describe()` by ").append(TopologyDocs.class.getSimpleName())
                .append("; do not edit. Regenerate with `").append(REGENERATE).append("`.\n\n")
                .append("```mermaid\nflowchart LR\n");
        Set<String> topics = new TreeSet<>();
        Set<String> stores = new TreeSet<>();
        StringBuilder edges = new StringBuilder();
        for (TopologyDescription.Subtopology sub : description.subtopologies()) {
            md.append("  subgraph sub").append(sub.id()).append("[\"sub-topology ").append(sub.id()).append("\"]\n");
            for (TopologyDescription.Node node : sub.nodes()) {
                md.append("    ").append(id(node.name())).append("[\"").append(node.name()).append("\"]\n");
                for (TopologyDescription.Node next : node.successors()) {
                    edges.append("  ").append(id(node.name())).append(" --> ").append(id(next.name())).append('\n');
                }
                if (node instanceof TopologyDescription.Source source && source.topicSet() != null) {
                    for (String topic : source.topicSet()) {
                        topics.add(topic);
                        edges.append("  ").append(topicId(topic)).append(" --> ").append(id(node.name())).append('\n');
                    }
                }
                if (node instanceof TopologyDescription.Sink sink && sink.topic() != null) {
                    topics.add(sink.topic());
                    edges.append("  ").append(id(node.name())).append(" --> ").append(topicId(sink.topic())).append('\n');
                }
                if (node instanceof TopologyDescription.Processor processor) {
                    for (String store : processor.stores()) {
                        stores.add(store);
                        edges.append("  ").append(id(node.name())).append(" -.- ").append(storeId(store)).append('\n');
                    }
                }
            }
            md.append("  end\n");
        }
        for (TopologyDescription.GlobalStore global : description.globalStores()) {
            String topic = global.source().topicSet().iterator().next();
            topics.add(topic);
            for (String store : global.processor().stores()) {
                stores.add(store);
                edges.append("  ").append(topicId(topic)).append(" --> ").append(storeId(store)).append('\n');
            }
        }
        topics.forEach(topic -> md.append("  ").append(topicId(topic)).append("([\"").append(topic).append("\"])\n"));
        stores.forEach(store -> md.append("  ").append(storeId(store)).append("[(\"").append(store).append("\")]\n"));
        md.append(edges).append("```\n");
        return md.toString();
    }

    private static String id(String node) {
        return "n_" + node.replaceAll("[^A-Za-z0-9_]", "_");
    }

    private static String topicId(String topic) {
        return "t_" + topic.replaceAll("[^A-Za-z0-9_]", "_");
    }

    private static String storeId(String store) {
        return "s_" + store.replaceAll("[^A-Za-z0-9_]", "_");
    }
}
