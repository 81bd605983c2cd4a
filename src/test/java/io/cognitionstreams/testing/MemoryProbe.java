package io.cognitionstreams.testing;

import java.time.Duration;
import java.time.Instant;
import java.util.function.Consumer;

import io.cognitionstreams.schema.CognitionPacket;
import io.cognitionstreams.topics.Topics;

/**
 * Asks in a memory scope until a packet recalls a memory. A memory written to cognition.memory reaches prompts once
 * the instance's global store has loaded it, a moment after the topic has it, so a test that wants a memory in
 * place asks until it is; a prompt whose replay transcript has no THOUGHT_SEED or VERIFY block asks without adding
 * memories of its own.
 */
public final class MemoryProbe {

    private MemoryProbe() {
    }

    /**
     * The first packet of {@code session}, asked {@code prompt} in {@code scope} every half second, whose context
     * recalls {@code memory}; every packet on the way is handed to {@code each} first.
     */
    public static CognitionPacket untilRecalled(String bootstrap, Topics topics, String session, String scope,
                                                String prompt, String memory, Duration timeout,
                                                Consumer<CognitionPacket> each) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        for (int attempt = 1; System.nanoTime() < deadline; attempt++) {
            String requestId = session + "-probe" + attempt;
            Kafka.send(bootstrap, topics.requests, session, Records.request(session, prompt).setRequestId(requestId)
                    .setMemoryScope(scope).setTimestamp(Instant.now()).build());
            CognitionPacket packet = Kafka.readUntil(bootstrap, topics.packets,
                    p -> p.getRequestId().equals(requestId), seen -> !seen.isEmpty(), timeout).get(0);
            each.accept(packet);
            if (packet.getHeader().getContext().contains(memory)) {
                return packet;
            }
            Thread.sleep(500);
        }
        throw new AssertionError("no packet of scope " + scope + " recalled \"" + memory + "\" within " + timeout);
    }
}
