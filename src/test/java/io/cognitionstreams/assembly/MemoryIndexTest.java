package io.cognitionstreams.assembly;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import org.junit.jupiter.api.Test;

import io.cognitionstreams.embeddings.Vectors;

class MemoryIndexTest {

    private static final String S = "team";

    private final MemoryIndex index = new MemoryIndex();

    @Test
    void returnsTheMostSimilarTextsAboveTheThresholdBestFirst() {
        index.put("a", S, "east", 0, Vectors.unit(new float[] {1, 0, 0}));
        index.put("b", S, "north-east", 0, Vectors.unit(new float[] {1, 1, 0}));
        index.put("c", S, "north", 0, Vectors.unit(new float[] {0, 1, 0}));
        index.put("d", S, "west", 0, Vectors.unit(new float[] {-1, 0, 0}));

        float[] query = Vectors.unit(new float[] {1, 0.2f, 0});
        assertThat(texts(query, 2, 0.3)).containsExactly("east", "north-east");
        assertThat(texts(query, 10, 0.3)).containsExactly("east", "north-east");
        assertThat(texts(query, 10, -1)).containsExactly("east", "north-east", "north", "west");
        assertThat(texts(query, 0, -1)).isEmpty();
    }

    @Test
    void equalScoresAreOrderedByText() {
        index.put("1", S, "zulu", 0, new float[] {1, 0});
        index.put("2", S, "alpha", 0, new float[] {1, 0});
        index.put("3", S, "mike", 0, new float[] {1, 0});

        assertThat(texts(new float[] {1, 0}, 2, 0)).containsExactly("alpha", "mike");
    }

    @Test
    void entriesWithTheSameTextAreOneMemoryUntilTheLastIsRemoved() {
        index.put("b1", S, "VERIFY: tests passed", 0, new float[] {1, 0});
        index.put("b2", S, "VERIFY: tests passed", 0, new float[] {1, 0});
        index.put("b3", S, "the deploy failed", 0, new float[] {0, 1});

        assertThat(distinct(S, 2)).isEqualTo(2);
        assertThat(texts(new float[] {1, 0}, 3, -1)).containsExactly("VERIFY: tests passed",
                "the deploy failed");
        index.remove("b1");
        assertThat(texts(new float[] {1, 0}, 3, 0.5)).containsExactly("VERIFY: tests passed");
        index.remove("b2");
        assertThat(texts(new float[] {1, 0}, 3, -1)).containsExactly("the deploy failed");
        index.remove("b2");
        assertThat(distinct(S, 2)).isEqualTo(1);
    }

    @Test
    void aNewValueForAnIdReplacesItsOldText() {
        index.put("b1", S, "old", 0, new float[] {1, 0});
        index.put("b1", S, "new", 0, new float[] {0, 1});

        assertThat(texts(new float[] {1, 0}, 5, -1)).containsExactly("new");
        assertThat(distinct(S, 2)).isEqualTo(1);
    }

    @Test
    void refusesAVectorOfAnotherDimensionAndLeavesTheIndexAsItWas() {
        index.put("a", S, "x", 0, new float[] {1, 0});

        assertThatThrownBy(() -> index.put("b", S, "y", 0, new float[] {1, 0, 0}))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("3 dimensions");
        assertThat(texts(new float[] {1, 0, 0}, 5, -1)).isEmpty();
        assertThat(texts(new float[] {1, 0}, 5, -1)).containsExactly("x");
    }

    @Test
    void aScopesSearchScoresItsOwnMemoriesOnly() {
        index.put("a1", "tenant-a", "deploy with a canary first", 0, new float[] {1, 0});
        index.put("b1", "tenant-b", "deploy with a canary first", 0, new float[] {1, 0});
        index.put("b2", "tenant-b", "roll back on any 5xx", 0, new float[] {0.9f, 0.1f});

        assertThat(index.nearest("tenant-a", new float[] {1, 0}, 5, -1, Long.MAX_VALUE))
                .extracting(MemoryIndex.Hit::text).containsExactly("deploy with a canary first");
        assertThat(index.nearest("tenant-c", new float[] {1, 0}, 5, -1, Long.MAX_VALUE)).isEmpty();
        assertThat(index.scopes()).containsExactlyInAnyOrder("tenant-a", "tenant-b");
        assertThat(index.entries("tenant-b")).isEqualTo(2);

        // An entry rewritten into another scope leaves its first one; a scope without entries is gone.
        index.put("a1", "tenant-b", "deploy with a canary first", 0, new float[] {1, 0});
        assertThat(index.scopes()).containsExactly("tenant-b");
        assertThat(index.scopeOf("a1")).contains("tenant-b");
        assertThat(distinct("tenant-b", 2)).isEqualTo(2);
        assertThat(index.entries("tenant-b")).isEqualTo(3);
    }

