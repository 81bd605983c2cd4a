package io.cognitionstreams.executor.shell;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import io.cognitionstreams.executor.shell.ShellSettings.Isolation;
import io.cognitionstreams.signing.Sha256;

/**
 * Runs approved {@code shell.run} commands: {@code /bin/sh -c COMMAND} in a working directory of the session's own,
 * with no stdin, an allow-listed environment and a wall-clock timeout, in a session of its own (setsid) so that all
 * it starts can be found and killed, inside bubblewrap where that works (docs/executor-shell.md). Linux only.
 * Thread-safe: commands of different sessions, or of the same one, may run at once.
 */
public final class ShellRunner {

    /** Linux refuses a longer single argument (MAX_ARG_STRLEN, 128 KiB with its terminating NUL). */
    public static final int MAX_COMMAND_BYTES = 128 * 1024 - 1;

    private static final String SHELL = "/bin/sh";
    private static final String FALLBACK_PATH = "/usr/local/bin:/usr/bin:/bin";
    private static final File NO_INPUT = new File("/dev/null");
    private static final Duration PROBE_TIMEOUT = Duration.ofSeconds(10);
    /** How long the output readers get once every process is gone; see {@link #finish}. */
    private static final Duration DRAIN_WAIT = Duration.ofSeconds(2);
    private static final int READ_CHUNK = 8192;
    private static final int NAME_PREFIX_CHARS = 40;
    private static final int NAME_HASH_HEX_DIGITS = 20;
    private static final FileAttribute<Set<PosixFilePermission>> OWNER_ONLY =
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------"));
    private static final String NONE = "none: own process group, per-session working directory, no stdin, "
            + "allow-listed environment";
    private static final String BUBBLEWRAP = "read-only root, read-write session directory (other sessions "
            + "hidden), private /tmp /run /proc /dev, no network, no capabilities, dies with the worker; own process "
            + "group, no stdin, allow-listed environment";

    /** How commands are wrapped: {@code bwrap} is null when they are not. */
    private record Sandbox(Path bwrap, String description) {
    }

    private final ShellSettings settings;
    private final Path root;
    private final String setsid;
    private final Map<String, String> environment = new LinkedHashMap<>();
    private final Sandbox sandbox;

    /**
     * @throws IllegalStateException when commands cannot run as the settings ask: no setsid, no /proc, the root
     *                               cannot be created, or isolation BWRAP without a working bubblewrap
     */
    public ShellRunner(ShellSettings settings) {
        this(settings, System.getenv());
    }

    /** {@code workerEnvironment} stands for the worker's environment: the PATH searched, the variables passed on. */
    ShellRunner(ShellSettings settings, Map<String, String> workerEnvironment) {
        this.settings = settings;
        if (!Files.isDirectory(Path.of("/proc/self"))) {
            throw new IllegalStateException("the shell runner needs Linux's /proc to find a command's processes");
        }
        String path = workerEnvironment.getOrDefault("PATH", FALLBACK_PATH);
        setsid = onPath("setsid", path).map(Path::toString).orElseThrow(() -> new IllegalStateException(
                "setsid (util-linux) is not on PATH " + path + ": the shell runner needs it to start each command "
                        + "in a session of its own, which it can kill as a whole"));
        try {
            root = Files.createDirectories(settings.root().toAbsolutePath()).toRealPath();
        } catch (IOException e) {
            throw new IllegalStateException("cannot create the shell root " + settings.root() + ": " + e, e);
        }
        if (root.getParent() == null) {
            throw new IllegalStateException("the shell root cannot be " + root + ": sessions get directories in it");
        }
        for (String name : settings.envAllowList()) {
            String value = workerEnvironment.get(name);
            if (value != null) {
                environment.put(name, value);
            }
        }
        sandbox = chooseSandbox(path);
    }

    /** What commands run in, for the start log: {@code bubblewrap PATH: ...} or {@code none: ...} (and why). */
    public String isolation() {
        return sandbox.description();
    }

