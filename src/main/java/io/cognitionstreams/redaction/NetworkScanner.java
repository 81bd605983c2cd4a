package io.cognitionstreams.redaction;

import static io.cognitionstreams.redaction.Chars.at;
import static io.cognitionstreams.redaction.Chars.digitsEnd;
import static io.cognitionstreams.redaction.Chars.isDigit;
import static io.cognitionstreams.redaction.Chars.isHex;
import static io.cognitionstreams.redaction.Chars.isWord;

import java.util.List;

/** IPv4 and IPv6 addresses and MAC addresses. */
final class NetworkScanner {

    private static final int MAC_LENGTH = 17;

    private NetworkScanner() {
    }

    static void scan(String s, List<Hit> out) {
        if (s.indexOf('.') >= 0) {
            ipv4s(s, out);
        }
        colonRuns(s, out);
        dashMacs(s, out);
    }

    /**
     * Four decimal octets 0-255 split by dots, not inside a word or a longer dotted number: "v1.2.3.4" and
     * "1.2.3.4.5" are not addresses, "version 10.1.2.3" is (a dotted quad cannot be told from an address).
     */
    private static void ipv4s(String s, List<Hit> out) {
        int n = s.length();
        for (int i = 0; i < n; i++) {
            char before = at(s, i - 1);
            if (!isDigit(s.charAt(i)) || isWord(before) || before == '.') {
                continue;
            }
            int end = ipv4End(s, i);
            if (end > 0 && !isWord(at(s, end)) && !(at(s, end) == '.' && isDigit(at(s, end + 1)))) {
                out.add(Hit.of(i, end, PiiType.IPV4));
                i = end - 1;
            }
        }
    }

    /** End of the dotted quad at {@code i}, or -1. */
    private static int ipv4End(String s, int i) {
        for (int octet = 0; octet < 4; octet++) {
            if (octet > 0) {
                if (at(s, i) != '.') {
                    return -1;
                }
                i++;
            }
            int end = digitsEnd(s, i);
            if (end == i || end - i > 3 || Integer.parseInt(s, i, end, 10) > 255) {
                return -1;
            }
            i = end;
        }
        return i;
    }

    /**
     * Every colon sits in a run of hex digits, colons and dots; each run is looked at once. A run not touching a
     * word is a MAC (aa:bb:cc:dd:ee:ff) or an IPv6 address, checked group by group. Times (10:45:30),
     * line:column references and C++/Rust paths (std::vec) fail those checks.
     */
    private static void colonRuns(String s, List<Hit> out) {
        int n = s.length();
        int colon = s.indexOf(':');
        while (colon >= 0) {
            int start = colon;
            int end = colon + 1;
            while (isRunChar(at(s, start - 1))) {
                start--;
            }
            while (end < n && isRunChar(s.charAt(end))) {
                end++;
            }
            addAddress(s, start, end, out);
            colon = s.indexOf(':', end);
        }
    }

    private static boolean isRunChar(char c) {
        return isHex(c) || c == ':' || c == '.';
    }

    private static void addAddress(String s, int start, int end, List<Hit> out) {
        // Sentence dots and a lone colon at either end belong to the prose: "at fe80::1.", "ip:fe80::1", "::1: up".
        while (start < end && s.charAt(start) == '.') {
            start++;
        }
        while (end > start && s.charAt(end - 1) == '.') {
            end--;
        }
        if (end - start >= 2 && s.charAt(start) == ':' && s.charAt(start + 1) != ':') {
            start++;
        }
        if (end - start >= 2 && s.charAt(end - 1) == ':' && s.charAt(end - 2) != ':') {
            end--;
        }
        if (isWord(at(s, start - 1)) || isWord(at(s, end))) {
            return;
        }
        if (end - start == MAC_LENGTH && isMac(s, start, ':')) {
            out.add(Hit.of(start, end, PiiType.MAC));
        } else if (isIpv6(s, start, end)) {
            out.add(Hit.of(start, end, PiiType.IPV6));
        }
    }

    /** aa-bb-cc-dd-ee-ff, anchored on its first dash. */
    private static void dashMacs(String s, List<Hit> out) {
        int dash = s.indexOf('-');
        while (dash >= 0) {
            int start = dash - 2;
            int end = start + MAC_LENGTH;
            char before = at(s, start - 1);
            if (start >= 0 && end <= s.length() && !isWord(before) && before != '-' && isMac(s, start, '-')
                    && !isWord(at(s, end)) && !(at(s, end) == '-' && isHex(at(s, end + 1)))) {
                out.add(Hit.of(start, end, PiiType.MAC));
                dash = s.indexOf('-', end);
            } else {
                dash = s.indexOf('-', dash + 1);
            }
        }
    }

    private static boolean isMac(String s, int start, char sep) {
        for (int k = 0; k < MAC_LENGTH; k++) {
            char c = s.charAt(start + k);
            if (k % 3 == 2 ? c != sep : !isHex(c)) {
                return false;
            }
        }
        return true;
    }

    /**
     * RFC 4291 text form: eight groups of 1-4 hex digits, or fewer with one "::" standing for the missing zero
     * groups, the last two groups optionally written as a dotted quad. A bare "::" (Haskell's type annotation)
     * is not taken for the unspecified address.
     */
    private static boolean isIpv6(String s, int start, int end) {
        int groups = 0;
        boolean compressed = false;
        int i = start;
        if (s.startsWith("::", i)) {
            compressed = true;
            i += 2;
            if (i == end) {
                return false;
            }
        }
        while (i < end) {
            int groupEnd = i;
            while (groupEnd < end && isHex(s.charAt(groupEnd))) {
                groupEnd++;
            }
            if (groupEnd < end && s.charAt(groupEnd) == '.') {
                if (ipv4End(s, i) != end) {
                    return false;
                }
                groups += 2;
                break;
            }
            if (groupEnd == i || groupEnd - i > 4) {
                return false;
            }
            groups++;
            i = groupEnd;
            if (i == end) {
                break;
            }
            // s.charAt(i) is a colon: the run holds only hex, colons and dots.
            i++;
            if (i < end && s.charAt(i) == ':') {
                if (compressed) {
                    return false;
                }
                compressed = true;
                i++;
            } else if (i == end) {
                return false;
            }
        }
        return compressed ? groups <= 7 : groups == 8;
    }
}
