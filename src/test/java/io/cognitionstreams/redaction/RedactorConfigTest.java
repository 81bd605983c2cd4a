package io.cognitionstreams.redaction;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RedactorConfigTest {

    @Test
    void aConfigReplacesTheBuiltInRulesAndWords() {
        Redactor redactor = Redactor.fromConfig("""
                # ticket ids are internal
                policy.defaults = off
                policy.ticket = TICKET-\\d{4,}
                profanity = heck, Darn
                """);

        assertThat(redactor.redact("TICKET-1234: heck, DARN, damn. password: x, mail ann@example.com").text())
                .isEqualTo("[REDACTED:POLICY:ticket]: [REDACTED:PROFANITY], [REDACTED:PROFANITY], damn."
                        + " password: x, mail [REDACTED:EMAIL]");
    }

    @Test
    void backslashesAreTakenLiterally() {
        Redactor redactor = Redactor.fromConfig("policy.path = C:\\\\Users\\\\\\w+");

        assertThat(redactor.redact("open C:\\Users\\ann\\notes.txt").text())
                .isEqualTo("open [REDACTED:POLICY:path]\\notes.txt");
    }

    @Test
    void rulesAreAddedAfterTheBuiltInOnesUnlessTurnedOff() {
        Redactor redactor = Redactor.fromConfig("policy.codename = (?i)project\\s+falcon");

        assertThat(redactor.redact("Project  Falcon is at db.internal, password=x").text())
                .isEqualTo("[REDACTED:POLICY:codename] is at [REDACTED:POLICY:internal-host],"
                        + " password=[REDACTED:POLICY:credential]");
    }

    @Test
    void anEmptyConfigIsTheDefaults() {
        Redactor redactor = Redactor.fromConfig("\n# nothing\n   \n");

        assertThat(redactor.redact("damn, host.internal").text())
                .isEqualTo("[REDACTED:PROFANITY], [REDACTED:POLICY:internal-host]");
    }

    @Test
    void anEmptyProfanityListTurnsTheFilterOff() {
        assertThat(Redactor.fromConfig("profanity =").redact("damn").text()).isEqualTo("damn");
    }

    @Test
    void windowsLineEndsAndBlanksAroundKeysAndValuesAreAccepted() {
        Redactor redactor = Redactor.fromConfig(
                "policy.defaults=off\r\n  policy.x   =   secret-\\d+  \r\nprofanity=\r\n");

        assertThat(redactor.redact("secret-42 damn").text()).isEqualTo("[REDACTED:POLICY:x] damn");
    }

    @Test
    void aConfigFileIsReadAsUtf8(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("redaction.conf");
        Files.writeString(file, "profanity = scheiße\n");

        assertThat(Redactor.fromConfig(file).redact("Scheiße!").text()).isEqualTo("[REDACTED:PROFANITY]!");
    }

    @Test
    void aBadRegexIsReportedWithItsLineAndRule() {
        assertThatThrownBy(() -> Redactor.fromConfig("# rules\npolicy.broken = (abc\n"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("redaction config line 2: policy rule 'broken' has a bad regex: Unclosed group")
                .hasMessageContaining("(abc");
    }

    @Test
    void malformedLinesAreReportedWithTheirLine() {
        assertError("policy.x = a\njust text", "redaction config line 2: expected key = value, got: just text");
        assertError("colour = red", "redaction config line 1: unknown key colour; keys are policy.defaults, "
                + "policy.<name> and profanity");
        assertError("policy.x = a\npolicy.x = b", "redaction config line 2: policy.x is set twice");
        assertError("profanity = a\nprofanity = b", "redaction config line 2: profanity is set twice");
        assertError("policy.defaults = yes", "redaction config line 1: policy.defaults must be on or off, got: yes");
        assertError("policy.empty =", "redaction config line 1: policy.empty has an empty regex");
        assertError("policy.bad name = x",
                "redaction config line 1: policy rule name 'bad name' is not letters, digits, _ and -");
        assertError("policy. = x", "redaction config line 1: policy rule name '' is not letters, digits, _ and -");
        assertError("profanity = darn, two words",
                "redaction config line 1: profanity entry 'two words' is not a single word");
        assertError("profanity = darn,,heck", "redaction config line 1: profanity entry '' is not a single word");
    }

    @Test
    void aRuleNamedLikeABuiltInRuleNeedsTheBuiltInsOff() {
        assertError("policy.credential = secret",
                "redaction config: policy.credential clashes with a built-in rule; set policy.defaults = off to"
                        + " replace the built-in rules");

        Redactor redactor = Redactor.fromConfig("policy.defaults = off\npolicy.credential = secret");
        assertThat(redactor.redact("secret").text()).isEqualTo("[REDACTED:POLICY:credential]");
    }

    private static void assertError(String config, String message) {
        assertThatThrownBy(() -> Redactor.fromConfig(config))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage(message);
    }
}
