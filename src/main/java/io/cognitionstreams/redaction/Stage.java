package io.cognitionstreams.redaction;

import java.util.List;

/** One step of the pipeline: adds to {@code out} what it wants replaced in {@code text}. */
@FunctionalInterface
interface Stage {

    void scan(String text, List<Hit> out);
}
