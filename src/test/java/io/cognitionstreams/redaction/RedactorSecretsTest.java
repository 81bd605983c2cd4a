package io.cognitionstreams.redaction;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.entry;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/** {@link Redactor#secrets}: commands lose their secrets and keep the addresses and names they work on. */
class RedactorSecretsTest {

    private static final String KEY_BODY = "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6";
    private static final String JWT = segment("{\"alg\":\"HS256\"}") + "." + segment("{\"sub\":\"42\"}") + ".c2ln";

    private static String segment(String json) {
        return Base64.getUrlEncoder().withoutPadding().encodeToString(json.getBytes(StandardCharsets.UTF_8));
    }

    static Stream<Arguments> commandsWithSecrets() {
        return Stream.of(
                Arguments.of("export OPENAI_API_KEY=sk-proj-" + KEY_BODY + " && ping -c 1 10.0.0.1",
                        "export OPENAI_API_KEY=[REDACTED:API_KEY] && ping -c 1 10.0.0.1"),
                Arguments.of("mysql -h db.example.com --user=ann --password=hunter2 app",
                        "mysql -h db.example.com --user=ann --password=[REDACTED:POLICY:credential] app"),
                Arguments.of("git clone https://ann:ghp_" + KEY_BODY + "@github.com/org/repo.git",
                        "git clone https://ann:[REDACTED:URL_PASSWORD]@github.com/org/repo.git"),
                Arguments.of("curl -H 'Authorization: Bearer " + JWT + "' https://api.example.com/v1?u=ann@example.com",
                        "curl -H 'Authorization: Bearer [REDACTED:JWT]' https://api.example.com/v1?u=ann@example.com"),
                Arguments.of("cat > id.pem <<EOF\n-----BEGIN OPENSSH PRIVATE KEY-----\nb3Bl\n"
                        + "-----END OPENSSH PRIVATE KEY-----\nEOF\nscp -i id.pem app.tar ann@10.0.0.7:/srv",
                        "cat > id.pem <<EOF\n[REDACTED:PRIVATE_KEY]\nEOF\nscp -i id.pem app.tar ann@10.0.0.7:/srv"),
                // the same normalisation as redact
                Arguments.of("export PASSWORD\uFF1Dhunter3", "export PASSWORD\uFF1D[REDACTED:POLICY:credential]"),
                Arguments.of("export \u0440assword=hunter5", "export \u0440assword=[REDACTED:POLICY:credential]"),
                Arguments.of("export KEY=sk\u2011" + KEY_BODY, "export KEY=[REDACTED:API_KEY]"));
    }

    @ParameterizedTest
    @MethodSource("commandsWithSecrets")
    void secretsGoAndTheRestOfTheCommandStays(String command, String expected) {
        assertThat(Redactor.secrets(command).text()).isEqualTo(expected);
    }

    @ParameterizedTest
    @ValueSource(strings = {"ping 10.0.0.1", "git config user.email ann@example.com", "ssh admin@db-1.prod.internal",
            "dig AAAA example.com @2001:db8::1", "arp -d 00:1A:2B:3C:4D:5E", "echo 'call +44 20 7946 0958'",
            "grep -r 4111111111111111 logs/", "echo 'what the fuck' > notes.txt",
            "ssh ann\uFF20example.com \u2014 ok"})
    void piiAndWordsInACommandStay(String command) {
        Redaction secrets = Redactor.secrets(command);

        assertThat(secrets.text()).isEqualTo(command);
        assertThat(secrets.counts()).isEmpty();
        // The full pipeline does change each of these, so the secrets-only mode is what keeps them.
        assertThat(Redactor.defaults().redact(command).text()).isNotEqualTo(command);
    }

    @Test
    void countsNameOnlySecretTypes() {
        Redaction secrets = Redactor.secrets("DB_PASSWORD=s3cr3t psql postgres://ann:pw@10.0.0.5/app -c 'select 1'"
                + " # ann@example.com");

        assertThat(secrets.text()).isEqualTo("DB_PASSWORD=[REDACTED:POLICY:credential] psql"
                + " postgres://ann:[REDACTED:URL_PASSWORD]@10.0.0.5/app -c 'select 1' # ann@example.com");
        assertThat(secrets.counts()).containsExactly(entry("POLICY:credential", 1), entry("URL_PASSWORD", 1));
    }

    @Test
    void argumentsAreScannedWholeSoACredentialsKeyAndValueAreSeenTogether() {
        Redaction arguments = Redactor.secretsInArguments("{\"host\":\"10.0.0.5\",\"password\":\"hunter22\"}");

        assertThat(arguments.text()).isEqualTo("{\"host\":\"10.0.0.5\",\"password\":\"[REDACTED:POLICY:credential]\"}");
        assertThat(arguments.counts()).containsExactly(entry("POLICY:credential", 1));
    }

    @Test
    void argumentsStayJsonWhenATagWouldEatAnEscape() {
        // Scanned whole, the credential's value ends at the escaped quote and takes its backslash with it.
        String json = "{\"command\":\"echo password=abc\\\"def\",\"n\":[1,\"token=xyz123\"]}";
        assertThat(Redactor.secrets(json).text()).as("what scanning the whole would give")
                .isEqualTo("{\"command\":\"echo password=[REDACTED:POLICY:credential]\"def\","
                        + "\"n\":[1,\"token=xyz123\"]}");

        Redaction arguments = Redactor.secretsInArguments(json);

        assertThat(arguments.text()).isEqualTo("{\"command\":\"echo password=[REDACTED:POLICY:credential]\\\"def\","
                + "\"n\":[1,\"token=xyz123\"]}");
        assertThat(arguments.counts()).containsExactly(entry("POLICY:credential", 1));
    }

    @Test
    void argumentsThatAreNotJsonAreScannedAsText() {
        assertThat(Redactor.secretsInArguments("ls -la; export PASSWORD=hunter22").text())
                .isEqualTo("ls -la; export PASSWORD=[REDACTED:POLICY:credential]");
    }

    @Test
    void textIsRequired() {
        assertThatThrownBy(() -> Redactor.secrets(null)).isInstanceOf(NullPointerException.class);
    }
}
