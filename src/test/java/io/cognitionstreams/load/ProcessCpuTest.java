package io.cognitionstreams.load;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;

import org.junit.jupiter.api.Test;

class ProcessCpuTest {

    @Test
    void readsUserAndSystemTicksAfterTheThreadsName() {
        // A name may hold spaces and parentheses: the fields are counted from the last ')'.
        String stat = "4242 (C2 Compiler) (x)) R 1 4242 1 0 -1 4194368 14369 1429 0 3 769 17 0 0 20 0 1 0 1234";

        assertThat(ProcessCpu.ticks(stat)).isEqualTo(769 + 17);
    }

    @Test
    void tellsCompilerThreadsByHotSpotsNames() {
        assertThat(ProcessCpu.compiler("C2 CompilerThre\n")).isTrue();
        assertThat(ProcessCpu.compiler("C1 CompilerThre\n")).isTrue();
        assertThat(ProcessCpu.compiler("GC Thread#0\n")).isFalse();
        assertThat(ProcessCpu.compiler("bench-assembly-\n")).isFalse();
    }

    @Test
    void countsEachCompilerThreadSinceTheEarlierReadingAndNothingOfOneGoneSince() {
        ProcessCpu.Compilers before = new ProcessCpu.Compilers(Map.of("11", 500L, "12", 300L, "13", 40L));
        // 12 ended (its time went with it), 14 started since.
        ProcessCpu.Compilers after = new ProcessCpu.Compilers(Map.of("11", 650L, "13", 40L, "14", 25L));

        assertThat(after.nanosSince(before)).isEqualTo((150L + 25L) * 10_000_000L);
    }

    /** An id Linux handed to a new compiler thread after the one that had it ended: all the new one's time counts. */
    @Test
    void countsAReusedThreadIdFromNothing() {
        ProcessCpu.Compilers before = new ProcessCpu.Compilers(Map.of("11", 500L));

        assertThat(new ProcessCpu.Compilers(Map.of("11", 30L)).nanosSince(before)).isEqualTo(30L * 10_000_000L);
    }

    /** This JVM compiles on threads of its own: their CPU only grows, in whole 10 ms ticks. */
    @Test
    void readsThisJvmsCompilerThreadsFromProc() {
        assumeTrue(Files.isDirectory(Path.of("/proc/self/task")), "needs Linux's /proc");
        Optional<ProcessCpu.Compilers> first = ProcessCpu.compilers();

        assertThat(first).isPresent();
        assertThat(first.get().ticks()).isNotEmpty();
        assertThat(ProcessCpu.compilers().get().nanosSince(first.get())).isNotNegative()
                .matches(nanos -> nanos % 10_000_000L == 0, "whole ticks");
    }
}
