package io.cognitionstreams.redaction;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.entry;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;

import org.junit.jupiter.api.Test;

class RedactorTest {

    private static final Redactor REDACTOR = Redactor.defaults();

    @Test
    void countsAreKeptPerTypeAndSortedByType() {
        Redaction redaction = REDACTOR.redact("Mail ann@example.com or bob@example.org, call +1 555 123 4567,"
                + " card 4111 1111 1111 1111, server 10.0.0.7, password=hunter2. Damn.");

        assertThat(redaction.text()).isEqualTo("Mail [REDACTED:EMAIL] or [REDACTED:EMAIL], call [REDACTED:PHONE],"
                + " card [REDACTED:CARD], server [REDACTED:IPV4], password=[REDACTED:POLICY:credential]."
                + " [REDACTED:PROFANITY].");
        assertThat(redaction.counts()).containsExactly(entry("CARD", 1), entry("EMAIL", 2), entry("IPV4", 1),
                entry("PHONE", 1), entry("POLICY:credential", 1), entry("PROFANITY", 1));
        assertThat(redaction.total()).isEqualTo(7);
        assertThat(redaction.count("SSN")).isZero();
    }

    @Test
    void cleanTextComesBackUnchangedWithNoCounts() {
        Redaction redaction = REDACTOR.redact("PLAN:\n1. read the logs\n2. restart the broker");

        assertThat(redaction.text()).isEqualTo("PLAN:\n1. read the logs\n2. restart the broker");
        assertThat(redaction.counts()).isEmpty();
        assertThat(REDACTOR.redact("").text()).isEmpty();
    }

    @Test
    void theCountsCannotBeChanged() {
        Redaction redaction = REDACTOR.redact("ann@example.com");

        assertThatThrownBy(() -> redaction.counts().put("EMAIL", 5)).isInstanceOf(UnsupportedOperationException.class);
    }

    @Test
    void piiScrubRunsBeforeTheContentPolicy() {
        String key = "sk-proj-" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6";
        Redaction redaction = REDACTOR.redact("OPENAI_API_KEY=" + key + "\npassword: bob@example.com");

        assertThat(redaction.text()).isEqualTo("OPENAI_API_KEY=[REDACTED:API_KEY]\npassword: [REDACTED:EMAIL]");
        assertThat(redaction.counts()).containsOnlyKeys("API_KEY", "EMAIL");
    }

    @Test
    void theContentPolicyRunsBeforeTheProfanityFilter() {
        Redactor redactor = new Redactor(new ContentPolicy(List.of(PolicyRule.of("quote", "\"[^\"]*\""))),
                ProfanityFilter.defaults());

        Redaction redaction = redactor.redact("he said \"damn it\" and then: damn");

        assertThat(redaction.text()).isEqualTo("he said [REDACTED:POLICY:quote] and then: [REDACTED:PROFANITY]");
        assertThat(redaction.counts()).containsExactly(entry("POLICY:quote", 1), entry("PROFANITY", 1));
    }

    @Test
    void laterStagesNeverMatchInsideOrAcrossEarlierTags() {
        Redactor redactor = new Redactor(
                new ContentPolicy(List.of(PolicyRule.of("tagword", "REDACTED|EMAIL|\\]\\s+and\\s+\\["))),
                new ProfanityFilter(List.of("redacted", "email", "policy", "tagword")));

        Redaction redaction = redactor.redact("a@example.com and b@example.com");

        assertThat(redaction.text()).isEqualTo("[REDACTED:EMAIL] and [REDACTED:EMAIL]");
        assertThat(redaction.counts()).containsExactly(entry("EMAIL", 2));
    }

    @Test
    void aPolicyRuleSpanningATagStopsAtTheTag() {
        Redactor redactor = new Redactor(new ContentPolicy(List.of(PolicyRule.of("note", "note:.*"))),
                new ProfanityFilter(List.of()));

        assertThat(redactor.redact("note: mail ann@example.com today").text())
                .isEqualTo("[REDACTED:POLICY:note][REDACTED:EMAIL] today");
    }

    @Test
    void aPasswordInsideAUrlWinsOverTheAddressLookingTextAroundIt() {
        Redaction redaction = REDACTOR.redact("ftp://ann:pa55@files.example.com/");

        assertThat(redaction.text()).isEqualTo("ftp://ann:[REDACTED:URL_PASSWORD]@files.example.com/");
        assertThat(redaction.counts()).containsExactly(entry("URL_PASSWORD", 1));
    }

    @Test
    void anAddressInsideAUrlIsReplacedAndTheUrlStays() {
        assertThat(REDACTOR.redact("https://example.com/users/ann@example.com/profile?x=1").text())
                .isEqualTo("https://example.com/users/[REDACTED:EMAIL]/profile?x=1");
    }

    @Test
    void anApiKeyUsedAsAUrlPasswordIsReplacedOnce() {
        String key = "sk-" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6";
        Redaction redaction = REDACTOR.redact("https://user:" + key + "@api.example.com");

        assertThat(redaction.text()).isEqualTo("https://user:[REDACTED:URL_PASSWORD]@api.example.com");
        assertThat(redaction.total()).isEqualTo(1);
    }

    @Test
    void aCardWinsOverThePhoneNumberItsDigitsAlsoForm() {
        assertThat(REDACTOR.redact("+1 4111 1111 1111 1111").text()).isEqualTo("+1 [REDACTED:CARD]");
    }

    @Test
    void anIpv4AddressInsideAnIpv6AddressIsPartOfTheIpv6Address() {
        Redaction redaction = REDACTOR.redact("::ffff:10.1.2.3");

        assertThat(redaction.text()).isEqualTo("[REDACTED:IPV6]");
        assertThat(redaction.counts()).containsExactly(entry("IPV6", 1));
    }

    @Test
    void aPrivateKeyBlockIsOneTagWhateverItContains() {
        Redaction redaction = REDACTOR.redact("-----BEGIN PRIVATE KEY-----\nComment: ann@example.com 10.0.0.1\n"
                + "MIIB\n-----END PRIVATE KEY-----");

        assertThat(redaction.text()).isEqualTo("[REDACTED:PRIVATE_KEY]");
        assertThat(redaction.counts()).containsExactly(entry("PRIVATE_KEY", 1));
    }

    @Test
    void aJwtInAUrlFragmentIsReplaced() {
        String header = Base64.getUrlEncoder().withoutPadding()
                .encodeToString("{\"alg\":\"RS256\"}".getBytes(StandardCharsets.UTF_8));
        assertThat(REDACTOR.redact("https://app.example.com/cb#id_token=" + header + ".eyJzdWIiOiIxIn0.c2ln").text())
                .isEqualTo("https://app.example.com/cb#id_token=[REDACTED:JWT]");
    }

    @Test
    void textIsRequired() {
        assertThatThrownBy(() -> REDACTOR.redact(null)).isInstanceOf(NullPointerException.class);
    }
}
