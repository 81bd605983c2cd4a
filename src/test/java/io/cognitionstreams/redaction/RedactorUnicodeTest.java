package io.cognitionstreams.redaction;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;

import java.util.List;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * PII, secrets and words disguised with invisible characters, fullwidth forms, odd spaces and dashes and look-alike
 * letters are found in the normalised view; the output keeps the original text outside the tags.
 */
class RedactorUnicodeTest {

    private static final Redactor REDACTOR = Redactor.defaults();
    private static final String KEY_BODY = "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6";

    private static String redact(String text) {
        return REDACTOR.redact(text).text();
    }

    static Stream<Arguments> disguised() {
        return Stream.of(
                // e-mail addresses
                Arguments.of("mail ann@exa\u200bmple.com today", "mail [REDACTED:EMAIL] today"),
                Arguments.of("mail ann\uFF20example.com today", "mail [REDACTED:EMAIL] today"),
                Arguments.of("mail ann\uFE6Bexample.com today", "mail [REDACTED:EMAIL] today"),
                Arguments.of("ann@exam\u00ADple.com", "[REDACTED:EMAIL]"),
                Arguments.of("ann@exa\u2060mple\u200D.com", "[REDACTED:EMAIL]"),
                Arguments.of("ann@exa\u202Emple\u202C.com", "[REDACTED:EMAIL]"),
                Arguments.of("ann@exa\u2066mple\u2069.com", "[REDACTED:EMAIL]"),
                Arguments.of("\uFEFFann@example.com", "\uFEFF[REDACTED:EMAIL]"),
                Arguments.of("\uFF41\uFF4E\uFF4E@\uFF45\uFF58\uFF41\uFF4D\uFF50\uFF4C\uFF45\uFF0E\uFF43\uFF4F\uFF4D",
                        "[REDACTED:EMAIL]"),
                // cards, phone numbers, SSNs, IBANs
                Arguments.of("card 4111\u200B1111\u200B1111\u200B1111 ok", "card [REDACTED:CARD] ok"),
                Arguments.of("card 4111\u00A01111\u00A01111\u00A01111 ok", "card [REDACTED:CARD] ok"),
                Arguments.of("card 4111\u202F1111\u202F1111\u202F1111 ok", "card [REDACTED:CARD] ok"),
                Arguments.of("card 4111\u20091111\u30001111\u20071111 ok", "card [REDACTED:CARD] ok"),
                Arguments.of("card \uFF14\uFF11\uFF11\uFF11111111111111 ok", "card [REDACTED:CARD] ok"),
                Arguments.of("call +44\u00A020\u00A07946\u00A00958 now", "call [REDACTED:PHONE] now"),
                Arguments.of("call 555\u2013123\u20134567 now", "call [REDACTED:PHONE] now"),
                Arguments.of("ssn 123\u201345\u20136789.", "ssn [REDACTED:SSN]."),
                Arguments.of("ssn 123\u201445\u20146789.", "ssn [REDACTED:SSN]."),
                Arguments.of("ssn 123\u2015\u200B45\uFE586789.", "ssn [REDACTED:SSN]."),
                Arguments.of("ssn 123\u201145\u20116789.", "ssn [REDACTED:SSN]."),
                Arguments.of("ssn 123\u221245\u22126789.", "ssn [REDACTED:SSN]."),
                Arguments.of("ssn 123\uFE6345\uFF0D6789.", "ssn [REDACTED:SSN]."),
                Arguments.of("iban DE89\u00A03704\u00A00044\u00A00532\u00A00130\u00A000", "iban [REDACTED:IBAN]"),
                // network addresses
                Arguments.of("host \uFF11\uFF10.\uFF11.\uFF12.\uFF13 up", "host [REDACTED:IPV4] up"),
                Arguments.of("host \uFF11\uFF10\uFF0E1\uFF0E2\uFF0E3 up", "host [REDACTED:IPV4] up"),
                Arguments.of("host 10.0\u200B.0.1 up", "host [REDACTED:IPV4] up"),
                Arguments.of("mac aa\uFF1Abb\uFF1Acc\uFF1Add\uFF1Aee\uFF1Aff", "mac [REDACTED:MAC]"),
                // secrets and credentials
                Arguments.of("key sk\u2011proj-" + KEY_BODY + " end", "key [REDACTED:API_KEY] end"),
                Arguments.of("key sk\u2011" + KEY_BODY + " end", "key [REDACTED:API_KEY] end"),
                Arguments.of("key gh\u200Bp_" + KEY_BODY + " end", "key [REDACTED:API_KEY] end"),
                Arguments.of("key \u0410KIA" + "IOSFODNN7EXAMPLE end", "key [REDACTED:API_KEY] end"),
                // an em dash between words is punctuation, not a hyphen that would glue them
                Arguments.of("the key\u2014sk-" + KEY_BODY, "the key\u2014[REDACTED:API_KEY]"),
                Arguments.of("write to support\u2014ann@example.com", "write to support\u2014[REDACTED:EMAIL]"),
                Arguments.of("PASSWORD\uFF1Dhunter3", "PASSWORD\uFF1D[REDACTED:POLICY:credential]"),
                Arguments.of("pass\u200Bword=hunter4", "pass\u200Bword=[REDACTED:POLICY:credential]"),
                Arguments.of("\u0440assword=hunter5", "\u0440assword=[REDACTED:POLICY:credential]"),
                Arguments.of("p\u0430ssw\u043Erd: hunter6", "p\u0430ssw\u043Erd: [REDACTED:POLICY:credential]"),
                Arguments.of("\u0391\u03A1\u0399_KEY=abc123", "\u0391\u03A1\u0399_KEY=[REDACTED:POLICY:credential]"),
                Arguments.of("pass\u00ADword = hunt\u200Ber7 ok", "pass\u00ADword = [REDACTED:POLICY:credential] ok"),
                Arguments.of("\uD835\uDC29\uD835\uDC1A\uD835\uDC2C\uD835\uDC2C\uD835\uDC30\uD835\uDC28\uD835\uDC2B"
                        + "\uD835\uDC1D=hunter8", "\uD835\uDC29\uD835\uDC1A\uD835\uDC2C\uD835\uDC2C\uD835\uDC30"
                        + "\uD835\uDC28\uD835\uDC2B\uD835\uDC1D=[REDACTED:POLICY:credential]"),
                Arguments.of("https://bob:pa\u200B55@host.example/x",
                        "https://bob:[REDACTED:URL_PASSWORD]@host.example/x"),
                Arguments.of("\u2013\u2013\u2013\u2013\u2013BEGIN\u00A0RSA PRIVATE KEY\u2013\u2013\u2013\u2013\u2013\n"
                        + "MIIB\n-----END RSA PRIVATE KEY-----\nbye", "[REDACTED:PRIVATE_KEY]\nbye"),
                // profanity
                Arguments.of("oh fu\u200Bck it", "oh [REDACTED:PROFANITY] it"),
                Arguments.of("oh fu\u2060ck it", "oh [REDACTED:PROFANITY] it"),
                Arguments.of("oh f\uFE0Fuck it", "oh [REDACTED:PROFANITY] it"),
                Arguments.of("oh fu\uDB40\uDC41ck it", "oh [REDACTED:PROFANITY] it"),
                Arguments.of("oh \uFF46\uFF55\uFF43\uFF4B it", "oh [REDACTED:PROFANITY] it"),
                Arguments.of("oh \uD835\uDC1F\uD835\uDC2E\uD835\uDC1C\uD835\uDC24 it", "oh [REDACTED:PROFANITY] it"),
                Arguments.of("oh \u0455hit", "oh [REDACTED:PROFANITY]"));
    }

