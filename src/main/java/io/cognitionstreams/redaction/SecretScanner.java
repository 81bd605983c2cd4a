package io.cognitionstreams.redaction;

import static io.cognitionstreams.redaction.Chars.at;
import static io.cognitionstreams.redaction.Chars.isAsciiAlnum;
import static io.cognitionstreams.redaction.Chars.isAsciiLetter;
import static io.cognitionstreams.redaction.Chars.isDigit;
import static io.cognitionstreams.redaction.Chars.isToken;
import static io.cognitionstreams.redaction.Chars.isUpper;

import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.IntPredicate;

/**
 * PEM private keys, JWTs, API keys and passwords in URLs. Each scan is anchored on a literal: -----BEGIN, eyJ, a
 * key prefix, ://.
 */
final class SecretScanner {

    private static final String PEM_BEGIN = "-----BEGIN ";
    private static final String PEM_END = "-----END ";
    private static final String PEM_DASHES = "-----";
    private static final int PEM_LABEL_MAX = 40;
    private static final int JWT_HEADER_MAX = 1024;

    private record KeyFormat(String prefix, IntPredicate body, int min, int max) {
    }

    private static final IntPredicate TOKEN = c -> isToken((char) c);
    private static final IntPredicate ALNUM = c -> isAsciiAlnum((char) c);
    private static final IntPredicate UPPER_ALNUM = c -> isUpper((char) c) || isDigit((char) c);
    private static final IntPredicate ALNUM_UNDERSCORE = c -> isAsciiAlnum((char) c) || c == '_';

    // Body lengths are of the part after the prefix.
    private static final List<KeyFormat> KEY_FORMATS = List.of(
            new KeyFormat("sk-", TOKEN, 20, 512),              // OpenAI sk-..., sk-proj-...; Anthropic sk-ant-...
            new KeyFormat("sk_live_", ALNUM, 16, 256),         // Stripe secret and restricted keys
            new KeyFormat("sk_test_", ALNUM, 16, 256),
            new KeyFormat("rk_live_", ALNUM, 16, 256),
            new KeyFormat("rk_test_", ALNUM, 16, 256),
            new KeyFormat("ghp_", ALNUM, 30, 255),             // GitHub tokens: personal, OAuth, user, server, refresh
            new KeyFormat("gho_", ALNUM, 30, 255),
            new KeyFormat("ghu_", ALNUM, 30, 255),
            new KeyFormat("ghs_", ALNUM, 30, 255),
            new KeyFormat("ghr_", ALNUM, 30, 255),
            new KeyFormat("github_pat_", ALNUM_UNDERSCORE, 22, 255),
            new KeyFormat("glpat-", TOKEN, 20, 255),           // GitLab personal access token
            new KeyFormat("AKIA", UPPER_ALNUM, 16, 16),        // AWS access key ids, long-term and temporary
            new KeyFormat("ASIA", UPPER_ALNUM, 16, 16),
            new KeyFormat("AIza", TOKEN, 35, 35),              // Google API key
            new KeyFormat("xoxb-", TOKEN, 10, 255),            // Slack bot, user, app and refresh tokens
            new KeyFormat("xoxp-", TOKEN, 10, 255),
            new KeyFormat("xoxa-", TOKEN, 10, 255),
            new KeyFormat("xoxr-", TOKEN, 10, 255),
            new KeyFormat("hf_", ALNUM, 30, 255),              // Hugging Face
            new KeyFormat("npm_", ALNUM, 36, 36));

    private static final boolean[] KEY_FIRST_CHARS = new boolean[128];

    static {
        for (KeyFormat format : KEY_FORMATS) {
            KEY_FIRST_CHARS[format.prefix().charAt(0)] = true;
        }
    }

    private SecretScanner() {
    }

    static void scan(String s, List<Hit> out) {
        privateKeys(s, out);
        jwts(s, out);
        apiKeys(s, out);
        urlPasswords(s, out);
    }

    /**
     * {@code -----BEGIN <label>-----} to the matching {@code -----END <label>-----}, for labels holding
     * "PRIVATE KEY". Without an END line the block runs over the key-like lines that follow: a truncated key is
     * still a secret.
     */
    private static void privateKeys(String s, List<Hit> out) {
        privateKeyBlocks(s, (begin, bodyStart, endLine, label) -> {
            int blockEnd = endLine >= 0 ? endLine + PEM_END.length() + label.length() + PEM_DASHES.length()
                    : pemBodyEnd(s, bodyStart);
            out.add(Hit.of(begin, blockEnd, PiiType.PRIVATE_KEY));
            return blockEnd;
        });
    }

