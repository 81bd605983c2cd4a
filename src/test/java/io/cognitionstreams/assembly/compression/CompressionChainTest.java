package io.cognitionstreams.assembly.compression;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import io.cognitionstreams.assembly.compression.CompressionResult.Attempt;
import io.cognitionstreams.assembly.compression.CompressionResult.Compressed;
import io.cognitionstreams.assembly.compression.CompressionResult.TokenBudgetError;
import io.cognitionstreams.tokens.TokenCounter;
import io.cognitionstreams.tokens.Tokenizers;
import io.cognitionstreams.embeddings.MiniLmEmbedder;
import io.cognitionstreams.embeddings.SentenceEmbedder;

/** The extractive tier runs the real all-MiniLM-L6-v2 model, loaded once for the class; models are stand-ins. */
class CompressionChainTest {

    private static final TokenCounter COUNTER = new Tokenizers().forModel("gpt-4o");


    /** One long sentence: no extract of whole sentences is shorter, so only a model can help. */
    private static final String RUN_ON = "The identity of this agent is a careful planning assistant that works "
            + "inside a streaming runtime and keeps every answer grounded in the records it has seen while it "
            + "explains each step it takes to the operator and to the council of other agents that review it";

    private static final int TARGET = 40;
    private static final String SHORT = "A careful planning assistant in a streaming runtime.";

    private static ExtractiveSummarizer extractive;

    @BeforeAll
    static void loadModel() {
        MiniLmEmbedder.shared().load();
        extractive = new ExtractiveSummarizer(MiniLmEmbedder.shared());
    }

    @Test
    void extractiveSuccessSkipsTheModels() {
        RecordingModel lite = RecordingModel.answering(SHORT);
        try (CompressionChain chain = CompressionChain.builder().extractive(extractive).lite(lite, "mini").build()) {
            Compressed result = (Compressed) chain.compress("identity", CompressionTexts.TEN_SENTENCES, TARGET, COUNTER);

            assertThat(result.method()).isEqualTo(CompressionChain.EXTRACTIVE);
            assertThat(result.originalTokens()).isEqualTo(COUNTER.count(CompressionTexts.TEN_SENTENCES));
            assertThat(lite.calls()).isZero();
        }
    }

    @Test
    void theTagIsPresentAndCountedInsideTheTarget() {
        try (CompressionChain chain = CompressionChain.builder().extractive(extractive).build()) {
            Compressed result = (Compressed) chain.compress("identity", CompressionTexts.TEN_SENTENCES, TARGET, COUNTER);

            assertThat(result.text()).startsWith("⚠SUMMARY ");
            assertThat(result.compressedTokens()).isEqualTo(COUNTER.count(result.text()))
                    .isLessThanOrEqualTo(TARGET);
        }
    }

    @Test
    void extractiveFailureFallsBackToLiteWithTheCompressionPrompt() {
        RecordingModel lite = RecordingModel.answering("START>> " + SHORT + " <<END");
        RecordingModel prime = RecordingModel.answering(SHORT);
        try (CompressionChain chain = CompressionChain.builder().extractive(extractive)
                .lite(lite, "mini").prime(prime, "hermes").build()) {
            Compressed result = (Compressed) chain.compress("identity", RUN_ON, TARGET, COUNTER);

            assertThat(result.method()).isEqualTo(CompressionChain.LITE);
            assertThat(result.text()).isEqualTo("⚠SUMMARY " + SHORT);
            assertThat(prime.calls()).isZero();
            assertThat(lite.models).containsExactly("mini");
            int bodyTokens = TARGET - COUNTER.count(CompressionChain.TAG);
            assertThat(lite.prompts.get(0).get(0).role()).isEqualTo("system");
            assertThat(lite.prompts.get(0).get(0).content())
                    .contains("at most " + bodyTokens + " tokens", "directives and key nouns", "no markdown");
            assertThat(lite.prompts.get(0).get(1).content()).isEqualTo("START>>\n" + RUN_ON + "\n<<END");
        }
    }

    /** Rules that do not fit beside their tag in 40 tokens: only a model that keeps them word for word can help. */
    private static final String RULES_AND_PROSE = "- Never force-push to main.\n"
            + "max_open_prs: 3\n"
            + "The team ships several times a day behind feature flags and reviews every change by hand.";

