package io.cognitionstreams.load;

import java.lang.management.ManagementFactory;
import java.util.OptionalLong;

/**
 * CPU time this process has used, on every core together. A step's share of it, per request, is what a workload
 * costs: unlike answers a second it does not depend on whether the step kept up, so two workloads compare even where
 * one of them builds a backlog.
 */
public final class ProcessCpu {

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
}
