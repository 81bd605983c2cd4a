package io.cognitionstreams.assembly;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;

import org.junit.jupiter.api.Test;

import io.cognitionstreams.embeddings.EmbeddingModel;
import io.cognitionstreams.embeddings.StaticEmbedder;
import io.cognitionstreams.embeddings.Vectors;
import io.cognitionstreams.schema.Marker;
import io.cognitionstreams.schema.MemoryEntry;

class MemoryRetentionTest {

    private static final Instant NOW = Instant.parse("2026-11-22T10:00:00Z");
    private static final EmbeddingModel MODEL = new EmbeddingModel(StaticEmbedder.MODEL,
            sentences -> sentences.stream().map(text -> axis()).toList());

    private final MapEntries store = new MapEntries();
    private final EpisodicMemory memory = new EpisodicMemory(MODEL, new MemoryShelves(1 << 20, Duration.ofHours(1)),
            "0_0", store);

    @Test
    void keepingAnEntryForgetsTheOldestPastTheScopesCountButNotForARewrite() {
        MemoryRetention three = new MemoryRetention(3, Duration.ZERO);
        for (int i = 0; i < 3; i++) {
            assertThat(memory.keep(entry("b" + i, "ops", NOW.plusMillis(i)), three, NOW)).isEmpty();
        }

        assertThat(memory.keep(entry("b3", "ops", NOW.plusMillis(3)), three, NOW))
                .containsExactly(new EpisodicMemory.Forgotten("ops", "b0"));
        assertThat(memory.keep(entry("b2", "ops", NOW.plusMillis(2)), three, NOW)).as("b2 rewritten: still three")
                .isEmpty();
        assertThat(memory.keep(entry("d1", "dev", NOW), new MemoryRetention(1, Duration.ZERO), NOW))
                .as("another scope's count").isEmpty();
        assertThat(memory.keep(entry("b4", "ops", NOW.plusMillis(4)), new MemoryRetention(1, Duration.ZERO), NOW))
                .extracting(EpisodicMemory.Forgotten::id).containsExactly("b1", "b2", "b3");
        assertThat(store.entries.keySet()).containsExactly(MemoryStore.key("dev", "d1"), MemoryStore.key("ops", "b4"));
    }

    @Test
    void theSweepForgetsWhatIsTooOldInEveryScopeStepByStep() {
        MemoryRetention unbounded = new MemoryRetention(0, Duration.ZERO);
        memory.keep(entry("a-old", "a", NOW.minus(Duration.ofDays(91))), unbounded, NOW);
        memory.keep(entry("a-new", "a", NOW), unbounded, NOW);
        memory.keep(entry("b-old", "b", NOW.minus(Duration.ofDays(100))), unbounded, NOW);
        memory.keep(entry("c-new", "c", NOW), unbounded, NOW);

        EpisodicMemory.Sweep first = memory.sweep(MemoryRetention.defaults(), NOW, null, 2);
        EpisodicMemory.Sweep second = memory.sweep(MemoryRetention.defaults(), NOW, first.next(), 2);
        EpisodicMemory.Sweep last = memory.sweep(MemoryRetention.defaults(), NOW, second.next(), 2);

        assertThat(first.forgotten()).containsExactly(new EpisodicMemory.Forgotten("a", "a-old"));
        assertThat(second.forgotten()).containsExactly(new EpisodicMemory.Forgotten("b", "b-old"));
        assertThat(last.forgotten()).isEmpty();
        assertThat(last.next()).as("the end: the next sweep starts over").isNull();
        assertThat(store.entries.keySet()).containsExactly(MemoryStore.key("a", "a-new"),
                MemoryStore.key("c", "c-new"));
        assertThat(memory.in("a", java.util.Optional.empty()).similar("anything", 3)).containsExactly("new");
        assertThat(unbounded.bounded()).isFalse();
        assertThat(unbounded.tooOld(NOW.minus(Duration.ofDays(1000)), NOW)).isFalse();
    }

    @Test
    void aNegativeBoundIsRefused() {
        assertThatThrownBy(() -> new MemoryRetention(-1, Duration.ZERO)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("memory max entries must be 0 (no bound) or more, was -1");
        assertThatThrownBy(() -> new MemoryRetention(1, Duration.ofSeconds(-1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("memory max age must be zero");
    }

    private static MemoryEntry entry(String id, String scope, Instant writtenAt) {
        String text = id.substring(id.indexOf('-') + 1);
        return MemoryEntry.newBuilder().setBlockId(id).setSessionId("s").setMarker(Marker.VERIFY)
                .setText(id.startsWith("b") ? "lesson " + id : text).setEmbeddingModel(StaticEmbedder.MODEL)
                .setVectorInt8(Vectors.toInt8(axis())).setTimestamp(writtenAt).setWrittenAt(writtenAt).setScope(scope)
                .build();
    }

    private static float[] axis() {
        float[] vector = new float[384];
        vector[0] = 1;
        return vector;
    }
}
