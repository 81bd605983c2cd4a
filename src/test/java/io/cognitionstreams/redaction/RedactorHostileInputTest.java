package io.cognitionstreams.redaction;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * 100 KB of one near-match repeated, for each detector and rule. Every scan is linear, so these finish in
 * milliseconds; a backtracking regex would not finish at all. No timing is asserted: finishing is the test.
 */
class RedactorHostileInputTest {

    private static final Redactor REDACTOR = Redactor.defaults();
    private static final int SIZE = 100_000;

    @ParameterizedTest
    @ValueSource(strings = {
            "a@", "@a.", "a.", "a_", "1.2.3.", "1.", "4111 ", "4111-", "+1 ", "(555) ", "555-", "030 ", "0", "DE89 ",
            "123-45-", "eyJ.", "eyJ-", "sk-", "sk-sk", "AKIA", "-----BEGIN ", "-----BEGIN X", "https://a:", "a://",
            "a://b:c", "1:", "::1:", ":", "aa:bb:", "aa-bb-", "f", "pass: ", "api-key ", "x.internal-",
            "a.internal.a", "shi", "\n",
            // Unicode: invisible characters, runs of marks NFKC must reorder, a character NFKC spells out in 18,
            // look-alikes, compatibility and surrogate-pair forms
            "\u200B", "a\u200B", "\u0301\u0316", "\uFDFA", "\u0440a", "\uFF41@", "4111\u00A0", "\u2013",
            "\uD835\uDC1F", "\uD835"})
    void repeatedNearMatchesAreScannedAndLeftAlone(String unit) {
        String text = unit.repeat(SIZE / unit.length());

        Redaction redaction = REDACTOR.redact(text);

        assertThat(redaction.text()).isEqualTo(text);
    }

    @ParameterizedTest
    @ValueSource(strings = {"-----BEGIN RSA PRIVATE KEY-----\n", "password=x ", "a@b.co ", "damn ", "10.0.0.1 ",
            "4111111111111111 ", "::1 ", "-----BEGIN PRIVATE KEY-----", "pass\u200Bword=x ", "a\uFF20b.co "})
    void repeatedMatchesAreAllReplaced(String unit) {
        String text = unit.repeat(SIZE / unit.length());

        Redaction redaction = REDACTOR.redact(text);

        assertThat(redaction.total()).isPositive();
        assertThat(redaction.text()).doesNotContain(unit.strip());
    }
}
