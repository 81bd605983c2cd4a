package io.cognitionstreams.routing;

import java.time.Instant;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;

import io.cognitionstreams.redaction.StreamingRedactor;
import io.cognitionstreams.schema.AnswerDelta;
import io.cognitionstreams.schema.DeltaKind;
import io.cognitionstreams.schema.Marker;
import io.cognitionstreams.topics.Channel;
import io.cognitionstreams.topics.Lineage;

/**
 * One model call's answer previewed as it is written: the text of its RESPONSE blocks, redacted as it arrives, as
 * {@link AnswerDelta}s for each streamed chat channel the destination matrix sends RESPONSE to, numbered per channel.
 * Blocks are found with routing's own marker rules ({@link MarkerStream}) and scrubbed with its redactor a piece at a
 * time ({@link StreamingRedactor}), so a block's deltas put together are the text its RoutedBlock will hold. An
 * answer with no marker at all is UNMARKED, which the matrix treats as a response but which is only known at its
 * end: its text is sent whole then. An answer that routing will refuse (over its size or block limits) is abandoned
 * as soon as that is certain, which also bounds what is held. Thread-safe: pieces arrive on the model client's
 * thread, {@link #drain} runs on a timer.
 */
public final class ResponsePreview {

    /** The lineage every delta of one model call carries. */
    public record Answer(String sessionId, String packetId, String requestId, String callId) {
        public String outputId() {
            return Lineage.outputId(packetId);
        }
    }

    private sealed interface Ready permits Text, End {
    }

    private record Text(String blockId, Marker marker, Set<Channel> channels, StringBuilder text) implements Ready {
    }

    private record End(DeltaKind kind, String reason) implements Ready {
    }

    private final OutputRouter router;
    private final Answer answer;
    private final Supplier<Instant> clock;
    private final MarkerStream markers;
    private final List<Ready> ready = new ArrayList<>();
    private final Map<Channel, Integer> sequences = new EnumMap<>(Channel.class);

    // Every block so far, in output order: its marker once known, whether it is closed and whether it has text.
    private final List<Marker> blocks = new ArrayList<>();
    private final BitSet closed = new BitSet();
    private final BitSet hasText = new BitSet();
    private int evaluated;
    private int kept;
    private boolean afterEmptyInterrupt;
    private long records = OutputRouter.RECORDS_BESIDE_BLOCKS;

    // The block being streamed, if any.
    private int streaming = -1;
    private String streamingId;
    private Marker streamingMarker;
    private Set<Channel> streamingChannels;
    private StreamingRedactor redactor;
    private boolean started;
    private final StringBuilder blanks = new StringBuilder();
    // The text before the first marker, kept while it may turn out to be the whole (UNMARKED) answer.
    private StringBuilder lead;

    // What arrived: to refuse what routing would, and to tell the complete answer from what streamed.
    private boolean received;
    private long length;
    private int hash;
    private long bytes;
    private boolean stopped;
    private boolean ended;
    private boolean diverged;

    public ResponsePreview(OutputRouter router, Answer answer, Supplier<Instant> clock) {
        this.router = router;
        this.answer = answer;
        this.clock = clock;
        this.markers = new MarkerStream(new Blocks());
    }

    /** The next piece of the answer's text, as the model client has it. */
    public synchronized void accept(CharSequence piece) {
        if (stopped) {
            return;
        }
        received = true;
        for (int i = 0; i < piece.length(); i++) {
            char c = piece.charAt(i);
            hash = 31 * hash + c;
            bytes += c < 0x80 ? 1 : c < 0x800 || Character.isSurrogate(c) ? 2 : 3;
        }
        length += piece.length();
        if (bytes > OutputRouter.MAX_OUTPUT_BYTES) {
            stop("the answer is over " + OutputRouter.MAX_OUTPUT_BYTES + " bytes, which routing refuses");
            return;
        }
        markers.feed(piece);
    }

    /** Characters of text released but not yet drained: what a caller weighs to drain sooner. */
    public synchronized int pending() {
        int pending = 0;
        for (Ready next : ready) {
            if (next instanceof Text text) {
                pending += text.text().length();
            }
        }
        return pending;
    }

    /** Whether the preview's end (DONE or ABANDONED) waits to be drained: nothing more will be added. */
    public synchronized boolean ending() {
        return ready.stream().anyMatch(next -> next instanceof End);
    }

    /** The deltas ready since the last drain, in order: one per channel for each stretch of text, then any end. */
    public synchronized List<AnswerDelta> drain() {
        List<AnswerDelta> deltas = new ArrayList<>();
        for (Ready next : ready) {
            if (next instanceof Text text) {
                for (Channel channel : text.channels()) {
                    deltas.add(delta(channel, DeltaKind.TEXT, text.blockId(), text.marker(), text.text().toString()));
                }
            } else if (next instanceof End end) {
                // Only where text went: a reader of a channel the answer never reached has nothing to close.
                for (Channel channel : List.copyOf(sequences.keySet())) {
                    deltas.add(delta(channel, end.kind(), null, null, end.reason()));
                }
                ended = true;
            }
        }
        ready.clear();
        return deltas;
    }

    /**
     * The model has answered with {@code text}: the rest of the deltas and DONE, or ABANDONED when routing will refuse
     * the answer or it is not what streamed. A client that did not stream sends the whole text now.
     */
    public synchronized List<AnswerDelta> complete(String text) {
        if (!received) {
            accept(text);
        } else if (!stopped && (length != text.length() || hash != text.hashCode())) {
            diverged = true;
            stop("the complete answer is not the text that streamed");
        }
        if (!stopped) {
            markers.finish();
            if (!stopped) {
                stopped = true;
                ready.add(new End(DeltaKind.DONE, ""));
            }
        }
        return drain();
    }

