package io.cognitionstreams.assembly.compression;

import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;

import io.cognitionstreams.assembly.compression.CompressionResult.Compressed;
import io.cognitionstreams.signing.Sha256;

/**
 * Bounded LRU of compressed fields, keyed by SHA-256 of encoding, target and text. Identity and skills rarely
 * change, so most packets reuse a summary instead of embedding or calling a model again. Thread-safe.
 */
final class SummaryCache {

    private final Map<String, Compressed> entries;

    SummaryCache(int maxEntries) {
        if (maxEntries < 0) {
            throw new IllegalArgumentException("cache size must be >= 0, was " + maxEntries);
        }
        this.entries = new LinkedHashMap<>(16, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, Compressed> eldest) {
                return size() > maxEntries;
            }
        };
    }

    static String key(String text, int targetTokens, String encodingName) {
        // Newlines keep the parts apart: an encoding name and a number contain none.
        return HexFormat.of().formatHex(Sha256.of((encodingName + "\n" + targetTokens + "\n")
                .getBytes(StandardCharsets.UTF_8), text.getBytes(StandardCharsets.UTF_8)));
    }

    synchronized Compressed get(String key) {
        return entries.get(key);
    }

    synchronized void put(String key, Compressed value) {
        entries.put(key, value);
    }
}
