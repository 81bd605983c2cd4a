package io.cognitionstreams.load;

import java.time.Instant;
import java.util.List;

import io.cognitionstreams.schema.CognitionRequest;

/**
 * Requests for load and fault runs: sessions of a few turns, every prompt distinct (so no cache of repeated text
 * flatters a run), each prompt written to pick a known replay transcript.
 */
public enum Workload {

    /** Every replay transcript: deploy and research answers carry THOUGHT_SEED and VERIFY blocks, which
     *  episodic memory embeds, and once memory holds anything every later prompt is embedded to search it. */
    FULL(List.of("Plan the deploy of release 2.4.%d to production.",
            "Triage the crash bug reported against parser build %d.",
            "Research and compare the evaluation setups of three papers, batch %d.",
            "Clean up the disk on build server %d, it is full."), true),
    /** Only transcripts without memory blocks, each session in its own memory scope: on a fresh cluster nothing
     *  is embedded and no turn looks up another task's scope, so what remains is the cost of Kafka, exactly-once and
     *  the pipeline's own work. */
    NO_MEMORY(List.of("Triage the crash bug reported against parser build %d.",
            "Clean up the disk on build server %d, it is full."), false);

    /** Turns per session: later turns carry history, as real sessions do. */
    public static final int TURNS_PER_SESSION = 4;

    private final List<String> prompts;
    private final boolean sharedScope;

    Workload(List<String> prompts, boolean sharedScope) {
        this.prompts = prompts;
        this.sharedScope = sharedScope;
    }

    /**
     * Request {@code n} of run {@code run}: request id {@code <run>-<n>}, session {@code <run>-s<n / turns>}. In FULL
     * every session is in the memory scope {@code <run>}, so that memory fills across sessions and every prompt
     * searches it (a session alone would rarely have a memory of its own yet); a shared scope lives in one partition,
     * so the turns of sessions elsewhere take the lookup hop to it (docs/assembly.md).
     */
    public CognitionRequest request(String run, long n, Instant timestamp) {
        return request(run, n, timestamp, TURNS_PER_SESSION);
    }

    /** {@link #request(String, long, Instant)} with sessions of {@code turns} turns each. */
    public CognitionRequest request(String run, long n, Instant timestamp, int turns) {
        return CognitionRequest.newBuilder()
                .setRequestId(requestId(run, n))
                .setSessionId(session(run, n, turns))
                .setMemoryScope(sharedScope ? run : null)
                .setUserPrompt(String.format(prompts.get((int) (n % prompts.size())), n))
                .setPersona("developer")
                .setTargetModel("gpt-4o")
                .setTimestamp(timestamp)
                .build();
    }

    public static String session(String run, long n, int turns) {
        return run + "-s" + n / turns;
    }

    public static String requestId(String run, long n) {
        return run + "-" + n;
    }
}
