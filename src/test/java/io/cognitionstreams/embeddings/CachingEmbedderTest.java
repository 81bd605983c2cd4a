package io.cognitionstreams.embeddings;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

class CachingEmbedderTest {

    private final List<List<String>> calls = new ArrayList<>();
    /** A vector that tells the texts apart: its length and first character. */
    private final SentenceEmbedder model = sentences -> {
        calls.add(List.copyOf(sentences));
        return sentences.stream().map(s -> new float[] {s.length(), s.charAt(0)}).toList();
    };

    @Test
    void embedsEachNewTextOnceInOneCallAndAnswersRepeatsFromTheCache() {
        CachingEmbedder cached = new CachingEmbedder(model, 100);

        List<float[]> first = cached.embed(List.of("alpha", "be", "alpha"));
        List<float[]> second = cached.embed(List.of("be", "gamma", "alpha"));

        assertThat(calls).containsExactly(List.of("alpha", "be"), List.of("gamma"));
        assertThat(first).containsExactly(new float[] {5, 'a'}, new float[] {2, 'b'}, new float[] {5, 'a'});
        assertThat(second).containsExactly(new float[] {2, 'b'}, new float[] {5, 'g'}, new float[] {5, 'a'});
        cached.embed(List.of());
        assertThat(calls).hasSize(2);
    }

    @Test
    void forgetsTheLeastRecentlyUsedTextBeyondItsCapacity() {
        CachingEmbedder cached = new CachingEmbedder(model, 2);
        cached.embed(List.of("a"));
        cached.embed(List.of("b"));
        cached.embed(List.of("a"));
        cached.embed(List.of("c"));
        calls.clear();

        cached.embed(List.of("a", "c", "b"));

        assertThat(calls).containsExactly(List.of("b"));
    }

    @Test
    void aCallerChangingItsVectorDoesNotChangeTheCachedOne() {
        CachingEmbedder cached = new CachingEmbedder(model, 10);
        cached.embed(List.of("alpha")).get(0)[0] = -1;

        assertThat(cached.embed(List.of("alpha")).get(0)).containsExactly(5, 'a');
    }

    @Test
    void refusesAZeroCapacity() {
        assertThatThrownBy(() -> new CachingEmbedder(model, 0)).isInstanceOf(IllegalArgumentException.class);
    }
}
