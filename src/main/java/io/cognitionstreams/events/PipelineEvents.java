package io.cognitionstreams.events;

import java.time.Instant;
import java.util.Map;
import java.util.TreeMap;

import io.cognitionstreams.schema.CognitionPacket;
import io.cognitionstreams.schema.CognitionRequest;
import io.cognitionstreams.schema.LlmOutput;
import io.cognitionstreams.schema.MetaHeader;
import io.cognitionstreams.schema.PipelineEvent;
import io.cognitionstreams.schema.Severity;
import io.cognitionstreams.schema.TimeTravel;
import io.cognitionstreams.schema.ToolCall;
import io.cognitionstreams.schema.ToolResult;

/**
 * The one way an event on cognition.events is made, whoever makes it: so every event names the turn it is about
 * the same way, and what events carry is changed in one place. Attributes are copied in key order.
 */
public final class PipelineEvents {

    private PipelineEvents() {
    }

    /**
     * Which turn an event is about, and where that turn came from; any part may be unknown (null).
     *
     * @param parent     the parent_id of the record the event is about (the original packet of a replayed or forked
     *                   turn, the original call for a call)
     * @param timeTravel the turn's time_travel
     * @param origin     the turn's origin_session_id
     */
    public record Turn(String session, String request, String packet, String parent, TimeTravel timeTravel,
                       String origin) {

        public static final Turn NONE = new Turn(null, null, null, null, null, null);

        public static Turn of(CognitionRequest request) {
            return new Turn(request.getSessionId(), request.getRequestId(), null, request.getParentId(),
                    request.getTimeTravel(), request.getOriginSessionId());
        }

        public static Turn of(CognitionPacket packet) {
            MetaHeader meta = packet.getMeta();
            return new Turn(packet.getSessionId(), packet.getRequestId(), meta.getPacketId(), meta.getParentId(),
                    meta.getTimeTravel(), meta.getOriginSessionId());
        }

        public static Turn of(LlmOutput output) {
            return new Turn(output.getSessionId(), output.getRequestId(), output.getPacketId(), output.getParentId(),
                    output.getTimeTravel(), output.getOriginSessionId());
        }

        public static Turn of(ToolCall call) {
            return new Turn(call.getSessionId(), call.getRequestId(), call.getPacketId(), call.getParentId(),
                    call.getTimeTravel(), call.getOriginSessionId());
        }

        /** A result names no request. */
        public static Turn of(ToolResult result) {
            return new Turn(result.getSessionId(), null, result.getPacketId(), result.getParentId(),
                    result.getTimeTravel(), result.getOriginSessionId());
        }

        public Turn withPacket(String packetId) {
            return new Turn(session, request, packetId, parent, timeTravel, origin);
        }
    }

    /**
     * The input record an event follows from, where it sits on its topic. An event's id is this position and what
     * the event says, so it is unique per event and the same when that input is processed again (exactly-once
     * reprocessing, a rewind), and a consumer can drop a repeat. Ids derived from the ids in the records (a packet's,
     * a call's) were not unique: two answers to one packet carry the same packet, output and call ids, and their
     * two different events had one id.
     */
    public record Source(String topic, int partition, long offset) {

        /**
         * @param what the event's type, and whatever else tells it from the other events of the same input (the
         *             field of a budget overrun)
         */
        public String eventId(String what) {
            return topic + "-" + partition + "@" + offset + "/" + what;
        }
    }

    /**
     * @param id   {@link Source#eventId} of the input the event follows from
     * @param at   when what the event reports happened
     */
    public static PipelineEvent event(String id, String type, Severity severity, Turn turn, String message,
                                      Map<String, String> attributes, Instant at) {
        return PipelineEvent.newBuilder()
                .setEventId(id)
                .setType(type)
                .setSeverity(severity)
                .setSessionId(turn.session())
                .setRequestId(turn.request())
                .setPacketId(turn.packet())
                .setTimeTravel(turn.timeTravel())
                .setParentId(turn.parent())
                .setOriginSessionId(turn.origin())
                .setMessage(message)
                .setAttributes(new TreeMap<>(attributes))
                .setTimestamp(at)
                .build();
    }
}
