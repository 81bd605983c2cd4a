package io.cognitionstreams.deadletter;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

import io.cognitionstreams.schema.DeadLetter;

/** The cut sizes schemas/DeadLetter.avsc promises a reader of the topic are the ones {@link DeadLetters} keeps. */
class DeadLetterSchemaDocTest {

    private static final Pattern CUT = Pattern.compile("cut at (\\d+) KiB");

    @Test
    void theSchemaStatesTheCutSizesTheCodeKeeps() {
        assertThat(documentedCut("key")).isEqualTo(DeadLetters.MAX_KEPT_KEY_BYTES);
        assertThat(documentedCut("value")).isEqualTo(DeadLetters.MAX_KEPT_BYTES);
    }

    private static int documentedCut(String field) {
        String doc = DeadLetter.getClassSchema().getField(field).doc();
        Matcher cut = CUT.matcher(doc);
        assertThat(cut.find()).as("%s's doc names its cut: %s", field, doc).isTrue();
        return Integer.parseInt(cut.group(1)) * 1024;
    }
}
