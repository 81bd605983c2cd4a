package io.cognitionstreams.redaction;

import java.util.Arrays;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The third stage: listed words, whole words only, any case. A word is a run of letters, digits and underscores,
 * so "class", "assess" and "Scunthorpe" are never touched by a listed "ass" or "cunt"; "shit-faced" is, at "shit".
 */
public final class ProfanityFilter {

    /** A short list of common English swear words. */
    public static final List<String> DEFAULT_WORDS = List.of(
            "asshole", "bastard", "bitch", "bullshit", "crap", "damn", "dammit", "fuck", "fucking", "shit", "wtf");

    private final Set<String> words;
    // Sorted hash codes of the words: a token is only copied when its lower-case hash is one of them.
    private final int[] hashes;

    /** @throws IllegalArgumentException for an empty entry or one that is not a single word */
    public ProfanityFilter(Collection<String> words) {
        Set<String> lower = new HashSet<>();
        for (String word : words) {
            if (word.isEmpty() || !word.chars().allMatch(c -> Chars.isWord((char) c))) {
                throw new IllegalArgumentException("profanity entry '" + word + "' is not a single word");
            }
            lower.add(lower(word, 0, word.length()));
        }
        this.words = Set.copyOf(lower);
        this.hashes = lower.stream().mapToInt(String::hashCode).sorted().toArray();
    }

    public static ProfanityFilter defaults() {
        return new ProfanityFilter(DEFAULT_WORDS);
    }

    /** The words, in lower case. */
    public Set<String> words() {
        return words;
    }

    void scan(String text, List<Hit> out) {
        if (words.isEmpty()) {
            return;
        }
        int n = text.length();
        int i = 0;
        while (i < n) {
            if (!Chars.isWord(text.charAt(i))) {
                i++;
                continue;
            }
            int start = i;
            int hash = 0;
            for (; i < n && Chars.isWord(text.charAt(i)); i++) {
                hash = 31 * hash + Character.toLowerCase(text.charAt(i));
            }
            if (Arrays.binarySearch(hashes, hash) >= 0 && words.contains(lower(text, start, i))) {
                out.add(new Hit(start, i, "PROFANITY", 0));
            }
        }
    }

    // Char by char, so the hash above (String.hashCode's formula) agrees with the set's strings.
    private static String lower(String s, int start, int end) {
        char[] chars = new char[end - start];
        for (int i = start; i < end; i++) {
            chars[i - start] = Character.toLowerCase(s.charAt(i));
        }
        return new String(chars);
    }
}
