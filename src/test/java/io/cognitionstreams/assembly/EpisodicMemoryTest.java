package io.cognitionstreams.assembly;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import org.junit.jupiter.api.Test;

import io.cognitionstreams.embeddings.EmbeddingModel;
import io.cognitionstreams.embeddings.MiniLmEmbedder;
import io.cognitionstreams.embeddings.StaticEmbedder;
import io.cognitionstreams.embeddings.Vectors;
import io.cognitionstreams.governance.MemoryEntries;
import io.cognitionstreams.schema.Marker;
import io.cognitionstreams.schema.MemoryEntry;
import io.cognitionstreams.schema.MemoryLookup;
import io.cognitionstreams.schema.RoutedBlock;

class EpisodicMemoryTest {

    private static final EmbeddingModel TABLE = EmbeddingModel.of(StaticEmbedder.cachedIn(
            StaticEmbedder.defaultCache()));
    private static final EpisodicMemory.Source SOURCE = new EpisodicMemory.Source("channel.memory", 0, 7,
            Instant.parse("2026-11-26T10:00:00Z"));

    /** A model whose vector of a text is its length in one of two axes, and which counts what it embeds. */
    private final List<String> embedded = new ArrayList<>();
    private final EmbeddingModel fake = new EmbeddingModel(StaticEmbedder.MODEL, sentences -> {
        embedded.addAll(sentences);
        return sentences.stream().map(text -> axis(text.contains("backup") ? 0 : 1)).toList();
    });

    @Test
    void anEntryCarriesTheNameOfTheModelThatEmbeddedIt() {
        MemoryEntry entry = EpisodicMemory.remember(block("b1", "VERIFY: the backup restored."), SOURCE, fake);

        assertThat(entry.getEmbeddingModel()).isEqualTo(StaticEmbedder.MODEL);
        assertThat(MemoryEntries.vector(entry)).hasSize(384).startsWith(1f, 0f);
        assertThat(entry.getEmbedding()).isEmpty();
        assertThat(MemoryEntries.refuse("b1", entry)).isEmpty();
    }

    @Test
    void anEntryOfTheRunningModelKeepsItsStoredVector() {
        MemoryEntry entry = EpisodicMemory.remember(block("b1", "VERIFY: the backup restored."), SOURCE, fake);
        embedded.clear();
        MemoryIndex index = new MemoryIndex();

        EpisodicMemory.index(index, "b1", entry, fake);

        assertThat(embedded).isEmpty();
        assertThat(index.nearest("ops", axis(0), 1, 0.5, Long.MAX_VALUE)).extracting(MemoryIndex.Hit::text)
                .containsExactly("VERIFY: the backup restored.");
    }

    @Test
    void anEntryOfTheOtherModelIsEmbeddedAgainFromItsTextAndSearched() {
        // Stored by MiniLM with a vector on the axis the running model gives unrelated texts.
        MemoryEntry old = EpisodicMemory.remember(block("b1", "VERIFY: the backup restored."), SOURCE,
                new EmbeddingModel(MiniLmEmbedder.MODEL, sentences -> List.of(axis(1))));
        MemoryIndex index = new MemoryIndex();

        EpisodicMemory.index(index, "b1", old, fake);

        assertThat(embedded).containsExactly("VERIFY: the backup restored.");
        assertThat(index.nearest("ops", axis(0), 3, EpisodicMemory.MIN_SIMILARITY, Long.MAX_VALUE))
                .extracting(MemoryIndex.Hit::text).containsExactly("VERIFY: the backup restored.");
    }