    @Test
    void aSearchAsOfATimeSeesTheTextsWrittenByThenCountingEachFromItsFirstEntry() {
        index.put("early", S, "tests passed", 100, new float[] {1, 0});
        index.put("later", S, "tests passed", 300, new float[] {1, 0});
        index.put("new", S, "the deploy failed", 200, new float[] {0, 1});

        assertThat(texts(new float[] {1, 0}, 5, -1, 99)).isEmpty();
        assertThat(index.holdsAny(S, 99)).isFalse();
        assertThat(texts(new float[] {1, 0}, 5, -1, 100)).containsExactly("tests passed");
        assertThat(index.holdsAny(S, 100)).isTrue();
        assertThat(texts(new float[] {1, 0}, 5, -1, 200)).containsExactly("tests passed", "the deploy failed");

        // Its first entry gone, the text counts from the next one.
        index.remove("early");
        assertThat(texts(new float[] {1, 0}, 5, -1, 250)).containsExactly("the deploy failed");
        assertThat(texts(new float[] {1, 0}, 5, -1, 300)).containsExactly("tests passed", "the deploy failed");
    }

    @Test
    void overTheBoundAreTheEntriesWrittenTooLongAgoThenTheOldestBeyondTheCount() {
        for (int i = 0; i < 6; i++) {
            index.put("b" + i, S, "memory " + (i % 4), 1_000 + i, new float[] {1, 0});
        }

        assertThat(index.overBound(S, 10, 0)).isEmpty();
        assertThat(index.overBound(S, 4, 0)).containsExactly("b0", "b1");
        assertThat(index.overBound(S, 10, 1_003)).containsExactly("b0", "b1", "b2");
        assertThat(index.overBound(S, 1, 1_002)).containsExactly("b0", "b1", "b2", "b3", "b4");
        assertThat(index.overBound("elsewhere", 0, Long.MAX_VALUE)).isEmpty();
    }

    /**
     * Thousands of puts, replacements and removals across scopes and times, checked against a plain map searched by
     * brute force, in a random scope as of a random time.
     */
    @Test
    void agreesWithABruteForceSearchAfterAnySequenceOfChanges() {
        Random random = new Random(7);
        Map<String, Held> held = new HashMap<>();
        Map<String, float[]> vectorOfText = new HashMap<>();
        List<String> scopes = List.of("a", "b", "c");
        for (int step = 0; step < 5_000; step++) {
            String id = "b" + random.nextInt(400);
            if (random.nextInt(4) == 0) {
                index.remove(id);
                held.remove(id);
            } else {
                // Few texts, so ids often share one; a text always has the same vector, as with a real model.
                String text = "t" + random.nextInt(150);
                String scope = scopes.get(random.nextInt(scopes.size()));
                long writtenAt = random.nextInt(1_000);
                float[] vector = vectorOfText.computeIfAbsent(text, t -> Vectors.unit(gaussian(random, 24)));
                index.put(id, scope, text, writtenAt, vector);
                held.put(id, new Held(scope, text, writtenAt));
            }
            if (step % 50 == 0) {
                float[] query = Vectors.unit(gaussian(random, 24));
                String scope = scopes.get(random.nextInt(scopes.size()));
                long until = random.nextBoolean() ? Long.MAX_VALUE : random.nextInt(1_000);
                assertThat(index.nearest(scope, query, 5, 0.1, until)).extracting(MemoryIndex.Hit::text)
                        .as("step %d", step).isEqualTo(bruteForce(held, vectorOfText, scope, until, query, 5, 0.1));
                assertThat(distinct(scope, 24)).isEqualTo((int) held.values().stream()
                        .filter(h -> h.scope().equals(scope)).map(Held::text).distinct().count());
            }
        }
    }

