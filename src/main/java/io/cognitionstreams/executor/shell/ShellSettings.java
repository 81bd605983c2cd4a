package io.cognitionstreams.executor.shell;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * How approved {@code shell.run} commands run (docs/executor-shell.md).
 *
 * @param root              the directory under which each session gets its own working directory, created on demand
 * @param timeout           wall-clock limit of one command; when it passes, every process the command started is
 *                          killed and the outcome says {@code timedOut}
 * @param maxBytesPerStream bytes of stdout, and separately of stderr, that an outcome keeps: the first half and the
 *                          last half, with the count of the bytes in between
 * @param envAllowList      names of the worker's environment variables a command sees (when set); every other
 *                          variable, secrets included, is left out. {@code HOME} is always the session's directory
 * @param isolation         whether commands run inside bubblewrap
 * @param killGrace         how long the processes of a command that is being killed get between SIGTERM and SIGKILL
 */
public record ShellSettings(Path root, Duration timeout, int maxBytesPerStream, List<String> envAllowList,
                            Isolation isolation, Duration killGrace) {

    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(60);
    public static final int DEFAULT_MAX_BYTES_PER_STREAM = 64 * 1024;
    public static final List<String> DEFAULT_ENV_ALLOW_LIST = List.of("PATH", "LANG", "LC_ALL", "TZ", "TERM");
    public static final Duration DEFAULT_KILL_GRACE = Duration.ofSeconds(1);
    /** Room for one whole UTF-8 character in the kept head and one in the kept tail. */
    public static final int MIN_BYTES_PER_STREAM = 8;

    private static final Pattern ENV_NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");

    /** Where a command runs. */
    public enum Isolation {
        /** bubblewrap when it is on the PATH and works on this machine, else none; the runner says which. */
        AUTO,
        /** bubblewrap or nothing: the runner refuses to start without a working one. */
        BWRAP,
        /** no sandbox: the command runs as the worker's user (see docs/executor-shell.md for what that means). */
        NONE
    }

    public ShellSettings {
        Objects.requireNonNull(root, "root");
        Objects.requireNonNull(isolation, "isolation");
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("shell timeout " + timeout + " must be positive");
        }
        if (killGrace.isNegative()) {
            throw new IllegalArgumentException("shell kill grace " + killGrace + " is negative");
        }
        if (maxBytesPerStream < MIN_BYTES_PER_STREAM) {
            throw new IllegalArgumentException("shell output cap " + maxBytesPerStream + " bytes is below the minimum "
                    + MIN_BYTES_PER_STREAM);
        }
        envAllowList = List.copyOf(envAllowList);
        for (String name : envAllowList) {
            if (!ENV_NAME.matcher(name).matches()) {
                throw new IllegalArgumentException("'" + name + "' is not an environment variable name");
            }
            if (name.equals("HOME")) {
                throw new IllegalArgumentException("HOME cannot be allow-listed: it is always the session's directory");
            }
        }
    }

    /** Commands under {@code root}, with the default limits and environment, in bubblewrap where it works. */
    public static ShellSettings defaults(Path root) {
        return new ShellSettings(root, DEFAULT_TIMEOUT, DEFAULT_MAX_BYTES_PER_STREAM, DEFAULT_ENV_ALLOW_LIST,
                Isolation.AUTO, DEFAULT_KILL_GRACE);
    }
}
