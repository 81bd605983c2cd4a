package io.cognitionstreams.load;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.OptionalLong;

/** The process's peak resident set size, as the kernel counts it (VmHWM), where the kernel reports it. */
public final class PeakMemory {

    private PeakMemory() {
    }

    /** Peak RSS of this process in bytes; empty where /proc is not available (not Linux). */
    public static OptionalLong residentBytes() {
        return residentBytes(Path.of("/proc/self/status"));
    }

    /** Peak RSS of process {@code pid} in bytes, as for {@link #residentBytes()}. */
    public static OptionalLong residentBytes(long pid) {
        return residentBytes(Path.of("/proc", String.valueOf(pid), "status"));
    }

    private static OptionalLong residentBytes(Path status) {
        try {
            for (String line : Files.readAllLines(status)) {
                if (line.startsWith("VmHWM:")) {
                    String kib = line.substring("VmHWM:".length()).replace("kB", "").strip();
                    return OptionalLong.of(Long.parseLong(kib) * 1024);
                }
            }
        } catch (IOException | RuntimeException e) {
            // not Linux, or a format this does not know: say nothing rather than something wrong
        }
        return OptionalLong.empty();
    }
}
