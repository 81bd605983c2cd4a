package io.cognitionstreams.topology;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Properties;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.processor.TaskId;
import org.apache.kafka.streams.processor.api.MockProcessorContext;
import org.apache.kafka.streams.state.Stores;
import org.apache.kafka.streams.state.WindowBytesStoreSupplier;
import org.apache.kafka.streams.state.WindowStore;
import org.apache.kafka.streams.state.internals.OffsetCheckpoint;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The committed offset a window store gives Kafka Streams when its task starts: what decides, under exactly-once,
 * whether the task resumes from its local stores or is wiped and restored from its changelogs (a store with no
 * offset in a task directory holding data is taken for one a crash left). TopologyTestDriver cannot show a restart
 * (it deletes its state directory when closed), so the stores are opened, committed and closed here as a task does;
 * WindowStores' effect on a whole run is checked by RunCommandIT.
 */
class WindowStoresTest {

    private static final Duration RETENTION = Duration.ofHours(1);
    private static final TopicPartition CHANGELOG = new TopicPartition("app-results-changelog", 0);
    private static final long NOW = 1_800_000_000_000L;

    @TempDir
    Path stateDir;

    @Test
    void anEmptyStoreClosedCleanlyRestoresItsChangelogInsteadOfCorruptingItsTask() {
        WindowStore<Bytes, byte[]> store = open(WindowStores.persistent("results", RETENTION, RETENTION));
        assertThat(store.committedOffset(CHANGELOG)).as("nothing committed yet, nothing held")
                .isEqualTo(OffsetCheckpoint.OFFSET_UNKNOWN);
        store.commit(Map.of(CHANGELOG, 41L));
        store.close();

        WindowStore<Bytes, byte[]> reopened = open(WindowStores.persistent("results", RETENTION, RETENTION));
        assertThat(reopened.committedOffset(CHANGELOG)).isEqualTo(OffsetCheckpoint.OFFSET_UNKNOWN);
        reopened.close();
    }

    @Test
    void aStoreHoldingRecordsGivesTheOffsetItCommitted() {
        WindowStore<Bytes, byte[]> store = open(WindowStores.persistent("results", RETENTION, RETENTION));
        store.put(key("s1/call-1"), bytes("result"), NOW);
        store.commit(Map.of(CHANGELOG, 42L));
        store.close();

        WindowStore<Bytes, byte[]> reopened = open(WindowStores.persistent("results", RETENTION, RETENTION));
        assertThat(reopened.committedOffset(CHANGELOG)).isEqualTo(42L);
        assertThat(reopened.fetch(key("s1/call-1"), NOW)).isEqualTo(bytes("result"));
        reopened.close();
    }

    @Test
    void aStoreHoldingRecordsItNeverCommittedHasNoOffset() {
        WindowStore<Bytes, byte[]> store = open(WindowStores.persistent("results", RETENTION, RETENTION));
        store.put(key("s1/call-1"), bytes("uncommitted"), NOW);

        assertThat(store.committedOffset(CHANGELOG)).as("uncommitted writes: the task must be restored").isNull();
        store.close();
    }

    /**
     * What {@link WindowStores} is for: Kafka's own window store keeps its offset in its segments, so with none it
     * forgets what it was given. When this fails, a Kafka upgrade fixed it and WindowStores can go
     * (docs/reliability.md, "What a clean stop guarantees").
     */
    @Test
    void kafkasOwnEmptyWindowStoreForgetsTheOffsetItCommitted() {
        WindowStore<Bytes, byte[]> store = open(Stores.persistentWindowStore("results", RETENTION, RETENTION, false));
        store.commit(Map.of(CHANGELOG, 41L));

        assertThat(store.committedOffset(CHANGELOG)).isNull();
        store.close();
    }

    private WindowStore<Bytes, byte[]> open(WindowBytesStoreSupplier supplier) {
        Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, "window-stores");
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
        MockProcessorContext<Object, Object> context = new MockProcessorContext<>(props, new TaskId(0, 0),
                new File(stateDir.toString()));
        WindowStore<Bytes, byte[]> store = supplier.get();
        store.init(context.getStateStoreContext(), store);
        return store;
    }

    private static Bytes key(String text) {
        return Bytes.wrap(bytes(text));
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
