package io.cognitionstreams.load;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * CPU time this process has used, on every core together. A step's share of it, per request, is what a workload
 * costs: unlike answers a second it does not depend on whether the step kept up, so two workloads compare even where
 * one of them builds a backlog.
 *
 * <p>Part of it is the JIT compiling the code a workload runs, which ends once the JVM is warm: on two cores C2
 * took about a third of the CPU through the first two minutes of a bench (docs/benchmarks.md), more for a workload
 * that runs more code. {@link #compilers()} tells that part apart.
 */
public final class ProcessCpu {

    /** Linux's clock ticks per second in /proc's times: USER_HZ, 100 on every architecture the JDK ships for. */
    private static final long TICKS_PER_SECOND = 100;
    private static final Path TASKS = Path.of("/proc/self/task");

    private ProcessCpu() {
    }

    /** Nanoseconds of CPU this process has used so far; empty where the JVM does not tell. */
    public static OptionalLong nanos() {
        if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os) {
            long nanos = os.getProcessCpuTime();
            return nanos < 0 ? OptionalLong.empty() : OptionalLong.of(nanos);
        }
        return OptionalLong.empty();
    }

    /** The JIT's compiler threads now running and the CPU each has used so far; empty where there is no /proc. */
    public static Optional<Compilers> compilers() {
        Map<String, Long> ticks = new HashMap<>();
        try (DirectoryStream<Path> tasks = Files.newDirectoryStream(TASKS)) {
            for (Path task : tasks) {
                try {
                    if (compiler(Files.readString(task.resolve("comm"), StandardCharsets.US_ASCII))) {
                        ticks.put(task.getFileName().toString(),
                                ticks(Files.readString(task.resolve("stat"), StandardCharsets.US_ASCII)));
                    }
                } catch (IOException gone) {
                    // The thread ended between the listing and the read: nothing left to count.
                }
            }
        } catch (IOException noProc) {
            return Optional.empty();
        }
        return Optional.of(new Compilers(Map.copyOf(ticks)));
    }

    /** Clock ticks of CPU by compiler thread id, read at one moment. */
    public record Compilers(Map<String, Long> ticks) {
        /**
         * Nanoseconds of CPU the compiler threads used since {@code earlier} (in 10 ms steps). The JVM ends a compiler
         * thread that idles, and its time goes with it: across an interval this can only read low.
         */
        public long nanosSince(Compilers earlier) {
            long used = 0;
            for (Map.Entry<String, Long> thread : ticks.entrySet()) {
                long before = earlier.ticks.getOrDefault(thread.getKey(), 0L);
                // Less than before: Linux gave a new thread the id of one that ended, and all of its time is new.
                used += thread.getValue() >= before ? thread.getValue() - before : thread.getValue();
            }
            return used * (1_000_000_000L / TICKS_PER_SECOND);
        }
    }

    /** HotSpot names them "C1 CompilerThread0", "C2 CompilerThread1", which Linux cuts to 15 characters. */
    static boolean compiler(String comm) {
        return comm.contains("CompilerThre");
    }

    /** User and system time of a /proc task's stat line (its 14th and 15th fields), in clock ticks. */
    static long ticks(String stat) {
        // The name (field 2) is in parentheses and may hold spaces or parentheses itself: count from after it.
        String[] fields = stat.substring(stat.lastIndexOf(')') + 2).trim().split(" ");
        return Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
    }
}