    @ParameterizedTest
    @MethodSource("disguised")
    void disguisedFindingsAreRedactedAndTheRestStaysAsWritten(String text, String expected) {
        assertThat(redact(text)).isEqualTo(expected);
    }

    @Test
    void tagsCoverWholeCharactersAndTheMarksOnThem() {
        // A mark NFKC cannot merge stays on its letter, inside the tag; a surrogate pair is never split.
        assertThat(redact("ann@example.com\u20DD!")).isEqualTo("[REDACTED:EMAIL]!");
        assertThat(redact("ann@example.com\uD83D\uDE00")).isEqualTo("[REDACTED:EMAIL]\uD83D\uDE00");
        assertThat(redact("oh fuck\u20DD\u20DD!")).isEqualTo("oh [REDACTED:PROFANITY]!");
        assertThat(redact("oh \uD835\uDC1F\uD835\uDC2E\uD835\uDC1C\uD835\uDC24!"))
                .isEqualTo("oh [REDACTED:PROFANITY]!");
    }

    @Test
    void twoFindingsInOneCharacterBecomeOneTag() {
        // U+33C2 SQUARE AM reads as "a.m.": both words widen to the whole character, which goes once.
        Redactor redactor = new Redactor(new ContentPolicy(List.of()), new ProfanityFilter(List.of("a", "m")));

        Redaction redaction = redactor.redact("at 9 \u33C2 sharp");

        assertThat(redaction.text()).isEqualTo("at 9 [REDACTED:PROFANITY] sharp");
        assertThat(redaction.counts()).containsExactly(entry("PROFANITY", 1));
    }

    @Test
    void fullwidthPunctuationAroundATagStaysAsWritten() {
        Redaction redaction = REDACTOR.redact("\u30E1\u30FC\u30EB\uFF1Aann@example.com\uFF08\u55B6\u696D\uFF09\u3002"
                + "\u96FB\u8A71\uFF1A\uFF0B\uFF14\uFF14\u3000\uFF12\uFF10\u3000\uFF17\uFF19\uFF14\uFF16\u3000"
                + "\uFF10\uFF19\uFF15\uFF18\u3002");

        assertThat(redaction.text()).isEqualTo("\u30E1\u30FC\u30EB\uFF1A[REDACTED:EMAIL]\uFF08\u55B6\u696D\uFF09"
                + "\u3002\u96FB\u8A71\uFF1A[REDACTED:PHONE]\u3002");
        assertThat(redaction.counts()).containsExactly(entry("EMAIL", 1), entry("PHONE", 1));
    }

