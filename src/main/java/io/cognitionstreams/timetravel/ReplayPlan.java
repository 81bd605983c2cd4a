package io.cognitionstreams.timetravel;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.cognitionstreams.schema.Checkpoint;
import io.cognitionstreams.schema.TimeTravel;
import io.cognitionstreams.schema.CognitionRequest;

/**
 * What {@code cognition replay} and {@code cognition fork} send: the session's original requests, read from
 * cognition.requests (the timeline), re-produced without touching the records they come from.
 *
 * <p>A session's <em>originals</em> are its requests with retry_count 0 that are not themselves replays: AutoFix
 * retries come back on their own when a replayed answer fails again, and an earlier replay is not part of the
 * history being replayed. Checkpoint N is the step to start from: a packet checkpoint starts with its own
 * request (re-run the step), a verified one with the request after it (the verified step stays).
 * <ul>
 *   <li><b>replay</b> re-runs the originals from N in the same session. Each gets {@code history_until} = the
 *       history reference its original packet had (from packet checkpoint N, N's own), so every replayed turn is
 *       assembled from exactly the history the original saw, and with the replay model gives the same packet.
 *       A turn that never became a packet gets the reference of the turn before it. Request ids are
 *       {@code <original>@replay-<tag>}.</li>
 *   <li><b>fork</b> sends all originals, in order, to a new session: those before N rebuild the fork's history
 *       through the pipeline (a new session has none), the rest re-run from N. Each turn must be answered
 *       before the next is sent, as in the original session, or it would be assembled without the answers
 *       before it. Request ids are {@code <original>@<new session>}.</li>
 * </ul>
 * Both keep each original's prompt, persona, skill, task, model, MTU and timestamp, and set {@code parent_id}
 * to the original's packet (its request id when it never had one) and {@code origin_session_id} to the original's
 * session, so every record of the re-run points back to where it came from. Both search episodic memory as the
 * original did: the scope its packet searched (a fork too, so it recalls its original's memories), as of its
 * packet's time. Both set {@code time_travel}, which every record of the re-run carries on, so that none of its
 * tool calls executes: a replay's are answered from the original's recorded results, a fork's recorded as not
 * executed, unless the fork was asked to run them (FORK_EXECUTE).
 */
public final class ReplayPlan {

    private static final String REPLAY_TAG = "@replay-";

    /**
     * @param requests what to send, in order
     * @param from     checkpoint N
     * @param rebuilt  fork only: how many leading requests rebuild history rather than re-run from N
     * @param answered ids of the requests whose originals became packets: the ones a model will answer
     */
    public record Plan(List<CognitionRequest> requests, Checkpoint from, int rebuilt, Set<String> answered) {
    }

    private final List<Checkpoint> checkpoints;
    private final Checkpoint from;

