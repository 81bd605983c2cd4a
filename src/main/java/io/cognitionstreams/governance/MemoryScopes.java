package io.cognitionstreams.governance;

import java.util.Optional;

/**
 * What names an episodic-memory scope: the set of sessions that share memories. A request names its session's scope
 * (memory_scope), every memory entry carries the scope it was written in, and a search sees only its own scope's
 * entries, so one tenant's THOUGHT_SEEDs never reach another tenant's prompts. One rule for the request, the entry
 * and the CLI, so a scope a request was accepted with is never refused later on its memories.
 *
 * <p>A session that names no scope has its own, {@code session/<session id>}: sharing is what a caller asks for,
 * never what it gets by leaving a field out. Named scopes are free text, so a named scope {@code s1} is not the
 * scope of session {@code s1}; naming {@code session/s1} is deliberate, and is how a fork keeps its original's memory.
 */
public final class MemoryScopes {

    /** How the scope of a session that names none begins. */
    public static final String SESSION_PREFIX = "session/";

    private MemoryScopes() {
    }

    /** The scope of a session that names none. */
    public static String ofSession(String session) {
        return SESSION_PREFIX + session;
    }

    /** {@code scope}, or the session's own when it is null (records written before scopes existed). */
    public static String orSession(String scope, String session) {
        return scope != null ? scope : ofSession(session);
    }

    /**
     * Who holds {@code scope}'s memories: the session of a session's own scope, the scope itself otherwise. Memory
     * entries are partitioned by it, as requests are by session, so a session's own memories sit in the partition of
     * its requests, and a shared scope's in one partition of its own.
     */
    public static String owner(String scope) {
        return scope.startsWith(SESSION_PREFIX) ? scope.substring(SESSION_PREFIX.length()) : scope;
    }

    /**
     * Why {@code scope} cannot name a memory scope; empty when it can. Scopes are typed by people on the CLI and
     * printed back to them, so a control character (a terminal escape) is refused along with an empty name.
     */
    public static Optional<String> problem(String scope) {
        if (scope == null || scope.isBlank()) {
            return Optional.of("memory scope is empty");
        }
        if (scope.chars().anyMatch(Character::isISOControl)) {
            return Optional.of("memory scope '" + scope.replaceAll("\\p{Cntrl}", "?") + "' holds a control character");
        }
        return Optional.empty();
    }
}
