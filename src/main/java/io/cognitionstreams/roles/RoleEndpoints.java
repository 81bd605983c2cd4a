package io.cognitionstreams.roles;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The council roles this instance votes for with a model ({@code run --council-role NAME=ENDPOINT[#model]}), and how
 * they run.
 *
 * @param endpoints    one per role worker
 * @param councils     the councils they serve: they heartbeat into these and vote on their proposals
 * @param heartbeat    how often a role heartbeats while its endpoint is reachable
 * @param promptBudget the tokens a vote prompt may have
 */
public record RoleEndpoints(List<Endpoint> endpoints, List<String> councils, Duration heartbeat,
                            int promptBudget) {

    /** Seed 003: roles beat every 30 s, and are inactive after 90 s without one. */
    public static final Duration DEFAULT_HEARTBEAT = Duration.ofSeconds(30);
    public static final int DEFAULT_PROMPT_BUDGET = 2048;
    /** The endpoint that means the replay model, which answers from the role transcripts (the demo). */
    public static final String REPLAY = "replay";

    /**
     * @param role  the council role the worker votes as
     * @param url   an OpenAI-compatible endpoint; empty for the replay model
     * @param model the model name sent to it; empty for the endpoint's own
     */
    public record Endpoint(String role, Optional<String> url, Optional<String> model) {

        /** {@code NAME=ENDPOINT[#model]}, ENDPOINT an http(s) URL or {@value #REPLAY}. */
        public static Endpoint parse(String spec) {
            int equals = spec.indexOf('=');
            if (equals <= 0 || equals == spec.length() - 1) {
                throw new IllegalArgumentException("--council-role '" + spec + "' is not NAME=ENDPOINT[#model]");
            }
            String role = spec.substring(0, equals).strip();
            String rest = spec.substring(equals + 1).strip();
            int hash = rest.lastIndexOf('#');
            Optional<String> model = hash > 0 ? Optional.of(rest.substring(hash + 1)).filter(m -> !m.isBlank())
                    : Optional.empty();
            String url = hash > 0 ? rest.substring(0, hash) : rest;
            if (url.equals(REPLAY)) {
                return new Endpoint(role, Optional.empty(), model);
            }
            if (!url.startsWith("http://") && !url.startsWith("https://")) {
                throw new IllegalArgumentException("--council-role " + role + ": endpoint '" + url + "' is not an "
                        + "http(s) URL of an OpenAI-compatible API, nor '" + REPLAY + "'");
            }
            return new Endpoint(role, Optional.of(url), model);
        }
    }

    public RoleEndpoints {
        endpoints = List.copyOf(endpoints);
        councils = List.copyOf(councils);
        List<String> seen = new ArrayList<>();
        for (Endpoint endpoint : endpoints) {
            if (seen.contains(endpoint.role())) {
                throw new IllegalArgumentException("--council-role names role " + endpoint.role() + " twice");
            }
            seen.add(endpoint.role());
        }
        if (!endpoints.isEmpty() && councils.isEmpty()) {
            throw new IllegalArgumentException("council roles need at least one council to serve");
        }
        if (heartbeat.isZero() || heartbeat.isNegative()) {
            throw new IllegalArgumentException("the roles' heartbeat interval must be positive, got " + heartbeat);
        }
    }

    public static RoleEndpoints none() {
        return new RoleEndpoints(List.of(), List.of("default"), DEFAULT_HEARTBEAT, DEFAULT_PROMPT_BUDGET);
    }

    public List<String> roles() {
        return endpoints.stream().map(Endpoint::role).toList();
    }
}
