package io.cognitionstreams.skills;

/**
 * One permission from a skill's front matter. Three forms, each with a canonical spelling:
 * <ul>
 *   <li>{@code *}: every tool ({@link All}).</li>
 *   <li>{@code service:*} or {@code service.*}: every method of that one service ({@link Service}).</li>
 *   <li>{@code service:method} or {@code service.method}: that one tool ({@link Method}); the method may have dotted
 *       segments ({@code git:remote.add}).</li>
 * </ul>
 * The two delimiters are the same permission: {@code parse("git.status").equals(parse("git:status"))}, and either
 * allows the tool in all three of its spellings, {@code mcp__git__status} included. Names follow {@link ToolNames}:
 * exact and case-sensitive. A permission is not written MCP-style ({@code mcp__git__status}): that is how an MCP
 * client spells a call, and it is refused with the spelling to write instead. Anything else is refused with the
 * offending string in the message, so a typo in a SKILL.md fails at load rather than silently granting or denying.
 */
public sealed interface Permission permits Permission.All, Permission.Service, Permission.Method {

    /** The spelling used in messages and equality: {@code *}, {@code service:*} or {@code service:method}. */
    String canonical();

    record All() implements Permission {
        @Override
        public String canonical() {
            return "*";
        }
    }

    record Service(String service) implements Permission {
        @Override
        public String canonical() {
            return service + ":*";
        }
    }

    record Method(String service, String method) implements Permission {
        @Override
        public String canonical() {
            return service + ':' + method;
        }
    }

    /**
     * Parses one permission; surrounding whitespace is dropped (YAML authors indent), whitespace inside is an error.
     *
     * @throws IllegalArgumentException naming {@code text} and what is wrong with it
     */
    static Permission parse(String text) {
        if (text == null) {
            throw new IllegalArgumentException("invalid permission: null");
        }
        String permission = text.strip();
        if (permission.isEmpty()) {
            throw invalid(text, "it is empty");
        }
        if (permission.equals("*")) {
            return new All();
        }
        if (permission.startsWith(ToolNames.MCP_PREFIX)) {
            // A service spelled mcp__x would never match: tool names starting mcp__ are read as mcp__SERVER__TOOL.
            throw invalid(text, "mcp__SERVER__TOOL is how an MCP client spells a tool call, not a permission; write "
                    + "SERVER:TOOL or SERVER:* (for mcp__git__status: git:status or git:*)");
        }
        int delimiter = firstDelimiter(permission);
        if (delimiter < 0) {
            requireNameChars(text, permission);
            throw invalid(text, "a bare service is not a tool; write " + permission + ":* for all of its methods or "
                    + permission + ":METHOD for one");
        }
        String service = permission.substring(0, delimiter);
        String method = permission.substring(delimiter + 1);
        if (service.equals("*")) {
            throw invalid(text, "the service cannot be a wildcard; write * alone to allow every tool");
        }
        if (service.isEmpty()) {
            throw invalid(text, "the service is empty");
        }
        requireNameChars(text, service);
        if (method.equals("*")) {
            return new Service(service);
        }
        if (method.indexOf('*') >= 0) {
            throw invalid(text, "a wildcard stands for a whole method only (" + service + ":*); "
                    + "grant the methods one by one instead");
        }
        if (method.indexOf(':') >= 0) {
            throw invalid(text, "':' may appear once, between service and method");
        }
        if (method.isEmpty() || method.startsWith(".") || method.endsWith(".") || method.contains("..")) {
            throw invalid(text, "the method or one of its dotted segments is empty");
        }
        requireNameChars(text, method.replace(".", ""));
        return new Method(service, method);
    }

    private static int firstDelimiter(String permission) {
        int colon = permission.indexOf(':');
        int dot = permission.indexOf('.');
        if (colon < 0 || dot < 0) {
            return Math.max(colon, dot);
        }
        return Math.min(colon, dot);
    }

    private static void requireNameChars(String text, String name) {
        for (int i = 0; i < name.length(); i++) {
            if (!ToolNames.isNameChar(name.charAt(i))) {
                throw invalid(text, "'" + name.charAt(i) + "' is not allowed; names use letters, digits, _ and -");
            }
        }
    }

    private static IllegalArgumentException invalid(String text, String why) {
        return new IllegalArgumentException("invalid permission \"" + text + "\": " + why);
    }
}
