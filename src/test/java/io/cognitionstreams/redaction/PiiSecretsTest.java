package io.cognitionstreams.redaction;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class PiiSecretsTest {

    private static final Redactor REDACTOR = Redactor.defaults();
    // Key bodies are assembled here rather than written out, so secret scanners do not flag the fixtures.
    private static final String ALNUM_36 = "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8";
    private static final String JWT = segment("{\"alg\":\"HS256\",\"typ\":\"JWT\"}") + "."
            + segment("{\"sub\":\"1234567890\",\"name\":\"John Doe\"}")
            + ".SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c";

    private static String redact(String text) {
        return REDACTOR.redact(text).text();
    }

    private static String segment(String json) {
        return Base64.getUrlEncoder().withoutPadding().encodeToString(json.getBytes(StandardCharsets.UTF_8));
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "sk-" + ALNUM_36 + "abcd", "sk-proj-" + ALNUM_36 + "_-x", "sk-ant-api03-" + ALNUM_36,
            "sk_live_" + ALNUM_36, "rk_test_" + ALNUM_36, "ghp_" + ALNUM_36, "gho_" + ALNUM_36, "ghs_" + ALNUM_36,
            "github_pat_11ABCDEFG0_" + ALNUM_36, "glpat-" + ALNUM_36, "AKIA" + "IOSFODNN7EXAMPLE",
            "ASIA" + "Y34FZKBOKMUTVV7A", "AIza" + "SyA-" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P",
            "xoxb-" + "123456789012-abcdEFGH",
            "xoxp-" + "1234-5678-abcdefgh", "hf_" + ALNUM_36, "npm_" + ALNUM_36})
    void apiKeysOfKnownFormats(String key) {
        assertThat(redact("export KEY=" + key + "\nnext")).isEqualTo("export KEY=[REDACTED:API_KEY]\nnext");
        assertThat(redact("(" + key + ")")).isEqualTo("([REDACTED:API_KEY])");
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "sk-short", "sk-learn is a library", "task-abcdefghijklmnopqrstuvwxyz0123", "ghp_tooShort123",
            "AKIA1234", "AKIA" + "IOSFODNN7EXAMPLEX", "AKIA" + "iosfodnn7example", "xAKIA" + "IOSFODNN7EXAMPLE",
            "AIza" + "Sy", "xoxb-1", "my_sk-" + "abcdefghijklmnopqrstuvwxyz"})
    void prefixesWithoutAKeyStay(String text) {
        assertThat(redact(text)).isEqualTo(text);
    }

    @Test
    void aJwtIsReplacedWhole() {
        assertThat(redact("Authorization: Bearer " + JWT + "\n")).isEqualTo("Authorization: Bearer [REDACTED:JWT]\n");
    }

    @Test
    void anUnsignedJwtStillExposesItsPayload() {
        String unsigned = segment("{\"alg\":\"none\"}") + "." + segment("{\"sub\":\"42\"}") + ".";
        assertThat(redact("token " + unsigned + " end")).isEqualTo("token [REDACTED:JWT] end");
    }

    @Test
    void threeDottedSegmentsWithoutAJwtHeaderStay() {
        String noAlg = segment("{\"typ\":\"JWT\"}") + "." + segment("{\"sub\":\"42\"}") + ".sig";
        String notJson = "eyJub3QganNvbg.eyJ4IjoxfQ.sig";
        String twoSegments = segment("{\"alg\":\"HS256\"}") + "." + segment("{\"sub\":\"42\"}");
        assertThat(redact(noAlg)).isEqualTo(noAlg);
        assertThat(redact(notJson)).isEqualTo(notJson);
        assertThat(redact(twoSegments)).isEqualTo(twoSegments);
        assertThat(redact("eyJ.eyJ.eyJ")).isEqualTo("eyJ.eyJ.eyJ");
    }

    @Test
    void aPemPrivateKeyBlockIsReplacedWholeAcrossLines() {
        String key = "-----BEGIN RSA PRIVATE KEY-----\n"
                + "MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun\n"
                + "VTLw7onLRnrq0/IzW7yWR7QkrmBL7jTKEn5u+qKhbwKfBstIs+bMY2Zkp18gnTxK\n"
                + "LxoS2tFczGkPLPgizskuemMghRniWaoLcyehkd3qqGElvW/VDL5AaWTg0nLVkjRo9z+40RQzuVaE8AkAFmxZzow3x+VJYKdj\n"
                + "ykkJ0iT9wCS0DRTXu4=\n"
                + "-----END RSA PRIVATE KEY-----";
        assertThat(redact("Here it is:\n" + key + "\nKeep it safe."))
                .isEqualTo("Here it is:\n[REDACTED:PRIVATE_KEY]\nKeep it safe.");
    }

    @Test
    void everyPrivateKeyLabelCountsAndPublicBlocksStay() {
        String text = "-----BEGIN PRIVATE KEY-----\nMIIB\n-----END PRIVATE KEY-----\n"
                + "-----BEGIN OPENSSH PRIVATE KEY-----\nb3Bl\n-----END OPENSSH PRIVATE KEY-----\n"
                + "-----BEGIN ENCRYPTED PRIVATE KEY-----\nMIIF\n-----END ENCRYPTED PRIVATE KEY-----\n"
                + "-----BEGIN PUBLIC KEY-----\nMIIB\n-----END PUBLIC KEY-----";
        Redaction redaction = REDACTOR.redact(text);

        assertThat(redaction.text()).isEqualTo(
                "[REDACTED:PRIVATE_KEY]\n[REDACTED:PRIVATE_KEY]\n[REDACTED:PRIVATE_KEY]\n"
                + "-----BEGIN PUBLIC KEY-----\nMIIB\n-----END PUBLIC KEY-----");
        assertThat(redaction.counts()).containsExactly(Map.entry("PRIVATE_KEY", 3));
    }

    @Test
    void aTruncatedPemKeyRunsOverItsBase64LinesAndStopsAtProse() {
        String text = "-----BEGIN EC PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\n\n"
                + "MHcCAQEEIIrYSSNQFaA2Hwf1duRSxKtLYX5CB04fSeQ6tF1aY\n"
                + "  AoGCCqGSM49AwEHoUQDQgAE\n\nThe rest was cut off.";
        assertThat(redact(text)).isEqualTo("[REDACTED:PRIVATE_KEY]\n\nThe rest was cut off.");
    }

    @Test
    void eachBeginLineTakesTheNextEndLineOfItsOwnLabel() {
        String text = "-----END RSA PRIVATE KEY-----\n"
                + "-----BEGIN RSA PRIVATE KEY-----\nMIIB\n-----END EC PRIVATE KEY-----\n-----END RSA PRIVATE KEY-----\n"
                + "between\n"
                + "-----BEGIN RSA PRIVATE KEY-----\nMIIC\n-----END RSA PRIVATE KEY-----\n"
                + "-----BEGIN EC PRIVATE KEY-----\nMHcC\n\nafter it";

        assertThat(redact(text)).isEqualTo("-----END RSA PRIVATE KEY-----\n[REDACTED:PRIVATE_KEY]\nbetween\n"
                + "[REDACTED:PRIVATE_KEY]\n[REDACTED:PRIVATE_KEY]\n\nafter it");
    }

    @Test
    void halfAMegabyteOfDistinctUnterminatedLabelsIsScannedLineByLine() {
        // Each label has its own END line to look for; the last one has it, at the very end.
        StringBuilder text = new StringBuilder();
        StringBuilder expected = new StringBuilder();
        int blocks = 0;
        while (text.length() < 500_000) {
            text.append("-----BEGIN K").append(blocks).append(" PRIVATE KEY-----\nnot base64\n");
            expected.append("[REDACTED:PRIVATE_KEY]\nnot base64\n");
            blocks++;
        }
        text.append("-----BEGIN K").append(blocks).append(" PRIVATE KEY-----\nMIIB\n-----END K").append(blocks)
                .append(" PRIVATE KEY-----");
        expected.append("[REDACTED:PRIVATE_KEY]");

        Redaction redaction = REDACTOR.redact(text.toString());

        assertThat(redaction.text()).isEqualTo(expected.toString());
        assertThat(redaction.count("PRIVATE_KEY")).isEqualTo(blocks + 1);
    }

    @Test
    void aPemKeyEscapedInsideJsonIsReplacedToItsEndLine() {
        String json = "{\"key\": \"-----BEGIN PRIVATE KEY-----\\nMIIEvQIBADANBg\\n-----END PRIVATE KEY-----\\n\"}";
        assertThat(redact(json)).isEqualTo("{\"key\": \"[REDACTED:PRIVATE_KEY]\\n\"}");
    }

    @Test
    void aPasswordInAUrlIsReplacedAndUserAndHostStay() {
        assertThat(redact("DATABASE_URL=postgres://admin:s3cr3t@db.example.com:5432/app"))
                .isEqualTo("DATABASE_URL=postgres://admin:[REDACTED:URL_PASSWORD]@db.example.com:5432/app");
        assertThat(redact("amqp://guest:gu%40st@rabbit/vhost"))
                .isEqualTo("amqp://guest:[REDACTED:URL_PASSWORD]@rabbit/vhost");
        assertThat(redact("redis://:hunter2@cache:6379/0")).isEqualTo("redis://:[REDACTED:URL_PASSWORD]@cache:6379/0");
    }

    @Test
    void aRawAtSignInsideAUrlPasswordIsCoveredUpToTheLastAt() {
        assertThat(redact("https://bob:p@ss@host.example/x"))
                .isEqualTo("https://bob:[REDACTED:URL_PASSWORD]@host.example/x");
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "https://example.com:8443/a@b", "https://host:8080/path", "see https://example.com/?q=a:b@c",
            "://user:pw@host", "user:pw@host", "https://:@host"})
    void urlsWithoutAPasswordInTheirUserInfoStay(String text) {
        assertThat(redact(text)).isEqualTo(text);
    }
}