    /**
     * Where the first private-key block starts that has no END line, or -1: whatever text is added after it may
     * still become part of it, since a BEGIN line takes the next END line of its label, however far on.
     */
    static int openPrivateKey(String s) {
        int[] open = {-1};
        privateKeyBlocks(s, (begin, bodyStart, endLine, label) -> {
            if (endLine < 0) {
                open[0] = begin;
                return -1;
            }
            return endLine + PEM_END.length();
        });
        return open[0];
    }

    /** One private-key block: returns where to look for the next BEGIN line, or -1 to stop. */
    private interface PemBlock {
        int visit(int begin, int bodyStart, int endLine, String label);
    }

    /**
     * Each private-key BEGIN line in turn, with the END line of its label it takes (-1 when there is none). The END
     * lines are indexed in one pass first, so each BEGIN line finds its own without searching the rest again.
     */
    private static void privateKeyBlocks(String s, PemBlock block) {
        int begin = s.indexOf(PEM_BEGIN);
        if (begin < 0) {
            return;
        }
        Map<String, ArrayDeque<Integer>> endLines = privateKeyEndLines(s);
        while (begin >= 0) {
            int labelStart = begin + PEM_BEGIN.length();
            String label = privateKeyLabel(s, labelStart);
            if (label == null) {
                begin = s.indexOf(PEM_BEGIN, labelStart);
                continue;
            }
            int bodyStart = labelStart + label.length() + PEM_DASHES.length();
            int next = block.visit(begin, bodyStart, nextEndLine(endLines.get(label), bodyStart), label);
            begin = next < 0 ? -1 : s.indexOf(PEM_BEGIN, next);
        }
    }

    /** Where each private-key label has an END line, in text order. */
    private static Map<String, ArrayDeque<Integer>> privateKeyEndLines(String s) {
        Map<String, ArrayDeque<Integer>> endLines = new HashMap<>();
        for (int end = s.indexOf(PEM_END); end >= 0; end = s.indexOf(PEM_END, end + 1)) {
            String label = privateKeyLabel(s, end + PEM_END.length());
            if (label != null) {
                endLines.computeIfAbsent(label, unused -> new ArrayDeque<>()).add(end);
            }
        }
        return endLines;
    }

    /**
     * The first END line at or after {@code from}. Those before it are dropped for good: BEGIN lines are met in text
     * order, so no later one can use them, and every END line is looked at once.
     */
    private static int nextEndLine(ArrayDeque<Integer> endLines, int from) {
        if (endLines == null) {
            return -1;
        }
        while (!endLines.isEmpty() && endLines.peekFirst() < from) {
            endLines.pollFirst();
        }
        return endLines.isEmpty() ? -1 : endLines.peekFirst();
    }

    /** The label of capitals, digits and spaces at {@code start}, closed by dashes and holding "PRIVATE KEY". */
    private static String privateKeyLabel(String s, int start) {
        int end = start;
        while (end - start <= PEM_LABEL_MAX && (isUpper(at(s, end)) || isDigit(at(s, end)) || at(s, end) == ' ')) {
            end++;
        }
        if (end - start > PEM_LABEL_MAX || !s.startsWith(PEM_DASHES, end)) {
            return null;
        }
        String label = s.substring(start, end);
        return label.contains("PRIVATE KEY") ? label : null;
    }

    /**
     * End of an unterminated PEM body: base64 (and the backslashes of a JSON-escaped key) left on the BEGIN line,
     * then every following line that is all base64 or a Proc-Type/DEK-Info header. Blank lines are passed over.
     */
    private static int pemBodyEnd(String s, int from) {
        int end = from;
        while (isPemBody(at(s, end))) {
            end++;
        }
        int line = end;
        while (line < s.length() && s.charAt(line) != '\n' && Character.isWhitespace(s.charAt(line))) {
            line++;
        }
        if (line == s.length() || s.charAt(line) != '\n') {
            // Prose after the BEGIN line, not a key on the lines below; or the end of the text.
            return end;
        }
        while (line >= 0) {
            int start = line + 1;
            int next = s.indexOf('\n', start);
            int contentEnd = next < 0 ? s.length() : next;
            while (start < contentEnd && Character.isWhitespace(s.charAt(start))) {
                start++;
            }
            while (contentEnd > start && Character.isWhitespace(s.charAt(contentEnd - 1))) {
                contentEnd--;
            }
            if (contentEnd > start) {
                if (!isPemBodyLine(s, start, contentEnd)) {
                    break;
                }
                end = contentEnd;
            }
            line = next;
        }
        return end;
    }

