package io.cognitionstreams.redaction;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ContentPolicyTest {

    private static final Redactor DEFAULTS = Redactor.defaults();

    private static String redact(String text) {
        return DEFAULTS.redact(text).text();
    }

    private static Redactor with(PolicyRule... rules) {
        return new Redactor(new ContentPolicy(List.of(rules)), new ProfanityFilter(List.of()));
    }

    @Test
    void internalHostNamesAreRedacted() {
        assertThat(redact("Query db-1.prod.internal, then cache.internal."))
                .isEqualTo("Query [REDACTED:POLICY:internal-host], then [REDACTED:POLICY:internal-host].");
        assertThat(redact("https://api.internal/v1")).isEqualTo("https://[REDACTED:POLICY:internal-host]/v1");
    }

    @ParameterizedTest
    @ValueSource(strings = {"the internal wiki", "an .internal domain", "api.internal.example.com", "x.internals",
            "x.internal-tools"})
    void theWordInternalOutsideAHostNameStays(String text) {
        assertThat(redact(text)).isEqualTo(text);
    }

    @Test
    void credentialsAssignedInTextLoseTheirValueAndKeepTheirKey() {
        assertThat(redact("password: hunter2")).isEqualTo("password: [REDACTED:POLICY:credential]");
        assertThat(redact("DB_PASSWORD=abc123\nAWS_SECRET_ACCESS_KEY = wJalrXUtnFEMI"))
                .isEqualTo("DB_PASSWORD=[REDACTED:POLICY:credential]\n"
                        + "AWS_SECRET_ACCESS_KEY = [REDACTED:POLICY:credential]");
        assertThat(redact("{\"client_secret\": \"s3cr3t\", \"user\": \"bob\"}"))
                .isEqualTo("{\"client_secret\": \"[REDACTED:POLICY:credential]\", \"user\": \"bob\"}");
        assertThat(redact("X-Api-Key: abc123def")).isEqualTo("X-Api-Key: [REDACTED:POLICY:credential]");
        assertThat(redact("?user=bob&pwd=letmein&next=1"))
                .isEqualTo("?user=bob&pwd=[REDACTED:POLICY:credential]&next=1");
    }

    @ParameterizedTest
    @ValueSource(strings = {"passwords are hashed", "the password is required", "Password:\n- eight characters",
            "secrets: inherit", "mypassword=x", "max_tokens=4096", "api key rotation", "password: "})
    void credentialWordsWithoutAnAssignedValueStay(String text) {
        assertThat(redact(text)).isEqualTo(text);
    }

    @Test
    void aRuleWithoutAValueGroupReplacesItsWholeMatch() {
        Redactor redactor = with(PolicyRule.of("ticket", "TICKET-\\d{4,}"));

        Redaction redaction = redactor.redact("see TICKET-12345 and TICKET-1");

        assertThat(redaction.text()).isEqualTo("see [REDACTED:POLICY:ticket] and TICKET-1");
        assertThat(redaction.counts()).containsExactly(Map.entry("POLICY:ticket", 1));
    }

    @Test
    void whereRulesOverlapTheEarlierRuleWins() {
        Redactor redactor = with(PolicyRule.of("short", "foo bar"), PolicyRule.of("long", "foo bar baz"));

        assertThat(redactor.redact("foo bar baz").text()).isEqualTo("[REDACTED:POLICY:short] baz");
    }

    @Test
    void aRuleOnlyRunsOnTextContainingOneOfItsTriggersInAnyCase() {
        Pattern code = Pattern.compile("ACME-\\d+");
        Redactor triggered = with(new PolicyRule("acme", code, List.of("Acme-")));
        Redactor neverTriggered = with(new PolicyRule("acme", code, List.of("zzz")));

        assertThat(triggered.redact("ACME-42").text()).isEqualTo("[REDACTED:POLICY:acme]");
        assertThat(neverTriggered.redact("ACME-42").text()).isEqualTo("ACME-42");
    }

    @Test
    void emptyMatchesAreIgnored() {
        assertThat(with(PolicyRule.of("nothing", "x*")).redact("abc").text()).isEqualTo("abc");
    }

    @Test
    void ruleNamesAndRegexesAreChecked() {
        assertThatThrownBy(() -> PolicyRule.of("bad name", "x"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'bad name'");
        assertThatThrownBy(() -> PolicyRule.of("broken", "(abc"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("policy rule 'broken' has a bad regex: Unclosed group");
        assertThatThrownBy(() -> new PolicyRule("x", Pattern.compile("x"), List.of("")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("empty trigger");
    }
}
