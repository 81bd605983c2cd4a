package io.cognitionstreams.embeddings;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.text.Normalizer;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import dev.langchain4j.model.embedding.onnx.allminilml6v2q.AllMiniLmL6V2QuantizedEmbeddingModel;

/**
 * all-MiniLM-L6-v2's own tokenizer (BERT uncased: clean, lowercase, strip accents, split on whitespace, punctuation
 * and CJK characters, then greedy longest-match WordPiece) in plain Java, over the vocabulary in the model's jar.
 * The static embedder looks up what it returns, so a text costs no native call. Thread-safe once built.
 */
public final class WordPieceTokenizer {

    public static final int CLS = 101;
    public static final int SEP = 102;
    public static final int UNKNOWN = 100;
    /** As the model's tokenizer.json: a longer word is one unknown token. */
    private static final int MAX_WORD_CHARS = 100;

    private final Map<String, Integer> words = new HashMap<>();
    /** Pieces that continue a word, without their "##", so a lookup builds no prefixed string. */
    private final Map<String, Integer> continuations = new HashMap<>();
    private final String[] tokens;

    private WordPieceTokenizer(Map<String, Integer> vocabulary) {
        this.tokens = new String[vocabulary.size()];
        vocabulary.forEach((token, id) -> {
            tokens[id] = token;
            if (token.startsWith("##") && token.length() > 2) {
                continuations.put(token.substring(2), id);
            } else {
                words.put(token, id);
            }
        });
    }

    /** The vocabulary of the quantized all-MiniLM-L6-v2 shipped in langchain4j's jar. */
    public static WordPieceTokenizer miniLm() {
        try (InputStream in = AllMiniLmL6V2QuantizedEmbeddingModel.class
                .getResourceAsStream("/all-minilm-l6-v2-q-tokenizer.json")) {
            if (in == null) {
                throw new IllegalStateException("all-minilm-l6-v2-q-tokenizer.json is missing from the classpath");
            }
            JsonNode vocab = new ObjectMapper().readTree(in).path("model").path("vocab");
            Map<String, Integer> vocabulary = new HashMap<>(vocab.size() * 2);
            for (Iterator<Map.Entry<String, JsonNode>> it = vocab.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> entry = it.next();
                vocabulary.put(entry.getKey(), entry.getValue().asInt());
            }
            return new WordPieceTokenizer(vocabulary);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public int vocabularySize() {
        return tokens.length;
    }

    public String token(int id) {
        return tokens[id];
    }

    /** The text's token ids, without [CLS] and [SEP]; empty for a text of whitespace and control characters. */
    public int[] encode(String text) {
        IntBuffer ids = new IntBuffer();
        StringBuilder word = new StringBuilder();
        String normalized = normalize(text);
        for (int i = 0; i < normalized.length(); ) {
            int c = normalized.codePointAt(i);
            i += Character.charCount(c);
            if (Character.isWhitespace(c) || Character.isSpaceChar(c)) {
                wordPieces(word, ids);
            } else if (isPunctuation(c) || isCjk(c)) {
                wordPieces(word, ids);
                word.appendCodePoint(c);
                wordPieces(word, ids);
            } else {
                word.appendCodePoint(c);
            }
        }
        wordPieces(word, ids);
        return ids.toArray();
    }

    /** BERT's clean-up, lowercasing and accent stripping (NFD, then combining marks dropped). */
    private static String normalize(String text) {
        String ascii = printableAscii(text);
        if (ascii != null) {
            return ascii;
        }
        StringBuilder clean = new StringBuilder(text.length());
        for (int i = 0; i < text.length(); ) {
            int c = text.codePointAt(i);
            i += Character.charCount(c);
            int type = Character.getType(c);
            if (c == 0 || c == 0xFFFD || (type == Character.CONTROL && !Character.isWhitespace(c))
                    || type == Character.FORMAT) {
                continue;
            }
            clean.appendCodePoint(Character.isWhitespace(c) ? ' ' : c);
        }
        String decomposed = Normalizer.normalize(clean.toString().toLowerCase(java.util.Locale.ROOT),
                Normalizer.Form.NFD);
        StringBuilder stripped = new StringBuilder(decomposed.length());
        for (int i = 0; i < decomposed.length(); i++) {
            char c = decomposed.charAt(i);
            if (Character.getType(c) != Character.NON_SPACING_MARK) {
                stripped.append(c);
            }
        }
        return stripped.toString();
    }

    /** The text lowercased when it is printable ASCII and whitespace (most prompts), which needs no more; else null. */
    private static String printableAscii(String text) {
        char[] chars = new char[text.length()];
        for (int i = 0; i < chars.length; i++) {
            char c = text.charAt(i);
            if (c >= 'A' && c <= 'Z') {
                chars[i] = (char) (c + ('a' - 'A'));
            } else if (c >= ' ' && c < 127) {
                chars[i] = c;
            } else if (c == '\t' || c == '\n' || c == '\r') {
                chars[i] = ' ';
            } else {
                return null;
            }
        }
        return new String(chars);
    }

    private void wordPieces(StringBuilder word, IntBuffer ids) {
        if (word.length() == 0) {
            return;
        }
        String text = word.toString();
        word.setLength(0);
        if (text.codePointCount(0, text.length()) > MAX_WORD_CHARS) {
            ids.add(UNKNOWN);
            return;
        }
        int mark = ids.size;
        int start = 0;
        while (start < text.length()) {
            int end = text.length();
            Integer id = null;
            while (end > start) {
                id = (start == 0 ? words : continuations).get(text.substring(start, end));
                if (id != null) {
                    break;
                }
                end = Character.isLowSurrogate(text.charAt(end - 1)) && end - 2 > start ? end - 2 : end - 1;
            }
            if (id == null) {
                // As BERT: a word with a piece outside the vocabulary is one unknown token, whole.
                ids.size = mark;
                ids.add(UNKNOWN);
                return;
            }
            ids.add(id);
            start = end;
        }
    }

    private static boolean isPunctuation(int c) {
        if (c >= 33 && c <= 47 || c >= 58 && c <= 64 || c >= 91 && c <= 96 || c >= 123 && c <= 126) {
            return true;
        }
        int type = Character.getType(c);
        return type == Character.CONNECTOR_PUNCTUATION || type == Character.DASH_PUNCTUATION
                || type == Character.START_PUNCTUATION || type == Character.END_PUNCTUATION
                || type == Character.INITIAL_QUOTE_PUNCTUATION || type == Character.FINAL_QUOTE_PUNCTUATION
                || type == Character.OTHER_PUNCTUATION;
    }

    private static boolean isCjk(int c) {
        return c >= 0x4E00 && c <= 0x9FFF || c >= 0x3400 && c <= 0x4DBF || c >= 0x20000 && c <= 0x2A6DF
                || c >= 0x2A700 && c <= 0x2B73F || c >= 0x2B740 && c <= 0x2B81F || c >= 0x2B820 && c <= 0x2CEAF
                || c >= 0xF900 && c <= 0xFAFF || c >= 0x2F800 && c <= 0x2FA1F;
    }

    /** A growable int array, so a long text does not box every id. */
    private static final class IntBuffer {
        private int[] values = new int[32];
        private int size;

        void add(int value) {
            if (size == values.length) {
                values = java.util.Arrays.copyOf(values, size * 2);
            }
            values[size++] = value;
        }

        int[] toArray() {
            return java.util.Arrays.copyOf(values, size);
        }
    }
}