    private static boolean isPemBodyLine(String s, int start, int end) {
        if (s.startsWith("Proc-Type:", start) || s.startsWith("DEK-Info:", start)) {
            return true;
        }
        for (int i = start; i < end; i++) {
            if (!isPemBody(s.charAt(i))) {
                return false;
            }
        }
        return true;
    }

    private static boolean isPemBody(char c) {
        return isAsciiAlnum(c) || c == '+' || c == '/' || c == '=' || c == '\\';
    }

    /** header.payload.signature in base64url, the header decoding to a JSON object with an "alg" member. */
    private static void jwts(String s, List<Hit> out) {
        int start = s.indexOf("eyJ");
        while (start >= 0) {
            int end = isToken(at(s, start - 1)) ? -1 : jwtEnd(s, start);
            if (end > 0) {
                out.add(Hit.of(start, end, PiiType.JWT));
                start = s.indexOf("eyJ", end);
            } else {
                start = s.indexOf("eyJ", start + 3);
            }
        }
    }

    private static int jwtEnd(String s, int start) {
        int headerEnd = base64UrlEnd(s, start);
        if (at(s, headerEnd) != '.') {
            return -1;
        }
        int payloadEnd = base64UrlEnd(s, headerEnd + 1);
        if (payloadEnd == headerEnd + 1 || at(s, payloadEnd) != '.') {
            return -1;
        }
        // The signature is empty for alg "none"; the payload is exposed all the same.
        int end = base64UrlEnd(s, payloadEnd + 1);
        return isJwtHeader(s, start, headerEnd) ? end : -1;
    }

    private static int base64UrlEnd(String s, int i) {
        while (isToken(at(s, i))) {
            i++;
        }
        return i;
    }

    private static boolean isJwtHeader(String s, int start, int end) {
        if (end - start > JWT_HEADER_MAX) {
            return false;
        }
        try {
            String json = new String(Base64.getUrlDecoder().decode(s.substring(start, end)), StandardCharsets.UTF_8)
                    .strip();
            return json.startsWith("{") && json.endsWith("}") && json.contains("\"alg\"");
        } catch (IllegalArgumentException notBase64) {
            return false;
        }
    }

    /** A known prefix at the start of a token, then a body of the format's alphabet and length, then no more token. */
    private static void apiKeys(String s, List<Hit> out) {
        int n = s.length();
        for (int i = 0; i < n; i++) {
            char c = s.charAt(i);
            if (c >= 128 || !KEY_FIRST_CHARS[c] || isToken(at(s, i - 1))) {
                continue;
            }
            for (KeyFormat format : KEY_FORMATS) {
                int end = s.startsWith(format.prefix(), i) ? keyEnd(s, i, format) : -1;
                if (end > 0) {
                    out.add(Hit.of(i, end, PiiType.API_KEY));
                    i = end - 1;
                    break;
                }
            }
        }
    }

    private static int keyEnd(String s, int start, KeyFormat format) {
        int bodyStart = start + format.prefix().length();
        int end = bodyStart;
        while (end - bodyStart <= format.max() && format.body().test(at(s, end))) {
            end++;
        }
        int length = end - bodyStart;
        return length >= format.min() && length <= format.max() && !isToken(at(s, end)) ? end : -1;
    }

    /**
     * scheme://user:password@host: only the password is a finding, user and host stay. The authority runs to the
     * first / ? # or blank, and its last @ ends the user info, so a raw @ inside a password is covered too.
     */
    private static void urlPasswords(String s, List<Hit> out) {
        if (s.indexOf('@') < 0) {
            return;
        }
        int n = s.length();
        int sep = s.indexOf("://");
        while (sep >= 0) {
            int end = sep + 3;
            int colon = -1;
            int at = -1;
            for (char c; end < n && !isAuthorityEnd(c = s.charAt(end)); end++) {
                if (c == '@') {
                    at = end;
                } else if (c == ':' && colon < 0) {
                    colon = end;
                }
            }
            if (colon >= 0 && colon + 1 < at && hasScheme(s, sep)) {
                out.add(Hit.of(colon + 1, at, PiiType.URL_PASSWORD));
            }
            sep = s.indexOf("://", end);
        }
    }

    private static boolean isAuthorityEnd(char c) {
        return c == '/' || c == '?' || c == '#' || Character.isWhitespace(c);
    }

    private static boolean hasScheme(String s, int sep) {
        int i = sep;
        while (isAsciiAlnum(at(s, i - 1)) || at(s, i - 1) == '+' || at(s, i - 1) == '.' || at(s, i - 1) == '-') {
            i--;
        }
        while (i < sep && !isAsciiLetter(s.charAt(i))) {
            i++;
        }
        return i < sep;
    }
}
