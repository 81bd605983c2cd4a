package io.cognitionstreams.timetravel;

import java.time.Instant;
import java.util.Iterator;
import java.util.List;
import java.util.Optional;

import io.cognitionstreams.events.PipelineEvents;
import io.cognitionstreams.schema.Checkpoint;
import io.cognitionstreams.schema.CognitionPacket;
import io.cognitionstreams.topics.Topics;

/**
 * A session's steps. A <em>packet</em> checkpoint is written for every packet the assembly emits: the state just
 * before the model answers, which is where the AutoFix loop travels back to. A <em>verified</em> checkpoint is
 * written when a Verify answer passes its contract. Both hold the source record's position (topic, partition,
 * offset, timestamp), the history reference (the packet's history_until), the memory scope the packet searched, the
 * request id, the active skill and the retry count: what a replay needs to find the step again on the timeline and
 * resume from it with what it saw.
 */
public final class Checkpoints {

    /** The branch of a session's first attempts; an AutoFix retry runs on {@code retry-<n>}. */
    public static final String MAIN_BRANCH = "main";
    public static final String UNKNOWN_STAGE = "UNKNOWN";

    private Checkpoints() {
    }

    /** {@code <session>/<10-digit sequence>}: sorts by sequence, so a session's checkpoints are one range. */
    public static String key(String session, long sequence) {
        return Topics.sequenceKey(session, sequence);
    }

    public static String key(Checkpoint checkpoint) {
        return key(checkpoint.getSessionId(), checkpoint.getSequence());
    }

    /** Where a source record sits on its topic. */
    public record Position(String topic, int partition, long offset, Instant timestamp) {

        /** The same record as what the events it leads to take their ids from. */
        public PipelineEvents.Source source() {
            return new PipelineEvents.Source(topic, partition, offset);
        }
    }

    /**
     * @param previous the checkpoint this step follows: the session's last one, or for a retry the checkpoint the
     *                 loop travelled back to
     */
    public static Checkpoint forPacket(CognitionPacket packet, int sequence, String stage, Position source,
                                       Optional<Checkpoint> previous) {
        int retry = retryCount(packet);
        return Checkpoint.newBuilder()
                .setSessionId(packet.getSessionId())
                .setSequence(sequence)
                .setBranchId(retry > 0 ? retryBranch(retry) : MAIN_BRANCH)
                .setParentCheckpoint(previous.map(Checkpoints::key).orElse(null))
                .setStage(stage)
                .setPacketId(packet.getMeta().getPacketId())
                .setRequestId(packet.getRequestId())
                .setSourceTopic(source.topic())
                .setSourcePartition(source.partition())
                .setSourceOffset(source.offset())
                .setHistoryRef(String.valueOf(packet.getHistoryUntil()))
                .setActiveSkills(packet.getHeader().getActiveSkill() == null ? List.of()
                        : List.of(packet.getHeader().getActiveSkill()))
                .setRetryCount(retry)
                .setTimestamp(source.timestamp())
                .setTimeTravel(packet.getMeta().getTimeTravel())
                .setParentId(packet.getMeta().getParentId())
                .setOriginSessionId(packet.getMeta().getOriginSessionId())
                .setMemoryScope(packet.getMeta().getMemoryScope())
                .build();
    }

    /** A Verify answer that passed: the step after its packet's checkpoint, on the same branch. */
    public static Checkpoint verified(Checkpoint packetCheckpoint, int sequence, Position source) {
        return Checkpoint.newBuilder(packetCheckpoint)
                .setSequence(sequence)
                .setParentCheckpoint(key(packetCheckpoint))
                .setSourceTopic(source.topic())
                .setSourcePartition(source.partition())
                .setSourceOffset(source.offset())
                .setTimestamp(source.timestamp())
                .build();
    }

    public static boolean isVerified(Checkpoint checkpoint) {
        return checkpoint.getSourceTopic().equals(Topics.LLM_OUTPUTS);
    }

    public static String kind(Checkpoint checkpoint) {
        return isVerified(checkpoint) ? "verified" : "packet";
    }

    public static String retryBranch(int retry) {
        return "retry-" + retry;
    }

    public static long historyUntil(Checkpoint checkpoint) {
        return Long.parseLong(checkpoint.getHistoryRef());
    }

    /**
     * The previous checkpoint of a failed answer: the one its packet wrote, holding the history before the failed
     * turn. Newest first, so the usual case (the session's latest checkpoint) is found at once.
     */
    public static Optional<Checkpoint> ofPacket(Iterator<Checkpoint> newestFirst, String packetId) {
        while (newestFirst.hasNext()) {
            Checkpoint checkpoint = newestFirst.next();
            if (!isVerified(checkpoint) && packetId.equals(checkpoint.getPacketId())) {
                return Optional.of(checkpoint);
            }
        }
        return Optional.empty();
    }

    private static int retryCount(CognitionPacket packet) {
        Integer retry = packet.getMeta().getRetryCount();
        return retry == null ? 0 : retry;
    }
}
