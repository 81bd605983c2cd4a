package io.cognitionstreams.deadletter;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Input records whose output the brokers refused, by application and position, with the brokers' reason. The
 * production handler adds one when it learns which input an output it could not send came from; the input gate
 * ({@code topology.InputGate}) refuses that input, before any processor has forwarded anything of it, the next time
 * it is read, which makes it one dead letter and nothing else.
 */
public final class RefusedInputs {

    private static final int REMEMBERED = 1024;
    private static final Map<Position, String> REFUSED = Collections.synchronizedMap(
            new LinkedHashMap<>(16, 0.75f, false) {
                @Override
                protected boolean removeEldestEntry(Map.Entry<Position, String> eldest) {
                    return size() > REMEMBERED;
                }
            });

    private RefusedInputs() {
    }

    private record Position(String applicationId, String topic, int partition, long offset) {
    }

    public static void remember(String applicationId, String topic, int partition, long offset, String reason) {
        REFUSED.put(new Position(applicationId, topic, partition, offset), reason);
    }

    /** Why the input at this position must be refused, once; empty for every other record. */
    public static Optional<String> take(String applicationId, String topic, int partition, long offset) {
        if (REFUSED.isEmpty()) {
            return Optional.empty();
        }
        return Optional.ofNullable(REFUSED.remove(new Position(applicationId, topic, partition, offset)));
    }
}