    /** The call failed: no more text comes from it. */
    public synchronized List<AnswerDelta> abandon(String reason) {
        if (!stopped) {
            stop(reason);
        }
        return drain();
    }

    /**
     * Whether the complete answer was not the text that streamed (a client that retried the call within itself
     * streamed its attempts one after the other): the preview was abandoned, and the answer is for another to send.
     */
    public synchronized boolean diverged() {
        return diverged;
    }

    /** Whether the last delta, DONE or ABANDONED, has been drained. */
    public synchronized boolean ended() {
        return ended;
    }

    private void stop(String reason) {
        stopped = true;
        ready.removeIf(next -> next instanceof Text);
        ready.add(new End(DeltaKind.ABANDONED, reason));
        lead = null;
        redactor = null;
    }

    private AnswerDelta delta(Channel channel, DeltaKind kind, String blockId, Marker marker, String text) {
        int sequence = sequences.merge(channel, 1, Integer::sum) - 1;
        return AnswerDelta.newBuilder()
                .setSessionId(answer.sessionId())
                .setOutputId(answer.outputId())
                .setPacketId(answer.packetId())
                .setRequestId(answer.requestId())
                .setCallId(answer.callId())
                .setSequence(sequence)
                .setKind(kind)
                .setBlockId(blockId)
                .setMarker(marker)
                .setChannel(channel.id())
                .setText(text)
                .setTimestamp(clock.get())
                .build();
    }

    private Set<Channel> streamedChannels(Marker marker) {
        Set<Channel> channels = EnumSet.noneOf(Channel.class);
        router.matrix().channels(marker).stream().filter(Channel::streamed).forEach(channels::add);
        return channels;
    }

    private void startStreaming(int index, Marker marker, Set<Channel> channels) {
        streaming = index;
        streamingId = Lineage.blockId(answer.outputId(), kept);
        streamingMarker = marker;
        streamingChannels = channels;
        redactor = new StreamingRedactor(router.redactor());
        started = false;
        blanks.setLength(0);
    }

    /** Text of the streamed block, without the blank space around it (routing strips it). */
    private void stream(CharSequence text) {
        StringBuilder out = new StringBuilder(text.length());
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (Character.isWhitespace(c)) {
                if (started) {
                    blanks.append(c);
                }
            } else {
                started = true;
                out.append(blanks).append(c);
                blanks.setLength(0);
            }
        }
        if (!out.isEmpty()) {
            release(redactor.append(out));
        }
    }

    private void endStreaming() {
        release(redactor.finish());
        streaming = -1;
        redactor = null;
    }

    private void release(String text) {
        if (text.isEmpty()) {
            return;
        }
        Ready last = ready.isEmpty() ? null : ready.get(ready.size() - 1);
        if (last instanceof Text open && open.blockId().equals(streamingId)) {
            open.text().append(text);
        } else {
            ready.add(new Text(streamingId, streamingMarker, streamingChannels, new StringBuilder(text)));
        }
    }

    /**
     * Counts the closed blocks in output order as routing keeps them (a nested seed closes before the block around
     * it, which comes first), and stops once the answer has more than routing takes.
     */
    private void evaluate() {
        while (evaluated < blocks.size() && closed.get(evaluated)) {
            Marker marker = blocks.get(evaluated);
            boolean empty = !hasText.get(evaluated);
            if (MarkerParser.kept(marker, empty, afterEmptyInterrupt)) {
                kept++;
                records += router.matrix().channels(marker).size();
                afterEmptyInterrupt = MarkerParser.isEmptyInterrupt(marker, empty);
            }
            evaluated++;
        }
        RoutingLimits limits = router.limits();
        if (kept > limits.maxBlocks()) {
            stop("the answer has more than " + limits.maxBlocks() + " blocks, which routing refuses");
        } else if (records > limits.maxRecords()) {
            stop("the answer would become more than " + limits.maxRecords() + " records, which routing refuses");
        }
    }

    private final class Blocks implements MarkerStream.Listener {

        @Override
        public void open(int index, Marker marker, boolean nested) {
            if (stopped) {
                return;
            }
            blocks.add(marker);
            if (marker == null) {
                lead = streamedChannels(Marker.UNMARKED).isEmpty() ? null : new StringBuilder();
            } else if (marker == Marker.RESPONSE && !nested) {
                Set<Channel> channels = streamedChannels(Marker.RESPONSE);
                if (!channels.isEmpty()) {
                    // Every block before it has closed: kept counts those routing keeps, its position.
                    startStreaming(index, marker, channels);
                }
            }
        }

        @Override
        public void text(int index, CharSequence text) {
            if (stopped) {
                return;
            }
            if (!hasText.get(index) && !text.toString().isBlank()) {
                hasText.set(index);
            }
            if (index == streaming) {
                stream(text);
            } else if (index == 0 && lead != null) {
                lead.append(text);
            }
        }

        @Override
        public void close(int index, Marker marker) {
            if (stopped) {
                return;
            }
            blocks.set(index, marker);
            closed.set(index);
            if (index == streaming) {
                endStreaming();
            } else if (index == 0 && lead != null) {
                if (marker == Marker.UNMARKED && hasText.get(0)) {
                    startStreaming(0, marker, streamedChannels(Marker.UNMARKED));
                    stream(lead);
                    endStreaming();
                }
                lead = null;
            }
            evaluate();
        }
    }
}
