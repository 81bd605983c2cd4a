package io.cognitionstreams.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;

import org.junit.jupiter.api.Test;

import io.cognitionstreams.schema.AnswerDelta;
import io.cognitionstreams.schema.DeltaKind;
import io.cognitionstreams.schema.Marker;
import io.cognitionstreams.testing.Records;

/** What `cognition tail --follow` prints as deltas arrive. */
class DeltaFollowerTest {

    private final StringWriter printed = new StringWriter();
    private final DeltaFollower follower = new DeltaFollower(new PrintWriter(printed));

    @Test
    void oneAnswersTextGrowsOnOneLineAndEndsWithIt() {
        follower.accept(text("s1", "p1", "call", 0, "#1", "Hello, "));
        follower.accept(text("s1", "p1", "call", 1, "#1", "world."));
        follower.accept(end("s1", "p1", "call", 2, DeltaKind.DONE, ""));

        assertThat(printed.toString()).isEqualTo("s1  p1-out#1  Hello, world.\n");
    }

    @Test
    void interleavedSessionsGapsRestartsAndAbandonedAnswersAreSaid() {
        follower.accept(text("s1", "p1", "a", 0, "#0", "first "));
        follower.accept(text("s2", "p2", "b", 0, "#1", "other"));
        follower.accept(text("s1", "p1", "a", 2, "#0", "third"));
        follower.accept(text("s1", "p1", "again", 0, "#0", "anew"));
        follower.accept(end("s2", "p2", "b", 1, DeltaKind.ABANDONED, "HTTP 503"));
        follower.accept(end("s1", "p1", "again", 1, DeltaKind.UNKNOWN, "from a newer writer"));

        assertThat(printed.toString()).isEqualTo(String.join("\n",
                "s1  p1-out#0  first ",
                "s2  p2-out#1  other",
                "s1  p1-out  [1 deltas lost]",
                "s1  p1-out#0  third",
                "s1  p1-out  [started over by another model call; what it said before does not count]",
                "s1  p1-out#0  anew",
                "s2  p2-out  [abandoned: HTTP 503]",
                ""));
    }

    private static AnswerDelta text(String session, String packet, String call, int sequence, String block,
                                    String text) {
        return delta(session, packet, call, sequence, DeltaKind.TEXT, text).setBlockId(packet + "-out" + block)
                .setMarker(Marker.RESPONSE).build();
    }

    private static AnswerDelta end(String session, String packet, String call, int sequence, DeltaKind kind,
                                   String text) {
        return delta(session, packet, call, sequence, kind, text).build();
    }

    private static AnswerDelta.Builder delta(String session, String packet, String call, int sequence,
                                             DeltaKind kind, String text) {
        return AnswerDelta.newBuilder().setSessionId(session).setOutputId(packet + "-out").setPacketId(packet)
                .setRequestId(session + "-r1").setCallId(call).setSequence(sequence).setKind(kind)
                .setChannel("cli_chat").setText(text).setTimestamp(Records.T0);
    }
}
