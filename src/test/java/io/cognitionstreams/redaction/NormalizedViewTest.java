package io.cognitionstreams.redaction;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class NormalizedViewTest {

    @ParameterizedTest
    @ValueSource(strings = {"plain ASCII, tabs\tand\r\nlines", "",
            "\u0421\u0435\u0440\u0432\u0435\u0440 \u0440\u0430\u0431\u043E\u0442\u0430\u0435\u0442",
            "\u30D3\u30EB\u30C9\u306F\u6210\u529F\u3057\u307E\u3057\u305F\u3002",
            "\u0938\u0930\u094D\u0935\u0930 caf\u00E9 q\u0316\u0301 \uD83D\uDC4D"})
    void textThatReadsAsItIsIsItsOwnView(String text) {
        assertThat(NormalizedView.of(text).text()).isSameAs(text);
    }

    @Test
    void invisibleCharactersGoAndSpacesDashesAndCompatibilityFormsFold() {
        assertThat(NormalizedView.of("\uFF41\u00A0b\u2013c\u200Bd\u2028e\u00ADf\uFE0Fg\u2212\u3000h").text())
                .isEqualTo("a b-cd\nefg- h");
    }

    @Test
    void emDashesAreHyphensBetweenDigitsAndPunctuationBetweenWords() {
        assertThat(NormalizedView.of("123\u201445\u2014\u200B6789 \uFF11\u2015\uFF12").text())
                .isEqualTo("123-45-6789 1-2");
        String prose = "key\u2014sk-abc, 12\u2014 and \u2014 34, a\u20141";
        assertThat(NormalizedView.of(prose).text()).isSameAs(prose);
    }

    @Test
    void lookAlikesReadAsLatinOnlyInWordsWithLatinLetters() {
        assertThat(NormalizedView.of("\u0440\u0430ss \u043F\u0430\u0440\u043E\u043B\u044C \u0421\u0441").text())
                .isEqualTo("pass \u043F\u0430\u0440\u043E\u043B\u044C \u0421\u0441");
        assertThat(NormalizedView.of("\u0391\u03A1\u0399_KEY \u0391\u03A1\u0399 \u0410\u0420\u0406-key").text())
                .isEqualTo("API_KEY \u0391\u03A1\u0399 API-key");
    }

    @Test
    void eachCharOfTheViewMapsBackToTheCharactersItCameFrom() {
        // U+FDFA is one character that NFKC spells out in 18.
        NormalizedView view = NormalizedView.of("x\uFDFAy\u200Bz");

        assertThat(view.text()).hasSize(21).startsWith("x").endsWith("yz");
        assertThat(view.originalStart(1)).isEqualTo(1);
        assertThat(view.originalEnd(2)).isEqualTo(2);
        assertThat(view.originalEnd(19)).isEqualTo(2);
        assertThat(view.originalStart(19)).isEqualTo(2);
        assertThat(view.originalStart(20)).isEqualTo(4);
        assertThat(view.originalEnd(21)).isEqualTo(5);
    }

    @Test
    void spansWidenToWholeCharactersWithTheirMarks() {
        String marks = "\u0301\u0316".repeat(100);
        String text = "ab" + marks + "c";
        NormalizedView view = NormalizedView.of(text);

        // The marks are cut into stream-safe segments; any piece of them still maps to the whole "b" and its marks.
        assertThat(view.originalEnd(2)).isEqualTo(text.length() - 1);
        assertThat(view.originalStart(view.text().length() - 2)).isEqualTo(1);
        String pair = "a\uD835\uDC1Fb";
        assertThat(NormalizedView.of(pair).originalEnd(2)).isEqualTo(3);
    }
}
