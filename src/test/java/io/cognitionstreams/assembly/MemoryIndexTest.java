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

    private final MemoryIndex index = new MemoryIndex();

    @Test
    void returnsTheMostSimilarTextsAboveTheThresholdBestFirst() {
        index.put("a", "east", Vectors.unit(new float[] {1, 0, 0}));
        index.put("b", "north-east", Vectors.unit(new float[] {1, 1, 0}));
        index.put("c", "north", Vectors.unit(new float[] {0, 1, 0}));
        index.put("d", "west", Vectors.unit(new float[] {-1, 0, 0}));

        float[] query = Vectors.unit(new float[] {1, 0.2f, 0});
        assertThat(index.nearest(query, 2, 0.3)).containsExactly("east", "north-east");
        assertThat(index.nearest(query, 10, 0.3)).containsExactly("east", "north-east");
        assertThat(index.nearest(query, 10, -1)).containsExactly("east", "north-east", "north", "west");
        assertThat(index.nearest(query, 0, -1)).isEmpty();
    }

    @Test
    void equalScoresAreOrderedByText() {
        index.put("1", "zulu", new float[] {1, 0});
        index.put("2", "alpha", new float[] {1, 0});
        index.put("3", "mike", new float[] {1, 0});

        assertThat(index.nearest(new float[] {1, 0}, 2, 0)).containsExactly("alpha", "mike");
    }

    @Test
    void entriesWithTheSameTextAreOneMemoryUntilTheLastIsRemoved() {
        index.put("b1", "VERIFY: tests passed", new float[] {1, 0});
        index.put("b2", "VERIFY: tests passed", new float[] {1, 0});
        index.put("b3", "the deploy failed", new float[] {0, 1});

        assertThat(index.size()).isEqualTo(2);
        assertThat(index.nearest(new float[] {1, 0}, 3, -1)).containsExactly("VERIFY: tests passed",
                "the deploy failed");
        index.remove("b1");
        assertThat(index.nearest(new float[] {1, 0}, 3, 0.5)).containsExactly("VERIFY: tests passed");
        index.remove("b2");
        assertThat(index.nearest(new float[] {1, 0}, 3, -1)).containsExactly("the deploy failed");
        index.remove("b2");
        assertThat(index.size()).isEqualTo(1);
    }

    @Test
    void aNewValueForAnIdReplacesItsOldText() {
        index.put("b1", "old", new float[] {1, 0});
        index.put("b1", "new", new float[] {0, 1});

        assertThat(index.nearest(new float[] {1, 0}, 5, -1)).containsExactly("new");
        assertThat(index.size()).isEqualTo(1);
    }

    @Test
    void refusesAVectorOfAnotherDimensionAndLeavesTheIndexAsItWas() {
        index.put("a", "x", new float[] {1, 0});

        assertThatThrownBy(() -> index.put("b", "y", new float[] {1, 0, 0}))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("3 dimensions");
        assertThat(index.nearest(new float[] {1, 0, 0}, 5, -1)).isEmpty();
        assertThat(index.nearest(new float[] {1, 0}, 5, -1)).containsExactly("x");
    }

    /** Thousands of puts, replacements and removals, checked against a plain map searched by brute force. */
    @Test
    void agreesWithABruteForceSearchAfterAnySequenceOfChanges() {
        Random random = new Random(7);
        Map<String, String> textOfId = new HashMap<>();
        Map<String, float[]> vectorOfText = new HashMap<>();
        for (int step = 0; step < 5_000; step++) {
            String id = "b" + random.nextInt(400);
            if (random.nextInt(4) == 0) {
                index.remove(id);
                textOfId.remove(id);
            } else {
                // Few texts, so ids often share one; a text always has the same vector, as with a real model.
                String text = "t" + random.nextInt(150);
                float[] vector = vectorOfText.computeIfAbsent(text, t -> Vectors.unit(gaussian(random, 24)));
                index.put(id, text, vector);
                textOfId.put(id, text);
            }
            if (step % 50 == 0) {
                float[] query = Vectors.unit(gaussian(random, 24));
                assertThat(index.nearest(query, 5, 0.1)).as("step %d", step)
                        .isEqualTo(bruteForce(textOfId, vectorOfText, query, 5, 0.1));
                assertThat(index.size()).isEqualTo(textOfId.values().stream().distinct().count());
            }
        }
    }

    private static List<String> bruteForce(Map<String, String> textOfId, Map<String, float[]> vectorOfText,
                                           float[] query, int k, double min) {
        record Scored(String text, double score) {
        }
        List<Scored> scored = new ArrayList<>();
        for (String text : textOfId.values().stream().distinct().toList()) {
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
