package io.cognitionstreams.testing;

import java.time.Duration;
import java.time.Instant;
import java.util.function.Predicate;

import io.cognitionstreams.schema.CognitionPacket;
import io.cognitionstreams.topics.Topics;

/**
 * Asks in a memory scope until a packet recalls (or no longer recalls) a memory. A memory written to, or deleted
 * from, cognition.memory reaches prompts once the instance's global store has loaded the record, a moment after the
 * topic has it, so a test asks until it has; a prompt whose replay transcript has no THOUGHT_SEED or VERIFY block
 * asks without adding memories of its own.
 */
public final class MemoryProbe {

    private MemoryProbe() {
    }

    /** The first packet of {@code session}, asked {@code prompt} in {@code scope}, that recalls {@code memory}. */
    public static CognitionPacket untilRecalled(String bootstrap, Topics topics, String session, String scope,
                                                String prompt, String memory, Duration timeout)
            throws InterruptedException {
        return until(bootstrap, topics, session, scope, prompt, timeout,
                packet -> packet.getHeader().getContext().contains(memory));
    }

    /**
     * The first packet of {@code session}, asked {@code prompt} in {@code scope} every half second, that is
     * {@code done}; every packet on the way is handed to it, so it may assert what each must hold.
     */
    public static CognitionPacket until(String bootstrap, Topics topics, String session, String scope, String prompt,
                                        Duration timeout, Predicate<CognitionPacket> done)
            throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        for (int attempt = 1; System.nanoTime() < deadline; attempt++) {
            String requestId = session + "-probe" + attempt;
            Kafka.send(bootstrap, topics.requests, session, Records.request(session, prompt).setRequestId(requestId)
                    .setMemoryScope(scope).setTimestamp(Instant.now()).build());
            CognitionPacket packet = Kafka.readUntil(bootstrap, topics.packets,
                    p -> p.getRequestId().equals(requestId), seen -> !seen.isEmpty(), timeout).get(0);
            if (done.test(packet)) {
                return packet;
            }
            Thread.sleep(500);
        }
        throw new AssertionError("no packet of scope " + scope + " was what the test waited for within " + timeout);
    }
}
