package io.cognitionstreams.skills;

import java.util.Optional;

/**
 * The shape of a tool name, shared by tool calls and permissions. A well-formed tool name is a service and a method,
 * in one of three spellings that all name the same tool:
 * <ul>
 *   <li>{@code service.method} (dotted, as the routing and most agents write it);</li>
 *   <li>{@code service:method} (as permissions are written in YAML);</li>
 *   <li>{@code mcp__service__method} (as MCP clients such as Claude Code name a server's tools): after the literal
 *       prefix {@code mcp__}, the service is everything up to the next {@code __} and the method is the rest, which
 *       may itself hold {@code __} ({@code mcp__db__read__rows} is service {@code db}, method {@code read__rows}).</li>
 * </ul>
 * The service is one non-empty run of ASCII letters, digits, {@code _} and {@code -}; the method is one or more such
 * runs joined by dots ({@code git.remote.add} is service {@code git}, method {@code remote.add}). A {@code :} may only
 * be the first delimiter. A name that starts with {@code mcp__} is always read the MCP way, so {@code mcp__git},
 * {@code mcp__git__} and {@code mcp____x} are not well-formed. Case matters; nothing is trimmed.
 * <p>
 * Checked with loops over the characters: it runs on every tool call, so no regex and no allocation.
 */
public final class ToolNames {

    /** What an MCP-style tool name starts with. */
    public static final String MCP_PREFIX = "mcp__";
    private static final String MCP_DELIMITER = "__";

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

    /**
     * True for null, the empty string and a string of only whitespace (Unicode space separators such as U+00A0
     * included): a name no permission allows, not even {@code *}.
     */
    public static boolean isBlank(String tool) {
        if (tool == null) {
            return true;
        }
        for (int i = 0; i < tool.length(); i++) {
            char c = tool.charAt(i);
            if (!Character.isWhitespace(c) && !Character.isSpaceChar(c)) {
                return false;
            }
        }
        return true;
    }

    /** True if {@code tool} is a well-formed tool name in one of the three spellings. */
    public static boolean isWellFormed(String tool) {
        return delimiter(tool) >= 0;
    }

    /**
     * The service and method of a well-formed tool name, whichever its spelling; empty for anything else (null,
     * blank, a bare name such as {@code run}, a malformed name). Allocates: not for the permission check.
     */
    public static Optional<ToolName> split(String tool) {
        int delimiter = delimiter(tool);
        if (delimiter < 0) {
            return Optional.empty();
        }
        int methodStart = delimiter + (isMcp(tool) ? MCP_DELIMITER.length() : 1);
        return Optional.of(new ToolName(tool.substring(serviceStart(tool), delimiter), tool.substring(methodStart)));
    }

    /**
     * What keeps {@code tool} from being a well-formed tool name, in a few words for a denial message; for a
     * well-formed name, says so.
     */
    public static String problem(String tool) {
        if (isBlank(tool)) {
            return "it is blank";
        }
        if (isWellFormed(tool)) {
            return "it is well-formed";
        }
        if (isMcp(tool)) {
            return "an MCP-style name is mcp__SERVER__TOOL with a non-empty server and tool";
        }
        if (isName(tool, 0, tool.length())) {
            return "it has no service part";
        }
        return "it is not service.method or service:method with letters, digits, _ and - in each part";
    }

    /**
     * Index of the delimiter between service and method of a well-formed tool name ({@code .}, {@code :}, or the
     * {@code __} after an MCP server), or -1 if {@code tool} is not one. The service then starts at
     * {@link #serviceStart}.
     */
    static int delimiter(String tool) {
        if (tool == null) {
            return -1;
        }
        if (isMcp(tool)) {
            int start = MCP_PREFIX.length();
            int delimiter = tool.indexOf(MCP_DELIMITER, start);
            return delimiter > start && isName(tool, start, delimiter)
                    && isMethod(tool, delimiter + MCP_DELIMITER.length()) ? delimiter : -1;
        }
        int delimiter = 0;
        while (delimiter < tool.length() && isNameChar(tool.charAt(delimiter))) {
            delimiter++;
        }
        if (delimiter == 0 || delimiter == tool.length()) {
            return -1;
        }
        char c = tool.charAt(delimiter);
        return (c == '.' || c == ':') && isMethod(tool, delimiter + 1) ? delimiter : -1;
    }

    /** Where the service of a well-formed tool name starts: after {@value #MCP_PREFIX}, or at 0. */
    static int serviceStart(String tool) {
        return isMcp(tool) ? MCP_PREFIX.length() : 0;
    }

    /** A service: one non-empty run of name characters that is not read as an MCP prefix. */
    static boolean isService(String service) {
        return isName(service, 0, service.length()) && !isMcp(service);
    }

    /** A method: {@code text} from {@code from} to its end is non-empty runs of name characters joined by dots. */
    static boolean isMethod(String text, int from) {
        int segmentStart = from;
        for (int i = from; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '.') {
                if (i == segmentStart) {
                    return false;
                }
                segmentStart = i + 1;
            } else if (!isNameChar(c)) {
                return false;
            }
        }
        return segmentStart < text.length();
    }

    private static boolean isName(String text, int from, int to) {
        if (from >= to) {
            return false;
        }
        for (int i = from; i < to; i++) {
            if (!isNameChar(text.charAt(i))) {
                return false;
            }
        }
        return true;
    }

    private static boolean isMcp(String tool) {
        return tool.startsWith(MCP_PREFIX);
    }
}
