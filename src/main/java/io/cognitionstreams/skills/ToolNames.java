package io.cognitionstreams.skills;

import java.util.Optional;

/**
 * The shape of a tool name, shared by tool calls and permissions. A tool name is {@code service.method} (MCP) or
 * {@code service:method} (YAML): a service, one delimiter, then a method of one or more segments joined by dots
 * ({@code git.remote.add} is service {@code git}, method {@code remote.add}). Every segment is non-empty and made of
 * ASCII letters, digits, {@code _} and {@code -}. A {@code :} may only be the first delimiter. Case matters.
 * Checked with a loop over the characters: it runs on every tool call, so no regex and no allocation.
 */
public final class ToolNames {

    private static final boolean[] NAME_CHARS = new boolean[128];

    static {
        for (char c = 'a'; c <= 'z'; c++) {
            NAME_CHARS[c] = true;
            NAME_CHARS[Character.toUpperCase(c)] = true;
        }
        for (char c = '0'; c <= '9'; c++) {
            NAME_CHARS[c] = true;
        }
        NAME_CHARS['_'] = true;
        NAME_CHARS['-'] = true;
    }

    private ToolNames() {
    }

    public static boolean isNameChar(char c) {
        return c < 128 && NAME_CHARS[c];
    }

    /** Index of the service/method delimiter of a well-formed tool name, or -1 if {@code tool} is not one. */
    public static int delimiter(String tool) {
        int length = tool.length();
        int delimiter = -1;
        int segmentStart = 0;
        for (int i = 0; i < length; i++) {
            char c = tool.charAt(i);
            if (c == '.' || c == ':') {
                if (i == segmentStart || (c == ':' && delimiter >= 0)) {
                    return -1;
                }
                if (delimiter < 0) {
                    delimiter = i;
                }
                segmentStart = i + 1;
            } else if (!isNameChar(c)) {
                return -1;
            }
        }
        return segmentStart == length ? -1 : delimiter;
    }

    /** {@code service:method} for a tool name whose delimiter sits at {@code delimiter}. */
    public static String canonical(String tool, int delimiter) {
        return tool.charAt(delimiter) == ':' ? tool
                : tool.substring(0, delimiter) + ':' + tool.substring(delimiter + 1);
    }

    /** TEMPORARY until feat/tool-names merges: service and method of a well-formed name in any spelling. */
    public static Optional<ToolName> split(String tool) {
        if (tool == null) {
            return Optional.empty();
        }
        if (tool.startsWith("mcp__")) {
            int end = tool.indexOf("__", 5);
            return end <= 5 || end + 2 >= tool.length() ? Optional.empty()
                    : Optional.of(new ToolName(tool.substring(5, end), tool.substring(end + 2)));
        }
        int delimiter = delimiter(tool);
        return delimiter < 0 ? Optional.empty()
                : Optional.of(new ToolName(tool.substring(0, delimiter), tool.substring(delimiter + 1)));
    }
}