    @Test
    void aTaskKeepsAnEntryOfTheOtherModelInItsOwnAndRecallsItForAPrompt() {
        MemoryEntry old = EpisodicMemory.remember(block("b1", "VERIFY: the backup restored."), SOURCE,
                new EmbeddingModel(MiniLmEmbedder.MODEL, sentences -> List.of(axis(1))));
        MapEntries store = new MapEntries();
        EpisodicMemory memory = new EpisodicMemory(fake, new MemoryShelves(1 << 20, Duration.ofHours(1)), "0_0",
                store);

        memory.keep(old, MemoryRetention.defaults(), SOURCE.writtenAt());

        MemoryEntry kept = store.entries.firstEntry().getValue();
        assertThat(kept.getEmbeddingModel()).isEqualTo(StaticEmbedder.MODEL);
        assertThat(kept.getEmbedding()).as("the vector is in bytes, not floats").isEmpty();
        assertThat(MemoryEntries.vector(kept)).startsWith(1f, 0f);
        assertThat(memory.in("ops", Optional.empty()).similar("how long does a backup take?", 3))
                .containsExactly("VERIFY: the backup restored.");
        assertThat(memory.in("ops", Optional.of(SOURCE.writtenAt().minusSeconds(1))).similar("a backup?", 3))
                .as("as of before it was written").isEmpty();
        assertThat(memory.in("dev", Optional.empty()).similar("how long does a backup take?", 3))
                .as("another scope").isEmpty();
    }

    @Test
    void aScopeComesBackFromTheStoreAfterItsShelfWasLetGo() throws InterruptedException {
        MapEntries store = new MapEntries();
        MemoryShelves shelves = new MemoryShelves(1 << 20, Duration.ofMillis(1));
        EpisodicMemory memory = new EpisodicMemory(fake, shelves, "0_0", store);
        memory.keep(EpisodicMemory.remember(block("b1", "VERIFY: the backup restored."), SOURCE, fake),
                MemoryRetention.defaults(), SOURCE.writtenAt());
        Thread.sleep(5);

        assertThat(shelves.dropIdle()).isEqualTo(1);
        assertThat(shelves.size()).isZero();
        assertThat(memory.in("ops", Optional.empty()).similar("how long does a backup take?", 3))
                .containsExactly("VERIFY: the backup restored.");
        assertThat(shelves.size()).isOne();
    }

    @Test
    void withTheStaticTableAPromptRecallsTheMemoryItAsksAbout() {
        MapEntries store = new MapEntries();
        EpisodicMemory memory = withTheTable(store);
        List<String> texts = List.of("VERIFY: the database backup restored in four minutes.",
                "THOUGHT_SEED: try a canary deploy for the payment service.",
                "THOUGHT_SEED: Alice prefers short answers with the command first.");
        for (int i = 0; i < texts.size(); i++) {
            MemoryEntry entry = EpisodicMemory.remember(block("b" + i, texts.get(i)), SOURCE, TABLE);
            assertThat(entry.getEmbeddingModel()).isEqualTo(StaticEmbedder.MODEL);
            memory.keep(entry, MemoryRetention.defaults(), SOURCE.writtenAt());
        }

        assertThat(memory.in("ops", Optional.empty()).similar("How long does restoring the database backup take?",
                1)).containsExactly(texts.get(0));
    }

    @Test
    void aTurnRecallsTheSameWhereItsScopeIsHeldAndALookupAwayAndEntriesOfEveryFormAreRead() {
        MapEntries store = new MapEntries();
        EpisodicMemory memory = withTheTable(store);
        List<String> texts = List.of("VERIFY: the database backup restored in four minutes.",
                "VERIFY: the nightly database backup took an hour.",
                "THOUGHT_SEED: try a canary deploy for the payment service.",
                "THOUGHT_SEED: Alice prefers short answers with the command first.");
        for (int i = 0; i < texts.size(); i++) {
            MemoryEntry entry = EpisodicMemory.remember(block("b" + i, texts.get(i)), SOURCE, TABLE);
            float[] vector = MemoryEntries.vector(entry);
            List<Float> floats = new ArrayList<>();
            for (float value : vector) {
                floats.add(value);
            }
            // As entries of earlier versions carry it: floats in bytes, and before those an array.
            MemoryEntry written = switch (i) {
                case 1 -> MemoryEntry.newBuilder(entry).setVectorInt8(null).setVector(floatBytes(vector)).build();
                case 2 -> MemoryEntry.newBuilder(entry).setVectorInt8(null).setEmbedding(floats).build();
                default -> entry;
            };
            memory.keep(written, MemoryRetention.defaults(), SOURCE.writtenAt());
        }
        String prompt = "How long does restoring the database backup take?";
        float[] unit = memory.embed(prompt);
        store.reads = 0;
        MemoryLookup.Builder lookup = MemoryLookup.newBuilder().setSessionId("s").setSequence(0).setScope("ops")
                .setEmbeddingModel(TABLE.name()).setK(3);

        List<String> here = memory.in("ops", Optional.empty()).similar(prompt, 3);

        assertThat(here).hasSize(3).startsWith(texts.get(0));
        for (MemoryLookup sent : List.of(
                lookup.setQuery(ByteBuffer.allocate(0)).setQueryInt8(Vectors.toInt8(unit)).build(),
                lookup.setQuery(floatBytes(unit)).setQueryInt8(null).build())) {
            assertThat(memory.search("ops", EpisodicMemory.queryOf(sent), 3, Long.MAX_VALUE))
                    .extracting(MemoryIndex.Hit::text).as("a lookup away, with its prompt as %s",
                            sent.getQueryInt8() != null ? "8 bits" : "floats of an earlier version")
                    .containsExactlyElementsOf(here);
        }
        assertThat(store.reads).as("every memory is kept in 8 bits, as its shelf holds it: no exact vector is read")
                .isZero();
    }

