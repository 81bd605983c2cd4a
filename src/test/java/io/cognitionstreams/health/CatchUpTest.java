package io.cognitionstreams.health;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import java.util.Optional;

import org.junit.jupiter.api.Test;

class CatchUpTest {

    private static final long SECOND = 1_000_000_000L;

    private static Backlog assembly(long outputs, long results) {
        return new Backlog(Map.of("assembly", Map.of("llm.outputs", outputs, "tool.results", results),
                "routing", Map.of("llm.outputs", 0L), "model-worker", Map.of("cognition.packets", 3L)));
    }

    @Test
    void saysHowManyThenHowFastThenThatItIsDone() {
        CatchUp catchUp = new CatchUp();
        assertEquals(Optional.of("catching up on 600,003 records that came before the start; a new request is "
                        + "answered once the records before it are done: assembly 600,000 (llm.outputs 300,000, "
                        + "tool.results 300,000); model-worker 3 (cognition.packets 3)"),
                catchUp.observe(0, assembly(300_000, 300_000)));
        assertEquals(Optional.of("catching up: 480,003 records left, 12,000/s, about 40 s more"),
                catchUp.observe(10 * SECOND, assembly(240_000, 240_000)));
        assertEquals(Optional.of("catching up: 480,003 records left, none done since the last look: assembly "
                        + "480,000 (llm.outputs 240,000, tool.results 240,000); model-worker 3 (cognition.packets 3)"),
                catchUp.observe(20 * SECOND, assembly(240_000, 240_000)));
        assertEquals(Optional.of("caught up on the 600,003 records before the start in 50 s"),
                catchUp.observe(50 * SECOND, assembly(10, 0)));
        assertTrue(catchUp.done());
        assertEquals(Optional.empty(), catchUp.observe(60 * SECOND, assembly(300_000, 300_000)),
                "a backlog after the catch-up is the lag metrics' to show");
    }

    @Test
    void aSmallBacklogIsNotWorthALine() {
        CatchUp catchUp = new CatchUp();
        assertEquals(Optional.empty(), catchUp.observe(0, assembly(4_000, 4_000)));
        assertTrue(catchUp.done());
    }

    @Test
    void aBacklogCountsEveryGroupAndTopic() {
        assertEquals(600_003, assembly(300_000, 300_000).total());
        assertEquals("", new Backlog(Map.of("routing", Map.of("llm.outputs", 0L))).describe());
    }
}
