package io.cognitionstreams.app;

import java.lang.management.ManagementFactory;

import com.sun.management.HotSpotDiagnosticMXBean;
import com.sun.management.VMOption;

/**
 * What the app does about an error no thread can recover from in place: an {@link OutOfMemoryError} ends the
 * process, so that a supervisor starts it again. Replacing a stream thread that died of one only moves the
 * shortage (the new thread may find RocksDB still locked by the dead one's stores), and the embedded broker's
 * threads log it and go on: the process would stay up answering nothing. The launcher and the image run the JVM
 * with {@code -XX:+ExitOnOutOfMemoryError}, which ends it at the first one wherever it is thrown; this is the same
 * for the app's own threads when the JVM was started without it.
 */
public final class FatalErrors {

    /** The JVM's own exit code under {@code -XX:+ExitOnOutOfMemoryError}, used alike when the app ends it. */
    public static final int OUT_OF_MEMORY_EXIT = 3;

    private FatalErrors() {
    }

    /** Whether {@code error} or one of its causes is an {@link OutOfMemoryError}. */
    public static boolean outOfMemory(Throwable error) {
        for (Throwable cause = error; cause != null; cause = cause.getCause()) {
            if (cause instanceof OutOfMemoryError) {
                return true;
            }
            if (cause.getCause() == cause) {
                break;
            }
        }
        return false;
    }

    /** Whether this JVM ends itself at the first OutOfMemoryError (Exit- or CrashOnOutOfMemoryError). */
    public static boolean jvmEndsOnOutOfMemory() {
        try {
            HotSpotDiagnosticMXBean hotSpot = ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
            return isOn(hotSpot.getVMOption("ExitOnOutOfMemoryError"))
                    || isOn(hotSpot.getVMOption("CrashOnOutOfMemoryError"));
        } catch (RuntimeException e) {
            // Not HotSpot: nothing to tell.
            return true;
        }
    }

    private static boolean isOn(VMOption option) {
        return Boolean.parseBoolean(option.getValue());
    }

    /**
     * Ends the process now with {@link #OUT_OF_MEMORY_EXIT}, after one line on standard error: no shutdown hook, as
     * a clean close needs memory and threads the shortage may have taken (it took 30 s, then left the state stores
     * locked). Exactly-once makes that safe: what was not committed is done again after the restart.
     */
    public static void haltOnOutOfMemory(String where, Throwable error) {
        System.err.println("cognition: out of memory in " + where + " (" + error + "): ending the process (exit "
                + OUT_OF_MEMORY_EXIT + ") so that it is started again; give it more heap with COGNITION_JAVA_OPTS "
                + "(docs/operations.md)");
        System.err.flush();
        Runtime.getRuntime().halt(OUT_OF_MEMORY_EXIT);
    }
}
