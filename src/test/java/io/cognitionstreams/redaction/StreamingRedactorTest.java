package io.cognitionstreams.redaction;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import org.junit.jupiter.api.Test;

/**
 * Text redacted as it arrives releases, piece by piece, exactly what redacting it whole gives: whatever the pieces,
 * one character at a time included, no finding is split between two releases and nothing leaves in clear.
 */
class StreamingRedactorTest {

    private static final String PEM = "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7\nAAAAB3NzaC1yc2E\n"
            + "-----END RSA PRIVATE KEY-----";
    /** Findings of every kind, several of them with blanks or line ends inside, and disguised ones. */
    static final String[] FINDINGS = {
            "4111 1111 1111 1111", "4111-1111-1111-1111", "4111111111111111", "5500 0000 0000 0004",
            "3782 822463 10005", "DE89 3704 0044 0532 0130 00", "GB82WEST12345698765432", "GB82 WEST 1234 5698 7654 32",
            "+1 (555) 123-4567", "+44 20 7946 0958", "(555) 123-4567", "030 12345678", "+49 30 12345678",
            "123-45-6789", "ann@example.com", "bob.smith+news@mail.example.co.uk", "ann\uFF20example.com",
            "ann@exa\u200Bmple.com", "4111\u00A01111\u00A01111\u00A01111", "10.0.0.1", "2001:db8::1",
            "aa:bb:cc:dd:ee:ff", "sk-proj-abcdefghijklmnopqrstuvwxyz0123456789", "ghp_abcdefghijklmnopqrstuvwxyz0123456789",
            "AKIAIOSFODNN7EXAMPLE", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl",
            "postgres://admin:s3cret@db.example.com:5432/app", "password: hunter2", "DB_PASSWORD=abc123",
            "\"client_secret\": \"s3cr3t\"", "X-Api-Key:   abc", "password\t=\tletmein", PEM,
            "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0B\nAQEFAASCBKcwggSjAgEAAo\n", "db-1.prod.internal",
            "shit", "fu\u200Bck", "Project   Falcon", "project\nfalcon"};
    private static final String[] PROSE = {
            "the", "report", "shows", "that", "we", "deploy", "on", "Monday", "3.5", "v2", "2026", "#7", "(see",
            "above)", "it's", "fine,", "done.", "Please", "call", "mail", "card:", "key", "-", "--", "\u0441\u0435\u0440\u0432\u0435\u0440",
            "caf\u00E9", "\uD83D\uDC4D\uD83C\uDFFD", "na\u00EFve", "```", "RESPONSE:", "1234", "+1", "555"};
    private static final String[] GAPS = {" ", " ", " ", "\n", "\n\n", "  ", "\t", ", ", ". ", ""};

    private final Redactor redactor = Redactor.fromConfig("policy.codename = (?i)project\\s+falcon\n");
    private final Random random = new Random(20261128L);

    @Test
    void piecesOfAnySizeReleaseExactlyTheWholeTextsRedaction() {
        for (int round = 0; round < Integer.getInteger("rounds", 3000); round++) {
            String text = text(2 + random.nextInt(60));
            List<String> released = stream(text, pieces(text));
            assertThat(String.join("", released)).as("streamed %s", text)
                    .isEqualTo(redactor.redact(text).text());
        }
    }

    @Test
    void secretsArrivingOneCharacterAtATimeNeverLeaveInClear() {
        for (String finding : FINDINGS) {
            String text = "Here it is: " + finding + " and that is all of it, as the notes of 2026 say, "
                    + "with some words after it so that the cut can move on past it.\n"
                    + "More text follows here, line after line, as an answer would go on for a while. ".repeat(3);
            List<String> oneByOne = new ArrayList<>();
            text.codePoints().forEach(c -> oneByOne.add(new String(Character.toChars(c))));
            List<String> released = stream(text, oneByOne);
            String whole = redactor.redact(text).text();
            assertThat(whole).as("the whole text redacts %s", finding).doesNotContain(finding);
            assertThat(String.join("", released)).isEqualTo(whole);
            // Only a private key without its END line holds everything after it to the end.
            assertThat(released.stream().filter(piece -> !piece.isEmpty()).count())
                    .as("text is released while it streams, not all at the end")
                    .isGreaterThan(finding.contains("-----END") || !finding.contains("BEGIN") ? 3 : 1);
        }
    }