    @Test
    void laterStagesReadTheNormalisedTextBetweenTags() {
        Redactor redactor = new Redactor(new ContentPolicy(List.of(PolicyRule.of("codename", "Project\\s+Falcon"))),
                ProfanityFilter.defaults());

        assertThat(redactor.redact("ann\uFF20example.com: Project\u00A0Falcon is da\u200Bmn late").text())
                .isEqualTo("[REDACTED:EMAIL]: [REDACTED:POLICY:codename] is [REDACTED:PROFANITY] late");
    }

    @Test
    void rulesAndWordsInOtherScriptsStillMatchTheirOwnLetters() {
        // Cyrillic letters are read as Latin only inside words that mix them with Latin letters.
        Redactor redactor = new Redactor(
                new ContentPolicy(List.of(PolicyRule.of("codename", "\u041F\u0440\u043E\u0435\u043A\u0442\\s+"
                        + "\u0421\u043E\u043A\u043E\u043B"))),
                new ProfanityFilter(List.of("\u0441\u0443\u043A\u0430")));

        Redaction redaction = redactor.redact("\u041F\u0440\u043E\u0435\u043A\u0442\u00A0\u0421\u043E\u043A\u043E"
                + "\u043B \u2014 \u0441\u0443\u043A\u0430!");

        assertThat(redaction.text()).isEqualTo("[REDACTED:POLICY:codename] \u2014 [REDACTED:PROFANITY]!");
    }

    @ParameterizedTest
    @ValueSource(strings = {
            // Russian, Greek, Ukrainian, Serbian: look-alike letters in words of their own script
            "\u0421\u0435\u0440\u0432\u0435\u0440 \u043F\u0435\u0440\u0435\u0437\u0430\u043F\u0443\u0449\u0435\u043D,"
                    + " \u0432\u0441\u0451 \u0440\u0430\u0431\u043E\u0442\u0430\u0435\u0442.",
            "\u0420\u0430\u0441\u0441\u0432\u0435\u0442 \u0432 \u0441\u0435\u043C\u044C, \u0440\u0430\u0437"
                    + " \u043F\u0430\u0440\u043E\u043B\u044C: \u0441\u0435\u043A\u0440\u0435\u0442",
            "\u039F \u03B4\u03B9\u03B1\u03BA\u03BF\u03BC\u03B9\u03C3\u03C4\u03AE\u03C2"
                    + " \u03C4\u03C1\u03AD\u03C7\u03B5\u03B9 \u03BA\u03B1\u03BD\u03BF\u03BD\u03B9\u03BA\u03AC,"
                    + " \u03B1\u03C1\u03B9\u03B8\u03BC\u03CC\u03C2 3.",
            "\u0406\u043D\u0444\u043E\u0440\u043C\u0430\u0446\u0456\u044F \u0454 \u0442\u0443\u0442",
            // CJK with fullwidth digits and punctuation, Arabic, Hindi with marks, Hangul in jamo
            "\u30D3\u30EB\u30C9\u306F\u6210\u529F\u3057\u307E\u3057\u305F\uFF08\u30C6\u30B9\u30C8"
                    + "\uFF11\uFF12\uFF13\u4EF6\uFF09\u3002\u4FA1\u683C\uFF1A\uFF11\uFF0C\uFF12\uFF13\uFF14\u5186",
            "\u062A\u0645 \u0625\u0639\u0627\u062F\u0629 \u062A\u0634\u063A\u064A\u0644"
                    + " \u0627\u0644\u062E\u0627\u062F\u0645",
            "\u0938\u0930\u094D\u0935\u0930 \u092B\u093F\u0930 \u0938\u0947 \u091A\u0932"
                    + " \u0930\u0939\u093E \u0939\u0948",
            "\u1112\u1161\u11AB\u1100\u1173\u11AF \u1109\u1165\u1107\u1165",
            // dashes, odd spaces, emoji, superscripts, invisible characters alone
            "Paris\u2014Berlin, pages 10\u201312, 2026\u201311\u201322, \u221240\u00A0\u00B0C",
            "Deploy done \uD83D\uDC4D\uD83C\uDFFD \u2714\uFE0F \uD83D\uDC69\u200D\uD83D\uDCBB",
            "E = mc\u00B2, x\u2074 + 10\u00B9\u2070 \u2026 \uFB01nal",
            "\u200B\u200B\uFEFF\u2060",
            "\u1E9E\u00DFe in Stra\u00DFe, na\u00EFve caf\u00E9 (e\u0301)"})
    void textInOtherScriptsAndTypographyStaysUntouched(String text) {
        Redaction redaction = REDACTOR.redact(text);

        assertThat(redaction.text()).isEqualTo(text);
        assertThat(redaction.counts()).isEmpty();
    }
}