    @Test
    void aStoreRestoredFromAnEarlierVersionsFloatsIsRankedByThem() {
        MapEntries store = new MapEntries();
        // Not multiples of a 127th of their largest value: 8 bits would lose something of them.
        float[] first = Vectors.unit(new float[] {0.3f, 1});
        float[] second = Vectors.unit(new float[] {1, 0.3f});
        store.put("ops", MemoryEntry.newBuilder(EpisodicMemory.remember(block("b1", "VERIFY: one."), SOURCE, fake))
                .setVectorInt8(null).setVector(floatBytes(pad(first))).build());
        store.put("ops", MemoryEntry.newBuilder(EpisodicMemory.remember(block("b2", "VERIFY: two."), SOURCE, fake))
                .setVectorInt8(null).setVector(floatBytes(pad(second))).build());
        EpisodicMemory memory = new EpisodicMemory(fake, new MemoryShelves(1 << 20, Duration.ofHours(1)), "0_0",
                store);

        assertThat(memory.search("ops", pad(new float[] {0, 1}), 1, Long.MAX_VALUE)).extracting(MemoryIndex.Hit::text)
                .containsExactly("VERIFY: one.");
        assertThat(store.reads).as("their exact vectors were read").isPositive();
    }

    @Test
    void governanceKeepsEntriesOfEitherModelAndRefusesAnyOther() {
        MemoryEntry entry = EpisodicMemory.remember(block("b1", "VERIFY: the backup restored."), SOURCE, fake);

        entry.setEmbeddingModel(MiniLmEmbedder.MODEL);
        assertThat(MemoryEntries.refuse("b1", entry)).isEmpty();
        entry.setEmbeddingModel("text-embedding-3-small");
        assertThat(MemoryEntries.refuse("b1", entry)).hasValue("embedded with text-embedding-3-small, memory is "
                + "embedded with one of [all-MiniLM-L6-v2-q, all-MiniLM-L6-v2-q-static-sif]");
    }

    private static EpisodicMemory withTheTable(MapEntries store) {
        return new EpisodicMemory(TABLE, new MemoryShelves(1 << 20, Duration.ofHours(1)), "0_0", store);
    }

    private static RoutedBlock block(String id, String text) {
        return RoutedBlock.newBuilder().setBlockId(id).setOutputId("o").setPacketId("p").setRequestId("r")
                .setSessionId("s").setMarker(Marker.VERIFY).setSequence(0).setBlockCount(1).setChannel("memory")
                .setText(text).setTimestamp(SOURCE.writtenAt()).setMemoryScope("ops").build();
    }

    private static ByteBuffer floatBytes(float[] vector) {
        ByteBuffer bytes = ByteBuffer.allocate(vector.length * Float.BYTES).order(ByteOrder.LITTLE_ENDIAN);
        bytes.asFloatBuffer().put(vector);
        return bytes;
    }

    private static float[] pad(float[] head) {
        float[] vector = new float[384];
        System.arraycopy(head, 0, vector, 0, head.length);
        return vector;
    }

    private static float[] axis(int axis) {
        float[] vector = new float[384];
        vector[axis] = 1;
        return vector;
    }
}