    /**
     * Runs one command to its end, or to the timeout, and returns once every process it started is gone.
     *
     * @throws IllegalArgumentException a command no shell can be given: one with a NUL character, or longer than
     *                                  {@link #MAX_COMMAND_BYTES} in UTF-8
     * @throws UncheckedIOException     the session directory cannot be created or the process cannot start
     * @throws InterruptedException     the thread was interrupted; the command's processes are killed first
     */
    public ShellOutcome run(String sessionId, String command) throws InterruptedException {
        Objects.requireNonNull(sessionId, "sessionId");
        if (command.indexOf('\0') >= 0) {
            throw new IllegalArgumentException("the command holds a NUL character, which no process argument can");
        }
        int bytes = command.getBytes(StandardCharsets.UTF_8).length;
        if (bytes > MAX_COMMAND_BYTES) {
            throw new IllegalArgumentException("the command is " + bytes + " bytes, more than the "
                    + MAX_COMMAND_BYTES + " Linux takes in one argument");
        }
        Path workdir = workdir(sessionId);
        try {
            Files.createDirectories(workdir, OWNER_ONLY);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create the working directory of session " + sessionId, e);
        }
        return execute(sandbox, workdir, command, settings.timeout());
    }

    /**
     * The working directory of a session (created by its first command): a readable, safe part of the id (ASCII
     * letters, digits, '-' and '_', at most 40 of them), then a hash of the whole id, so that ids differing only in
     * what is replaced still get their own directory, and no id (with '/', '..', NUL, thousands of characters)
     * leads out of the root.
     */
    public Path workdir(String sessionId) {
        StringBuilder name = new StringBuilder("s_");
        for (int i = 0; i < sessionId.length() && i < NAME_PREFIX_CHARS; i++) {
            char c = sessionId.charAt(i);
            name.append(c < 128 && (Character.isLetterOrDigit(c) || c == '-' || c == '_') ? c : '_');
        }
        // UTF-16 code units: unlike UTF-8, they encode every Java string, unpaired surrogates included
        byte[] hash = Sha256.of(sessionId.getBytes(StandardCharsets.UTF_16BE));
        name.append('_').append(HexFormat.of().formatHex(hash), 0, NAME_HASH_HEX_DIGITS);
        return root.resolve(name.toString());
    }

    private Sandbox chooseSandbox(String path) {
        if (settings.isolation() == Isolation.NONE) {
            return new Sandbox(null, NONE);
        }
        Optional<Path> bwrap = onPath("bwrap", path);
        if (bwrap.isEmpty()) {
            if (settings.isolation() == Isolation.BWRAP) {
                throw new IllegalStateException("shell isolation BWRAP: bwrap is not on PATH " + path
                        + " (Debian package bubblewrap)");
            }
            return new Sandbox(null, NONE + " (bubblewrap is not on PATH)");
        }
        Sandbox candidate = new Sandbox(bwrap.get(), "bubblewrap " + bwrap.get() + ": " + BUBBLEWRAP);
        Optional<String> failure = probe(candidate);
        if (failure.isEmpty()) {
            return candidate;
        }
        if (settings.isolation() == Isolation.BWRAP) {
            throw new IllegalStateException("shell isolation BWRAP: " + bwrap.get() + " does not work here: "
                    + failure.get());
        }
        return new Sandbox(null, NONE + " (bubblewrap " + bwrap.get() + " does not work here: " + failure.get() + ")");
    }

