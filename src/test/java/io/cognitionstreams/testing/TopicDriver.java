package io.cognitionstreams.testing;

import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;

import io.cognitionstreams.topics.Topic;

/** Test topics created from the app's own {@link Topic} bindings, so tests use exactly the app's serdes. */
public final class TopicDriver {

    private TopicDriver() {
    }

    public static <K, V> TestInputTopic<K, V> input(TopologyTestDriver driver, Topic<K, V> topic) {
        return driver.createInputTopic(topic.name(), topic.keySerde().serializer(), topic.valueSerde().serializer());
    }

    public static <K, V> TestOutputTopic<K, V> output(TopologyTestDriver driver, Topic<K, V> topic) {
        return driver.createOutputTopic(topic.name(), topic.keySerde().deserializer(),
                topic.valueSerde().deserializer());
    }

    /** For bytes no serde would write: the dead-letter tests. */
    public static TestInputTopic<String, byte[]> raw(TopologyTestDriver driver, Topic<?, ?> topic) {
        return driver.createInputTopic(topic.name(), new StringSerializer(), new ByteArraySerializer());
    }
}