    /** @param checkpoints the session's checkpoints, in any order */
    public ReplayPlan(String session, List<Checkpoint> checkpoints, int sequence) {
        this.checkpoints = checkpoints.stream().sorted(Comparator.comparingInt(Checkpoint::getSequence)).toList();
        this.from = this.checkpoints.stream().filter(c -> c.getSequence() == sequence).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("session " + session + " has no checkpoint "
                        + sequence + "; `cognition checkpoints --session " + session + "` lists them"));
        if (from.getRequestId() == null) {
            throw new IllegalArgumentException("checkpoint " + sequence + " names no request to start from");
        }
    }

    public Checkpoint from() {
        return from;
    }

    /** The original request checkpoint N belongs to: a replay's checkpoint leads back to what it replayed. */
    public String anchorRequestId() {
        return origin(from.getRequestId());
    }

    /**
     * When the anchor request was written: seek cognition.requests there by timestamp. A packet's timestamp is
     * its request's, so the anchor's first packet checkpoint has it.
     */
    public Instant anchorTime() {
        return checkpoints.stream().filter(c -> !Checkpoints.isVerified(c))
                .filter(c -> anchorRequestId().equals(c.getRequestId())).map(Checkpoint::getTimestamp)
                .findFirst().orElse(from.getTimestamp());
    }

    /** @param timeline the session's requests from the anchor on (or from the start), in offset order */
    public Plan replay(List<CognitionRequest> timeline, String tag) {
        List<CognitionRequest> originals = originals(timeline);
        int start = start(originals);
        Map<String, Checkpoint> firstPackets = firstPackets();
        List<CognitionRequest> sent = new ArrayList<>();
        long historyUntil = Checkpoints.historyUntil(from);
        for (CognitionRequest original : originals.subList(start, originals.size())) {
            Checkpoint packet = firstPackets.get(original.getRequestId());
            // A turn without a checkpoint (it never became a packet) sees no more than the turn before it.
            if (packet != null) {
                historyUntil = Checkpoints.historyUntil(packet);
            }
            sent.add(derived(original, original.getSessionId(), original.getRequestId() + REPLAY_TAG + tag,
                    packet).setHistoryUntil(historyUntil).setTimeTravel(TimeTravel.REPLAY).build());
        }
        return new Plan(sent, from, 0, answered(sent, firstPackets));
    }

    /**
     * @param timeline     all the session's requests, from the start of cognition.requests
     * @param executeTools whether the turns from N on run their approved tool calls; the turns before N, which only
     *                     rebuild history, never do
     */
    public Plan fork(List<CognitionRequest> timeline, String newSession, boolean executeTools) {
        List<CognitionRequest> originals = originals(timeline);
        int start = start(originals);
        Map<String, Checkpoint> firstPackets = firstPackets();
        List<CognitionRequest> sent = new ArrayList<>();
        for (int i = 0; i < originals.size(); i++) {
            CognitionRequest original = originals.get(i);
            sent.add(derived(original, newSession, original.getRequestId() + "@" + newSession,
                    firstPackets.get(original.getRequestId())).setHistoryUntil(null)
                    .setTimeTravel(executeTools && i >= start ? TimeTravel.FORK_EXECUTE : TimeTravel.FORK).build());
        }
        return new Plan(sent, from, start, answered(sent, firstPackets));
    }

    /** The default name of a fork of {@code session} from checkpoint {@code sequence}. */
    public static String forkSession(String session, int sequence) {
        return session + "~fork-" + sequence;
    }

    public static String replayTag(Instant now) {
        return Long.toString(now.toEpochMilli(), 36);
    }

    public static boolean isReplay(String requestId) {
        return requestId.contains(REPLAY_TAG);
    }

    /** The request a replayed id was made from; any other id is its own origin. */
    public static String origin(String requestId) {
        int tag = requestId.lastIndexOf(REPLAY_TAG);
        return tag < 0 ? requestId : origin(requestId.substring(0, tag));
    }

    private static List<CognitionRequest> originals(List<CognitionRequest> timeline) {
        return timeline.stream().filter(r -> r.getRetryCount() == 0 && !isReplay(r.getRequestId())
                && r.getTimeTravel() != TimeTravel.REPLAY).toList();
    }

    private int start(List<CognitionRequest> originals) {
        String anchor = anchorRequestId();
        for (int i = 0; i < originals.size(); i++) {
            if (originals.get(i).getRequestId().equals(anchor)) {
                return Checkpoints.isVerified(from) ? i + 1 : i;
            }
        }
        throw new IllegalArgumentException("request " + anchor + " of checkpoint " + from.getSequence()
                + " is not on the timeline (deleted by retention?)");
    }

    /** Each original request's first packet: the one of its first attempt, with the history it saw. */
    private Map<String, Checkpoint> firstPackets() {
        Map<String, Checkpoint> first = new HashMap<>();
        for (Checkpoint checkpoint : checkpoints) {
            if (!Checkpoints.isVerified(checkpoint) && checkpoint.getRetryCount() == 0
                    && checkpoint.getRequestId() != null) {
                first.putIfAbsent(checkpoint.getRequestId(), checkpoint);
            }
        }
        return first;
    }

    /** A derived request's parent is its original's packet exactly when the original had one. */
    private static Set<String> answered(List<CognitionRequest> sent, Map<String, Checkpoint> firstPackets) {
        Set<String> packetIds = new HashSet<>();
        firstPackets.values().forEach(packet -> packetIds.add(packet.getPacketId()));
        Set<String> answered = new HashSet<>();
        sent.stream().filter(request -> packetIds.contains(request.getParentId()))
                .forEach(request -> answered.add(request.getRequestId()));
        return answered;
    }

    /**
     * The original re-sent: with its packet's checkpoint, it searches the memory that packet searched, its scope as
     * it was when the original was asked for (the packet's timestamp is its request's), so what was remembered since
     * is not recalled. An original that was itself a re-run keeps the time it searched as of.
     */
    private static CognitionRequest.Builder derived(CognitionRequest original, String session, String requestId,
                                                    Checkpoint packet) {
        CognitionRequest.Builder derived = CognitionRequest.newBuilder(original)
                .setRequestId(requestId)
                .setSessionId(session)
                .setParentId(packet != null ? packet.getPacketId() : original.getRequestId())
                .setOriginSessionId(original.getSessionId())
                .setRetryCount(0)
                .setRetryReason(null);
        if (packet != null) {
            derived.setMemoryAsOf(original.getMemoryAsOf() != null ? original.getMemoryAsOf() : packet.getTimestamp());
            if (packet.getMemoryScope() != null) {
                derived.setMemoryScope(packet.getMemoryScope());
            }
        }
        return derived;
    }
}