    @Test
    void anOpenPrivateKeyHoldsEverythingAfterItUntilItsEndLine() {
        StreamingRedactor streaming = new StreamingRedactor(redactor);
        StringBuilder released = new StringBuilder();
        released.append(streaming.append("Your key:\n-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEIIm\n"));
        String prose = "and here is a long explanation in plain words that goes on and on, ".repeat(10);
        released.append(streaming.append(prose));
        assertThat(released.toString()).as("nothing after the BEGIN line leaves before its END line")
                .doesNotContain("BEGIN").doesNotContain("MHcC").doesNotContain("explanation");
        released.append(streaming.append("\n-----END EC PRIVATE KEY-----\n"));
        released.append(streaming.append("after the key, more words ".repeat(10)));
        released.append(streaming.finish());
        assertThat(released.toString()).startsWith("Your key:\n[REDACTED:PRIVATE_KEY]\nafter the key");
    }

    @Test
    void holdsBackOnlyTheTailThatMayStillChange() {
        StreamingRedactor streaming = new StreamingRedactor(redactor);
        StringBuilder released = new StringBuilder();
        for (int i = 0; i < 50; i++) {
            released.append(streaming.append("word" + i + " "));
        }
        assertThat(streaming.held()).isLessThanOrEqualTo(StreamingRedactor.HOLD + StreamingRedactor.STEP + 8);
        assertThat(released).startsWith("word0 word1 ");
    }

    @Test
    void aLongTokenWithoutBlanksStaysHeldAndCostsFewRedactions() {
        StreamingRedactor streaming = new StreamingRedactor(redactor);
        String token = "x".repeat(200_000);
        StringBuilder released = new StringBuilder();
        for (int i = 0; i < token.length(); i += 10) {
            released.append(streaming.append(token.substring(i, i + 10)));
        }
        assertThat(released).isEmpty();
        assertThat(streaming.finish()).isEqualTo(token);
    }

    private List<String> stream(String text, List<String> pieces) {
        StreamingRedactor streaming = new StreamingRedactor(redactor);
        List<String> released = new ArrayList<>();
        for (String piece : pieces) {
            released.add(streaming.append(piece));
        }
        released.add(streaming.finish());
        assertThat(String.join("", pieces)).isEqualTo(text);
        return released;
    }

    private String text(int tokens) {
        StringBuilder text = new StringBuilder();
        for (int t = 0; t < tokens; t++) {
            if (t > 0) {
                text.append(GAPS[random.nextInt(GAPS.length)]);
            }
            text.append(random.nextInt(3) == 0 ? FINDINGS[random.nextInt(FINDINGS.length)]
                    : PROSE[random.nextInt(PROSE.length)]);
        }
        return text.toString();
    }

    /** Pieces of random sizes, one character at a time now and then; never half a surrogate pair. */
    private List<String> pieces(String text) {
        int max = switch (random.nextInt(4)) {
            case 0 -> 1;
            case 1 -> 4;
            case 2 -> 20;
            default -> 200;
        };
        List<String> pieces = new ArrayList<>();
        int at = 0;
        while (at < text.length()) {
            int end = Math.min(text.length(), at + 1 + random.nextInt(max));
            if (end < text.length() && Character.isHighSurrogate(text.charAt(end - 1))) {
                end++;
            }
            pieces.add(text.substring(at, end));
            at = end;
        }
        return pieces;
    }
}
