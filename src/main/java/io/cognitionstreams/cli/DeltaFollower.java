package io.cognitionstreams.cli;

import java.io.PrintWriter;
import java.util.HashMap;
import java.util.Map;

import io.cognitionstreams.schema.AnswerDelta;
import io.cognitionstreams.schema.DeltaKind;

/**
 * What `cognition tail --follow` prints of a stream topic: each answer's text as it grows. A line starts with the
 * session and block whenever the text printed next belongs to another answer or block than the text before it (one
 * session's answer reads as plain text; interleaved sessions stay apart). A lost delta, an answer started over by
 * another call and an abandoned answer are said in brackets.
 */
final class DeltaFollower {

    /** Where one answer is: the call whose text is printed and the sequence expected next. */
    private static final class Answer {
        String callId;
        int next;
    }

    private final PrintWriter out;
    private final Map<String, Answer> answers = new HashMap<>();
    private String printing;
    private boolean midLine;

    DeltaFollower(PrintWriter out) {
        this.out = out;
    }

    void accept(AnswerDelta delta) {
        if (delta.getKind() == DeltaKind.UNKNOWN) {
            return;
        }
        Answer answer = answers.computeIfAbsent(delta.getOutputId(), id -> new Answer());
        if (answer.callId != null && !answer.callId.equals(delta.getCallId())) {
            header(delta, "started over by another model call; what it said before does not count");
            answer.next = 0;
        }
        answer.callId = delta.getCallId();
        if (delta.getSequence() < answer.next) {
            return;
        }
        if (delta.getSequence() > answer.next) {
            header(delta, (delta.getSequence() - answer.next) + " deltas lost");
        }
        answer.next = delta.getSequence() + 1;
        switch (delta.getKind()) {
            case TEXT -> text(delta);
            case DONE -> end(delta, null);
            case ABANDONED -> end(delta, "abandoned: " + delta.getText());
            default -> {
            }
        }
        out.flush();
    }

    private void text(AnswerDelta delta) {
        String owner = delta.getSessionId() + "  " + delta.getBlockId();
        if (!owner.equals(printing)) {
            newLine();
            out.print(owner + "  ");
            printing = owner;
        }
        out.print(delta.getText());
        midLine = !delta.getText().endsWith("\n");
    }

    /** The answer is over: its line ends, with the reason when it was abandoned. */
    private void end(AnswerDelta delta, String why) {
        if (why != null) {
            header(delta, why);
        } else if (printing != null && printing.startsWith(delta.getSessionId() + "  " + delta.getOutputId())) {
            newLine();
            printing = null;
        }
        answers.remove(delta.getOutputId());
    }

    private void header(AnswerDelta delta, String what) {
        newLine();
        out.println(delta.getSessionId() + "  " + delta.getOutputId() + "  [" + what + "]");
        printing = null;
    }

    private void newLine() {
        if (midLine) {
            out.println();
            midLine = false;
        }
    }
}