    @Test
    void aModelAnswerThatLosesARuleIsRefusedAndOneThatKeepsThemAllIsTaken() {
        String rulesOnly = "Never force-push to main.\nmax_open_prs: 3";
        int target = COUNTER.count(CompressionChain.TAG + rulesOnly);
        RecordingModel lite = RecordingModel.answering("Do not force-push.\nmax_open_prs: 3");
        RecordingModel prime = RecordingModel.answering("RULES>>\n- Never force-push to main.\n<<RULES\n"
                + rulesOnly);
        try (CompressionChain chain = CompressionChain.builder().extractive(extractive)
                .lite(lite, "mini").prime(prime, "hermes").build()) {
            Compressed result = (Compressed) chain.compress("active_skill", RULES_AND_PROSE, target, COUNTER);

            assertThat(result.method()).isEqualTo(CompressionChain.PRIME);
            assertThat(result.text()).isEqualTo(CompressionChain.TAG + rulesOnly);
            String system = lite.prompts.get(0).get(0).content();
            assertThat(system).contains("word for word", "refused");
            assertThat(lite.prompts.get(0).get(1).content()).startsWith(
                    "RULES>>\n- Never force-push to main.\nmax_open_prs: 3\n<<RULES\nSTART>>\n");
        }
    }

    @Test
    void withoutModelTiersRulesThatDoNotFitAreATokenBudgetErrorNamingTheField() {
        RecordingModel lite = RecordingModel.answering("max_open_prs: 3");
        try (CompressionChain chain = CompressionChain.builder().extractive(extractive).lite(lite, "mini")
                .build()) {
            TokenBudgetError error = (TokenBudgetError) chain.compress("identity", RULES_AND_PROSE, 12, COUNTER);

            assertThat(error.field()).isEqualTo("identity");
            assertThat(error.attempts()).extracting(Attempt::method)
                    .containsExactly(CompressionChain.EXTRACTIVE, CompressionChain.LITE);
            assertThat(error.attempts().get(0).failure()).startsWith("its 2 rules alone need");
            assertThat(error.attempts().get(1).failure())
                    .isEqualTo("refused: the answer lost 1 of 2 rules word for word, e.g. \"- Never force-push to main.\"");
        }
    }

    @Test
    void anAnswerThatFitsOnlyWithoutTheTagFallsThroughToPrime() {
        String exactlyTarget = COUNTER.prefix(RUN_ON, TARGET);
        RecordingModel lite = RecordingModel.answering(exactlyTarget);
        RecordingModel prime = RecordingModel.answering(SHORT);
        try (CompressionChain chain = CompressionChain.builder().extractive(extractive)
                .lite(lite, "mini").prime(prime, "hermes").build()) {
            Compressed result = (Compressed) chain.compress("identity", RUN_ON, TARGET, COUNTER);

            assertThat(result.method()).isEqualTo(CompressionChain.PRIME);
            assertThat(lite.calls()).isOne();
            assertThat(prime.models).containsExactly("hermes");
        }
    }

    @Test
    void everyTierFailingIsATokenBudgetErrorWithTheCounts() {
        RecordingModel lite = RecordingModel.answering(RUN_ON);
        RecordingModel prime = RecordingModel.failing("HTTP 503");
        try (CompressionChain chain = CompressionChain.builder().extractive(extractive)
                .lite(lite, "mini").prime(prime, "hermes").build()) {
            TokenBudgetError error = (TokenBudgetError) chain.compress("identity", RUN_ON, TARGET, COUNTER);

            assertThat(error.field()).isEqualTo("identity");
            assertThat(error.originalTokens()).isEqualTo(COUNTER.count(RUN_ON));
            assertThat(error.targetTokens()).isEqualTo(TARGET);
            assertThat(error.attempts()).extracting(Attempt::method)
                    .containsExactly(CompressionChain.EXTRACTIVE, CompressionChain.LITE, CompressionChain.PRIME);
            assertThat(error.attempts().get(1).failure()).contains("tokens with the tag, target " + TARGET);
            assertThat(error.attempts().get(2).failure()).contains("HTTP 503");
        }
    }

    @Test
    void aTargetNoLargerThanTheTagFailsWithoutTryingAnyTier() {
        RecordingModel lite = RecordingModel.answering("x");
        try (CompressionChain chain = CompressionChain.builder().extractive(extractive).lite(lite, "mini").build()) {
            TokenBudgetError error = (TokenBudgetError) chain.compress("identity", CompressionTexts.TEN_SENTENCES,
                    COUNTER.count(CompressionChain.TAG), COUNTER);

            assertThat(error.attempts()).extracting(Attempt::method).containsExactly("tag");
            assertThat(lite.calls()).isZero();
        }
    }

