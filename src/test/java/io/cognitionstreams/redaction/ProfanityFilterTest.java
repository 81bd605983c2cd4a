package io.cognitionstreams.redaction;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ProfanityFilterTest {

    private static Redactor withWords(String... words) {
        return new Redactor(new ContentPolicy(List.of()), new ProfanityFilter(List.of(words)));
    }

    @Test
    void listedWordsAreRedactedInAnyCase() {
        Redaction redaction = Redactor.defaults().redact("Well, SHIT. This Damn build, wtf!");

        assertThat(redaction.text())
                .isEqualTo("Well, [REDACTED:PROFANITY]. This [REDACTED:PROFANITY] build, [REDACTED:PROFANITY]!");
        assertThat(redaction.count("PROFANITY")).isEqualTo(3);
    }

    @Test
    void aListedWordJoinedByAHyphenIsStillAWholeWord() {
        assertThat(Redactor.defaults().redact("crap-tastic").text()).isEqualTo("[REDACTED:PROFANITY]-tastic");
    }

    @ParameterizedTest
    @ValueSource(strings = {"class", "assess", "Scunthorpe", "shell", "hello", "passage", "cassette", "ass_hat",
            "Hell2", "bass"})
    void wordsContainingAListedWordStay(String text) {
        Redactor redactor = withWords("ass", "cunt", "hell");

        assertThat(redactor.redact(text).text()).isEqualTo(text);
    }

    @Test
    void theShortWordsThemselvesAreCaught() {
        Redactor redactor = withWords("ass", "hell");

        assertThat(redactor.redact("What the hell, you ASS.").text())
                .isEqualTo("What the [REDACTED:PROFANITY], you [REDACTED:PROFANITY].");
    }

    @Test
    void nonEnglishWordsCompareCaseInsensitively() {
        assertThat(withWords("scheiße").redact("SCHEIßE!").text()).isEqualTo("[REDACTED:PROFANITY]!");
    }

    @Test
    void anEmptyListFiltersNothing() {
        assertThat(withWords().redact("shit happens").text()).isEqualTo("shit happens");
    }

    @Test
    void theWordsAreKeptInLowerCase() {
        assertThat(new ProfanityFilter(List.of("Darn", "HECK")).words()).containsExactlyInAnyOrder("darn", "heck");
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "two words", "f*ck", "a-b"})
    void entriesMustBeSingleWords(String entry) {
        assertThatThrownBy(() -> new ProfanityFilter(List.of(entry)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("profanity entry '" + entry + "' is not a single word");
    }
}
