package io.cognitionstreams.redaction;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Everyday technical text that looks a little like PII and must come through untouched. */
class PiiFalsePositiveTest {

    private static final Redactor REDACTOR = Redactor.defaults();

    @ParameterizedTest
    @ValueSource(strings = {
            // versions
            "1.2.3", "v2.4.0", "10.0.0-beta", "release 2.10.1 is out", "v10.1.2.3", "Java 17.0.15+6",
            // dates and times
            "2026-11-22T10:00:00Z", "2026-11-22", "2026-11-22 10:45:30", "2026-11-22T10:00:00.123+01:00",
            "10:45:30", "12:30", "22.11.2026", "11/22/2026", "epoch 1732269600000",
            // hashes and ids
            "da39a3ee5e6b4b0d3255bfef95601890afd80709", "da39a3e",
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
            "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
            "550e8400-e29b-41d4-a716-446655440000", "550E8400-E29B-41D4-A716-446655440000",
            "12345678-1234-1234-1234-123456789012", "order ORD-2024-000123", "order #123456789012",
            "ISBN 978-3-16-148410-0", "0x7fffffff",
            // numbers and amounts
            "12345", "3.14", "$1,234.56", "1,000,000", "1e-10", "50%", "+5 points", "items 100 200 3000",
            "1+2=3", "C++ 17",
            // ports, paths, code
            "localhost:8080", "http://localhost:8080/health", "Main.java:12:5", "src/app.ts:120:17",
            "std::vector<int>", "x :: Int", "@types/node", "lodash@4.17.21", "user@localhost",
            // a 16-digit number failing Luhn
            "4111111111111112", "1234 5678 9012 3456"})
    void staysUntouched(String text) {
        Redaction redaction = REDACTOR.redact(text);

        assertThat(redaction.text()).isEqualTo(text);
        assertThat(redaction.counts()).isEmpty();
    }
}