    @Test
    void aFieldThatAlreadyFitsIsACallerError() {
        try (CompressionChain chain = CompressionChain.builder().extractive(extractive).build()) {
            assertThatThrownBy(() -> chain.compress("persona", SHORT, TARGET, COUNTER))
                    .isInstanceOf(IllegalArgumentException.class);
        }
    }

    @Test
    void aCacheHitEmbedsNothingAgain() {
        AtomicInteger embedCalls = new AtomicInteger();
        SentenceEmbedder counting = sentences -> {
            embedCalls.incrementAndGet();
            return MiniLmEmbedder.shared().embed(sentences);
        };
        try (CompressionChain chain = CompressionChain.builder()
                .extractive(new ExtractiveSummarizer(counting)).build()) {
            CompressionResult first = chain.compress("identity", CompressionTexts.TEN_SENTENCES, TARGET, COUNTER);
            CompressionResult second = chain.compress("identity", CompressionTexts.TEN_SENTENCES, TARGET, COUNTER);

            assertThat(second).isInstanceOf(Compressed.class).isEqualTo(first);
            assertThat(embedCalls).hasValue(1);

            chain.compress("identity", CompressionTexts.TEN_SENTENCES, TARGET + 5, COUNTER);
            assertThat(embedCalls).as("another target is another key").hasValue(2);
        }
    }

    @Test
    void aCacheHitCallsNoModelAgainAndTheLeastRecentlyUsedEntryIsEvicted() {
        RecordingModel lite = RecordingModel.answering(SHORT);
        try (CompressionChain chain = CompressionChain.builder().lite(lite, "mini").cacheSize(1).build()) {
            chain.compress("identity", RUN_ON, TARGET, COUNTER);
            chain.compress("identity", RUN_ON, TARGET, COUNTER);
            assertThat(lite.calls()).isOne();

            chain.compress("identity", RUN_ON, TARGET - 1, COUNTER);
            chain.compress("identity", RUN_ON, TARGET, COUNTER);
            assertThat(lite.calls()).as("a one-entry cache lost the first key to the second").isEqualTo(3);
        }
    }

    @Test
    void failuresAreNotCached() {
        RecordingModel lite = RecordingModel.failing("HTTP 429");
        try (CompressionChain chain = CompressionChain.builder().lite(lite, "mini").build()) {
            chain.compress("identity", RUN_ON, TARGET, COUNTER);
            chain.compress("identity", RUN_ON, TARGET, COUNTER);

            assertThat(lite.calls()).isEqualTo(2);
        }
    }

    @Test
    void aHangingModelIsAbandonedAtTheCallTimeout() throws InterruptedException {
        RecordingModel lite = RecordingModel.hanging(Duration.ofMinutes(5));
        try (CompressionChain chain = CompressionChain.builder().lite(lite, "mini")
                .callTimeout(Duration.ofMillis(200)).build()) {
            TokenBudgetError error = (TokenBudgetError) chain.compress("identity", RUN_ON, TARGET, COUNTER);

            assertThat(error.attempts()).extracting(Attempt::failure)
                    .containsExactly("mini gave no answer within 200 ms");
            assertThat(lite.interrupted.await(10, TimeUnit.SECONDS))
                    .as("the abandoned call was interrupted, freeing its thread").isTrue();
        }
    }

    @Test
    void theChainDeadlineCutsTheCallShortAndSkipsLaterTiers() {
        RecordingModel lite = RecordingModel.hanging(Duration.ofMinutes(5));
        RecordingModel prime = RecordingModel.answering(SHORT);
        try (CompressionChain chain = CompressionChain.builder().lite(lite, "mini").prime(prime, "hermes")
                .callTimeout(Duration.ofMinutes(1)).deadline(Duration.ofMillis(300)).build()) {
            TokenBudgetError error = (TokenBudgetError) chain.compress("identity", RUN_ON, TARGET, COUNTER);

            List<Attempt> attempts = error.attempts();
            assertThat(attempts).extracting(Attempt::method)
                    .containsExactly(CompressionChain.LITE, CompressionChain.PRIME);
            assertThat(attempts.get(0).failure()).startsWith("mini gave no answer within");
            assertThat(attempts.get(1).failure()).isEqualTo("not tried: the chain's 300 ms deadline had passed");
            assertThat(prime.calls()).isZero();
        }
    }
}