    /** Runs a command that does nothing in the sandbox: whether namespaces and mounts work is only known by trying. */
    private Optional<String> probe(Sandbox candidate) {
        ShellOutcome outcome;
        try {
            outcome = execute(candidate, root, "exit 0", PROBE_TIMEOUT);
        } catch (UncheckedIOException e) {
            return Optional.of(e.getCause().getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while trying bubblewrap", e);
        }
        if (outcome.timedOut()) {
            return Optional.of("it did not run a command within " + PROBE_TIMEOUT.toSeconds() + " s");
        }
        if (outcome.exitCode() != 0) {
            return Optional.of("exit " + outcome.exitCode() + ", " + outcome.stderr().strip());
        }
        return Optional.empty();
    }

    private ShellOutcome execute(Sandbox wrapping, Path workdir, String command, Duration timeout)
            throws InterruptedException {
        List<String> argv = new ArrayList<>(List.of(setsid, "--wait"));
        if (wrapping.bwrap() != null) {
            String dir = workdir.toString();
            argv.addAll(List.of(wrapping.bwrap().toString(), "--unshare-all", "--die-with-parent", "--new-session",
                    "--cap-drop", "ALL", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc",
                    "--tmpfs", "/tmp", "--tmpfs", "/run", "--tmpfs", root.toString(),
                    "--bind", dir, dir, "--chdir", dir, "--"));
        }
        // "--": a command that starts with '-' is a command, not a shell option
        argv.addAll(List.of(SHELL, "-c", "--", command));
        ProcessBuilder builder = new ProcessBuilder(argv).directory(workdir.toFile()).redirectInput(NO_INPUT);
        builder.environment().clear();
        builder.environment().putAll(environment);
        builder.environment().put("HOME", workdir.toString());

        long start = System.nanoTime();
        Process process;
        try {
            process = builder.start();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start " + argv.get(0) + ": " + e.getMessage(), e);
        }
        CappedOutput stdout = new CappedOutput(settings.maxBytesPerStream());
        CappedOutput stderr = new CappedOutput(settings.maxBytesPerStream());
        Thread stdoutReader = drain(process.getInputStream(), stdout, "shell-stdout-" + process.pid());
        Thread stderrReader = drain(process.getErrorStream(), stderr, "shell-stderr-" + process.pid());
        CommandProcesses processes = new CommandProcesses(process.pid());
        boolean exited;
        try {
            exited = process.waitFor(timeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            stop(process, processes);
            throw e;
        }
        // a command's background processes never outlive it: they would hold its output open, and run on unwatched
        int killed = exited ? processes.terminate(settings.killGrace()) : stop(process, processes);
        long drainEnd = System.nanoTime() + DRAIN_WAIT.toNanos();
        finish(stdoutReader, drainEnd);
        finish(stderrReader, drainEnd);
        CappedOutput.Captured out = stdout.snapshot();
        CappedOutput.Captured err = stderr.snapshot();
        return new ShellOutcome(exited ? process.exitValue() : null, out.text(), err.text(), out.hiddenBytes(),
                err.hiddenBytes(), !exited, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start), killed);
    }

    /** Kills all of a command; its launcher too, should it not have made its session yet. */
    private int stop(Process process, CommandProcesses processes) {
        int killed = processes.terminate(settings.killGrace());
        if (process.isAlive()) {
            process.destroyForcibly();
            boolean interrupted = false;
            while (true) {
                try {
                    process.waitFor();
                    break;
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
            killed += 1 + processes.terminate(Duration.ZERO);
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
        return killed;
    }

    /**
     * Waits for a reader to reach the end of its stream, which it does at once when every writer is gone. A process
     * that left the command's session and was adopted elsewhere (only possible without bubblewrap) may hold the
     * stream open: the reader is then left to it (a daemon thread, with at most the cap in memory), and the outcome
     * has what was read so far.
     */
    private static void finish(Thread reader, long deadlineNanos) throws InterruptedException {
        long left = deadlineNanos - System.nanoTime();
        if (left > 0) {
            TimeUnit.NANOSECONDS.timedJoin(reader, left);
        }
    }

    private static Thread drain(InputStream stream, CappedOutput output, String name) {
        Thread reader = new Thread(() -> {
            byte[] buffer = new byte[READ_CHUNK];
            try (stream) {
                for (int n = stream.read(buffer); n != -1; n = stream.read(buffer)) {
                    output.write(buffer, 0, n);
                }
            } catch (IOException e) {
                // the stream broke: what was read is what the outcome shows
            }
        }, name);
        reader.setDaemon(true);
        reader.start();
        return reader;
    }

    private static Optional<Path> onPath(String program, String path) {
        for (String dir : path.split(":")) {
            if (!dir.isEmpty()) {
                Path candidate = Path.of(dir, program).toAbsolutePath();
                if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
                    return Optional.of(candidate);
                }
            }
        }
        return Optional.empty();
    }
}