    @Test
    void theBinaryShortlistFindsEachMemoryByItsOwnVectorAfterRemovalsMovedThem() {
        // Past 0 memories, a shortlist of 1 by code: only a memory whose code moved with its vector is found.
        MemoryIndex approximate = new MemoryIndex(0, 1);
        Random random = new Random(11);
        Map<String, float[]> vectors = new HashMap<>();
        for (int i = 0; i < 300; i++) {
            float[] vector = Vectors.unit(gaussian(random, 384));
            vectors.put("t" + i, vector);
            approximate.put("b" + i, S, "t" + i, i, vector);
        }
        for (int i = 0; i < 300; i += 2) {
            approximate.remove("b" + i);
            vectors.remove("t" + i);
        }

        vectors.forEach((text, vector) -> assertThat(approximate.nearest(S, vector, 1, 0.5, Long.MAX_VALUE))
                .extracting(MemoryIndex.Hit::text).as(text).containsExactly(text));
        // Written after the time asked for: not shortlisted, though its code is the query's.
        assertThat(approximate.nearest(S, vectors.get("t299"), 3, -1, 200)).extracting(MemoryIndex.Hit::text)
                .doesNotContain("t299").hasSize(3);
    }

    @Test
    void theShortlistAsOfATimeSkipsATextWhoseFirstEntryWentAndWhoseNextCameLater() {
        // A shortlist of 1: should it take a text too late for the time asked, the search finds nothing.
        MemoryIndex approximate = new MemoryIndex(0, 1);
        Random random = new Random(13);
        float[] deploy = Vectors.unit(gaussian(random, 384));
        approximate.put("b1", S, "the deploy failed", 1, deploy);
        approximate.put("b2", S, "the deploy failed", 5, deploy);
        approximate.put("b3", S, "tests passed", 2, Vectors.unit(gaussian(random, 384)));
        approximate.remove("b1");

        // The text now counts from time 5: a turn replayed as of time 3 must not see it.
        assertThat(approximate.nearest(S, deploy, 1, -1, 3)).extracting(MemoryIndex.Hit::text)
                .containsExactly("tests passed");
        assertThat(approximate.nearest(S, deploy, 1, -1, 5)).extracting(MemoryIndex.Hit::text)
                .containsExactly("the deploy failed");
    }

    @Test
    void theBinaryShortlistDependsOnTheMemoriesNotOnTheOrderTheyCameIn() {
        Random random = new Random(5);
        List<float[]> vectors = new ArrayList<>();
        for (int i = 0; i < 500; i++) {
            vectors.add(Vectors.unit(gaussian(random, 64)));
        }
        MemoryIndex forward = new MemoryIndex(0, 20);
        MemoryIndex backward = new MemoryIndex(0, 20);
        for (int i = 0; i < vectors.size(); i++) {
            forward.put("b" + i, S, "t" + i, 0, vectors.get(i));
            int j = vectors.size() - 1 - i;
            backward.put("b" + j, S, "t" + j, 0, vectors.get(j));
        }
        for (int q = 0; q < 20; q++) {
            float[] query = Vectors.unit(gaussian(random, 64));
            assertThat(forward.nearest(S, query, 5, -1, Long.MAX_VALUE))
                    .isEqualTo(backward.nearest(S, query, 5, -1, Long.MAX_VALUE));
        }
    }

    private record Held(String scope, String text, long writtenAt) {
    }

    /** Distinct texts of {@code scope}: what a search that takes everything returns, one hit each. */
    private int distinct(String scope, int dimension) {
        float[] any = new float[dimension];
        any[0] = 1;
        return index.nearest(scope, any, Integer.MAX_VALUE, -2, Long.MAX_VALUE).size();
    }

    private List<String> texts(float[] query, int k, double min) {
        return texts(query, k, min, Long.MAX_VALUE);
    }

    private List<String> texts(float[] query, int k, double min, long until) {
        return index.nearest(S, query, k, min, until).stream().map(MemoryIndex.Hit::text).toList();
    }

    private static List<String> bruteForce(Map<String, Held> held, Map<String, float[]> vectorOfText, String scope,
                                           long until, float[] query, int k, double min) {
        record Scored(String text, double score) {
        }
        List<Scored> scored = new ArrayList<>();
        for (String text : held.values().stream().filter(h -> h.scope().equals(scope) && h.writtenAt() <= until)
                .map(Held::text).distinct().toList()) {
            double score = 0;
            float[] vector = vectorOfText.get(text);
            for (int i = 0; i < query.length; i++) {
                score += query[i] * vector[i];
            }
            if (score >= min) {
                scored.add(new Scored(text, score));
            }
        }
        scored.sort(Comparator.comparingDouble(Scored::score).reversed().thenComparing(Scored::text));
        return scored.stream().limit(k).map(Scored::text).toList();
    }

    private static float[] gaussian(Random random, int dimension) {
        float[] vector = new float[dimension];
        for (int i = 0; i < dimension; i++) {
            vector[i] = (float) random.nextGaussian();
        }
        return vector;
    }
}
