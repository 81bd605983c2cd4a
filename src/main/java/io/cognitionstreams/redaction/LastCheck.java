package io.cognitionstreams.redaction;

import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

import io.cognitionstreams.schema.RoutedBlock;
import io.cognitionstreams.topology.ChannelCheck;

/**
 * Defence in depth on the way out: every channel record is scanned once more, with the same redactor, just before
 * its topic. A block built by the pipeline's own redaction comes through clean; what is found here got past it (a
 * block that reached a channel by another path, or a gap between two stages), so it is redacted now, added to the
 * block's counts, and reported by the caller, never written in clear.
 *
 * <p>A block goes to several channels as consecutive records with the same text, so each thread remembers its last
 * text and what the scan found in it: one scan per block, not one per channel. Thread-safe.
 */
public final class LastCheck implements ChannelCheck {

    private final Redactor redactor;
    private final ThreadLocal<Scanned> last = new ThreadLocal<>();

    private record Scanned(String text, Redaction found) {
    }

    public LastCheck(Redactor redactor) {
        this.redactor = Objects.requireNonNull(redactor, "redactor");
    }

    @Override
    public Optional<Residue> residue(RoutedBlock block) {
        Redaction again = scan(block.getText());
        if (again.total() == 0) {
            return Optional.empty();
        }
        Map<String, Integer> counts = new HashMap<>(block.getRedactions() == null ? Map.of() : block.getRedactions());
        again.counts().forEach((type, count) -> counts.merge(type, count, Integer::sum));
        return Optional.of(new Residue(RoutedBlock.newBuilder(block).setText(again.text()).setRedactions(counts)
                .build(), again.counts()));
    }

    private Redaction scan(String text) {
        Scanned scanned = last.get();
        if (scanned == null || !scanned.text().equals(text)) {
            scanned = new Scanned(text, redactor.redact(text));
            last.set(scanned);
        }
        return scanned.found();
    }
}
