package io.cognitionstreams.assembly.compression;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.stream.Stream;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import io.cognitionstreams.assembly.compression.CompressionResult.Attempt;
import io.cognitionstreams.assembly.compression.CompressionResult.Compressed;
import io.cognitionstreams.assembly.compression.CompressionResult.TokenBudgetError;
import io.cognitionstreams.embeddings.MiniLmEmbedder;
import io.cognitionstreams.tokens.TokenCounter;
import io.cognitionstreams.tokens.Tokenizers;

/**
 * The corpus of src/test/resources/compression-corpus: realistic identities, a persona and skill protocols, each
 * over its field's budget, with the rules a reader must find in it after compression listed beside it (written by
 * hand, not derived from the classifier). Compressed by the real chain (extractive tier on all-MiniLM-L6-v2).
 */
class RuleCorpusTest {

    private static final TokenCounter COUNTER = new Tokenizers().forModel("gpt-4o");
    private static final String DIR = "/compression-corpus/";

    private static ExtractiveSummarizer extractive;

    record Case(String file, String field, int target) {
        String text() {
            return resource(file);
        }

        List<String> rules() {
            return resource(file.substring(0, file.lastIndexOf('.')) + ".rules").lines()
                    .filter(line -> !line.isBlank()).map(String::strip).toList();
        }

        @Override
        public String toString() {
            return file + " as " + field + " in " + target + " tokens";
        }
    }

    static Stream<Case> corpus() {
        return resource("cases.txt").lines().filter(line -> !line.isBlank() && !line.startsWith("#"))
                .map(line -> line.split(" ")).map(parts -> new Case(parts[0], parts[1], Integer.parseInt(parts[2])));
    }

    @BeforeAll
    static void loadModel() {
        MiniLmEmbedder.shared().load();
        extractive = new ExtractiveSummarizer(MiniLmEmbedder.shared());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("corpus")
    void aCompressedFieldKeepsEveryRuleWordForWordWithinItsBudget(Case corpusCase) {
        String text = corpusCase.text();
        assertThat(COUNTER.count(text)).as("the corpus text is over its budget").isGreaterThan(corpusCase.target());
        try (CompressionChain chain = CompressionChain.builder().extractive(extractive).build()) {
            CompressionResult result = chain.compress(corpusCase.field(), text, corpusCase.target(), COUNTER);

            assertThat(result).as("%s", result).isInstanceOf(Compressed.class);
            Compressed compressed = (Compressed) result;
            assertThat(compressed.text()).startsWith(CompressionChain.TAG);
            assertThat(compressed.compressedTokens()).isEqualTo(COUNTER.count(compressed.text()))
                    .isLessThanOrEqualTo(corpusCase.target());
            for (String rule : corpusCase.rules()) {
                assertThat(compressed.text()).as("rule kept word for word").contains(rule);
            }
            assertThat(compressed.text().length()).as("the budget left after the rules holds some prose")
                    .isGreaterThan(String.join("\n", corpusCase.rules()).length());
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("corpus")
    void whenTheRulesAloneDoNotFitTheFieldIsRefusedNamingItNeverSummarizedWithoutThem(Case corpusCase) {
        int rulesTokens = COUNTER.count(String.join("\n", corpusCase.rules()));
        int tooSmall = rulesTokens / 2;
        try (CompressionChain chain = CompressionChain.builder().extractive(extractive).build()) {
            TokenBudgetError error = (TokenBudgetError) chain.compress(corpusCase.field(), corpusCase.text(),
                    tooSmall, COUNTER);

            assertThat(error.field()).isEqualTo(corpusCase.field());
            assertThat(error.attempts()).extracting(Attempt::method).containsExactly(CompressionChain.EXTRACTIVE);
            assertThat(error.attempts().get(0).failure()).contains("rules alone need", "a rule is never dropped");
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("corpus")
    void theListedRulesAreRulesToTheClassifier(Case corpusCase) {
        String classified = String.join("\n", Sentences.rules(corpusCase.text()));
        for (String rule : corpusCase.rules()) {
            assertThat(classified).contains(rule);
        }
    }

    private static String resource(String name) {
        try (InputStream in = RuleCorpusTest.class.getResourceAsStream(DIR + name)) {
            assertThat(in).as("resource %s", DIR + name).isNotNull();
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
