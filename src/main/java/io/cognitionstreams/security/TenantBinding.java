package io.cognitionstreams.security;

import java.util.List;
import java.util.Optional;

import io.cognitionstreams.deadletter.InvalidRecordException;
import io.cognitionstreams.governance.MemoryScopes;
import io.cognitionstreams.schema.CognitionRequest;
import io.cognitionstreams.topics.Topics;

/**
 * What a request read from a tenant's own requests topic ({@code cognition.requests.<tenant>}) may name. Kafka's
 * ACLs let only {@code agent-<tenant>} write that topic but never look at keys or values, so the topic is the one
 * authenticated fact about who wrote a request: it binds the request to the tenant. Its session must be one of the
 * tenant's ({@code <tenant>.<rest>}, {@link Topics#tenantOfSession}), and its memory scope, when it names one, the
 * tenant's own: {@code <tenant>}, {@code <tenant>.<rest>}, or a tenant session's own scope
 * ({@code session/<tenant>.<rest>}). A request that names no scope gets its session's, {@code session/<session>},
 * which is the tenant's since the session is. Requests on the shared {@code cognition.requests} are not bound:
 * only trusted writers (the app, its CLI) may write there.
 */
public final class TenantBinding {

    private TenantBinding() {
    }

    /**
     * Why a request with this session and memory scope, read from {@code tenant}'s requests topic, is not the
     * tenant's to send; empty when it is.
     *
     * @param scope the request's memory_scope, null when it names none
     */
    public static Optional<String> problem(String tenant, String session, String scope) {
        String topic = Topics.tenantRequests(tenant);
        if (Topics.tenantOfSession(session, List.of(tenant)).isEmpty()) {
            return Optional.of("session '" + session + "' is not tenant " + tenant + "'s: a request on " + topic
                    + " must name a session '" + tenant + ".<name>'");
        }
        if (scope != null && !ownScope(tenant, scope)) {
            return Optional.of("memory scope '" + scope + "' is not tenant " + tenant + "'s: a request on " + topic
                    + " may name '" + tenant + "', '" + tenant + ".<name>' or '" + MemoryScopes.SESSION_PREFIX
                    + tenant + ".<name>', or leave memory_scope out for its session's own");
        }
        return Optional.empty();
    }

    /**
     * Refuses a request read from {@code topic} when that is a tenant's requests topic and the request is not the
     * tenant's to send; a request on any other topic passes, and so does a null one (the request's own rules refuse
     * it).
     *
     * @throws InvalidRecordException the reason, naming the tenant and the topic: the request is dead-lettered
     */
    public static void requireBound(String topic, CognitionRequest request) {
        problem(topic, request).ifPresent(problem -> {
            throw new InvalidRecordException(problem);
        });
    }

    /** Whether {@link #requireBound} lets a request read from {@code topic} pass. */
    public static boolean isBound(String topic, CognitionRequest request) {
        return problem(topic, request).isEmpty();
    }

    private static Optional<String> problem(String topic, CognitionRequest request) {
        return request == null ? Optional.empty() : Topics.tenantOfRequests(topic).flatMap(tenant -> problem(tenant,
                request.getSessionId(), request.getMemoryScope()));
    }

    private static boolean ownScope(String tenant, String scope) {
        String rest = scope.startsWith(MemoryScopes.SESSION_PREFIX)
                ? scope.substring(MemoryScopes.SESSION_PREFIX.length()) : scope;
        return scope.equals(tenant) || Topics.tenantOfSession(rest, List.of(tenant)).isPresent();
    }
}
