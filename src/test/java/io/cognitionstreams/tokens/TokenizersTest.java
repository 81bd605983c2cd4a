package io.cognitionstreams.tokens;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

import com.knuddels.jtokkit.api.EncodingType;

class TokenizersTest {

    private final Tokenizers tokenizers = new Tokenizers();

    @Test
    void eachModelFamilyIsCountedWithItsOwnEncoding() {
        assertThat(Tokenizers.encodingFor("gpt-4o", null)).isEqualTo(EncodingType.O200K_BASE);
        assertThat(Tokenizers.encodingFor("gpt-4o-mini-2024-07-18", null)).isEqualTo(EncodingType.O200K_BASE);
        assertThat(Tokenizers.encodingFor("gpt-4.1", null)).isEqualTo(EncodingType.O200K_BASE);
        assertThat(Tokenizers.encodingFor("o3-mini", null)).isEqualTo(EncodingType.O200K_BASE);
        assertThat(Tokenizers.encodingFor("openai/gpt-4o", null)).isEqualTo(EncodingType.O200K_BASE);
        assertThat(Tokenizers.encodingFor("gpt-4", null)).isEqualTo(EncodingType.CL100K_BASE);
        assertThat(Tokenizers.encodingFor("gpt-4-turbo", null)).isEqualTo(EncodingType.CL100K_BASE);
        assertThat(Tokenizers.encodingFor("gpt-3.5-turbo", null)).isEqualTo(EncodingType.CL100K_BASE);
        assertThat(Tokenizers.encodingFor("text-davinci-003", null)).isEqualTo(EncodingType.P50K_BASE);
        assertThat(Tokenizers.encodingFor("llama3.1", EncodingType.CL100K_BASE)).isEqualTo(EncodingType.CL100K_BASE);
        assertThat(tokenizers.forModel("some-local-model").encodingName()).isEqualTo("o200k_base");
    }

    @Test
    void countsAreTheRealTokenizersNotWordCounts() {
        // "Hello, world!" is [9906, 11, 1917, 0] in cl100k_base and [13225, 11, 2375, 0] in o200k_base.
        assertThat(tokenizers.forModel("gpt-4").count("Hello, world!")).isEqualTo(4);
        assertThat(tokenizers.forModel("gpt-4o").count("Hello, world!")).isEqualTo(4);
        String german = "Donaudampfschifffahrtsgesellschaftskapitän";
        assertThat(tokenizers.forModel("gpt-4o").count(german)).isGreaterThan(1);
    }

    @Test
    void cachedCountsOfLongTextsEqualFreshOnes() {
        TokenCounter cached = tokenizers.forModel("gpt-4");
        String text = "The council reached quorum with two roles. ".repeat(20);
        int first = cached.count(text);
        for (int i = 0; i < TokenCounter.CACHE_ENTRIES + 10; i++) {
            cached.count(text + i);
        }
        assertThat(cached.count(text)).isEqualTo(first)
                .isEqualTo(new Tokenizers().forEncoding(EncodingType.CL100K_BASE).count(text));
    }

    @Test
    void aPrefixOrASuffixNeverCutsInsideACharacter() {
        TokenCounter counter = tokenizers.forModel("gpt-4o");
        String text = "naïve café 🙂🙂🙂 東京都 ".repeat(10);
        assertThat(counter.suffix(text, 10_000)).isEqualTo(text);
        for (int limit = 1; limit < 40; limit++) {
            String prefix = counter.prefix(text, limit);
            String suffix = counter.suffix(text, limit);
            assertThat(text).startsWith(prefix).endsWith(suffix);
            assertThat(counter.count(prefix)).isLessThanOrEqualTo(limit);
            assertThat(counter.count(suffix)).isLessThanOrEqualTo(limit);
            assertThat(prefix + suffix).doesNotContain("\uFFFD");
            assertThat(prefix.isEmpty() || !Character.isHighSurrogate(prefix.charAt(prefix.length() - 1))).isTrue();
            assertThat(suffix.isEmpty() || !Character.isLowSurrogate(suffix.charAt(0))).isTrue();
        }
    }
}
