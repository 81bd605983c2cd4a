package io.cognitionstreams.reliability;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.cognitionstreams.cli.CognitionCli;
import io.cognitionstreams.load.PeakMemory;

/**
 * `cognition run` in a child JVM against an existing cluster, as an operator would start it, so it can be killed
 * for real: {@link #kill()} is SIGKILL (no shutdown hook, no flush, no commit), {@link #stop()} is SIGTERM.
 * Its output is appended to one log file across restarts, and when it first printed each of its {@link #MILESTONES}
 * is kept, to tell how long each step of a start took.
 */
final class ChildApp {

    /** Printed before the embedded broker starts: the JVM is up and the command parsed. */
    static final String BROKER_STARTING = "starting the embedded Kafka broker";
    /** Printed once the embedded broker answers. */
    static final String BROKER_UP = "embedded Kafka broker at";
    /** Printed once every capability is RUNNING. */
    static final String RUNNING = "cognition streams running (";
    private static final List<String> MILESTONES = List.of(BROKER_STARTING, BROKER_UP, RUNNING);

    /** How long a stop or a kill waits for the last lines of an ended child to reach the log. */
    private static final Duration LOG_DRAIN = Duration.ofSeconds(10);

    private final Process process;
    private final Path log;
    private final Thread pump;
    private final CountDownLatch running = new CountDownLatch(1);
    private final Map<String, Long> printed = new ConcurrentHashMap<>();

    private ChildApp(Process process, Path log) {
        this.process = process;
        this.log = log;
        this.pump = new Thread(() -> pump(log), "child-app-log");
        pump.setDaemon(true);
        pump.start();
    }

    /** Starts {@code cognition run --bootstrap-servers ... --application-id ... --state-dir ...} plus {@code args}. */
    static ChildApp start(String bootstrap, String applicationId, Path stateDir, Path log, String... args) {
        List<String> run = new ArrayList<>(List.of("--bootstrap-servers", bootstrap, "--application-id",
                applicationId, "--state-dir", stateDir.toString()));
        run.addAll(List.of(args));
        return run(log, run);
    }

    /**
     * Starts {@code cognition run} with exactly {@code args} from the test classpath (with no --bootstrap-servers,
     * its own broker); {@link #launch} starts it as a user does.
     */
    static ChildApp run(Path log, List<String> args) {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java")
                .toString(), "-Xmx1g"));
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), CognitionCli.class.getName(), "run"));
        command.addAll(args);
        return start(new ProcessBuilder(command), log);
    }

    /**
     * Starts {@code bin/cognition run} with {@code args}, as a user does: the launcher's JVM options and its
     * class-data archive, unless {@code javaOptions} (COGNITION_JAVA_OPTS) replace them. The launcher execs the
     * JVM, so a kill or stop reaches the app itself.
     */
    static ChildApp launch(Path log, Optional<String> javaOptions, List<String> args) {
        List<String> command = new ArrayList<>(List.of(Path.of("bin", "cognition").toAbsolutePath().toString(),
                "run"));
        command.addAll(args);
        ProcessBuilder builder = new ProcessBuilder(command);
        builder.environment().remove("COGNITION_JAVA_OPTS");
        javaOptions.ifPresent(options -> builder.environment().put("COGNITION_JAVA_OPTS", options));
        return start(builder, log);
    }

    private static ChildApp start(ProcessBuilder builder, Path log) {
        try {
            return new ChildApp(builder.redirectErrorStream(true).start(), log);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start " + builder.command().get(0), e);
        }
    }

    /** Waits until the child says every capability is running; false if it died or the time ran out first. */
    boolean awaitRunning(Duration timeout) throws InterruptedException {
        return running.await(timeout.toMillis(), TimeUnit.MILLISECONDS) && printed.containsKey(RUNNING)
                && process.isAlive();
    }

    /** Waits until every capability runs; else kills the child and fails, pointing at its log. */
    void requireRunning(Duration timeout) throws InterruptedException {
        if (!awaitRunning(timeout)) {
            kill();
            throw new IllegalStateException("the app did not start within " + timeout + "; see " + log);
        }
    }

    void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor();
        pump.join(LOG_DRAIN.toMillis());
    }

    /**
     * SIGTERM: the shutdown hook closes the app, committing what it has done. Returns once what the child wrote
     * (its stop's own lines last) is in the log. @return the exit code
     */
    int stop() throws InterruptedException {
        // Through the handle: Process.destroy() also closes our end of the child's output right after the signal,
        // and every line of its stop (it logs how each step went) was lost.
        process.toHandle().destroy();
        if (!process.waitFor(60, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            process.waitFor();
        }
        pump.join(LOG_DRAIN.toMillis());
        return process.exitValue();
    }

    /** What the children have written to {@code log} from byte {@code from} on: one start's part of it. */
    static String logSince(Path log, long from) throws IOException {
        byte[] bytes = Files.readAllBytes(log);
        int start = (int) Math.min(from, bytes.length);
        return new String(bytes, start, bytes.length - start, StandardCharsets.UTF_8);
    }

    /** A port free now on the loopback, for the child's broker and controller. */
    static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    /** When the child first printed a line containing {@code milestone}, as {@link System#nanoTime()}. */
    OptionalLong printed(String milestone) {
        Long at = printed.get(milestone);
        return at == null ? OptionalLong.empty() : OptionalLong.of(at);
    }

    boolean alive() {
        return process.isAlive();
    }

    /** The exit code of a child that has ended. */
    int exitCode() {
        return process.exitValue();
    }

    long pid() {
        return process.pid();
    }

    /** The child's peak resident memory so far (VmHWM), in MiB. */
    long peakRssMib() {
        return PeakMemory.residentBytes(process.pid()).orElseThrow() / (1024 * 1024);
    }

    private void pump(Path log) {
        try (BufferedReader lines = new BufferedReader(new InputStreamReader(process.getInputStream(),
                StandardCharsets.UTF_8));
             Writer out = Files.newBufferedWriter(log, StandardCharsets.UTF_8, StandardOpenOption.CREATE,
                     StandardOpenOption.APPEND)) {
            out.write("---- child pid " + process.pid() + "\n");
            String line;
            while ((line = lines.readLine()) != null) {
                long at = System.nanoTime();
                for (String milestone : MILESTONES) {
                    if (line.contains(milestone)) {
                        printed.putIfAbsent(milestone, at);
                    }
                }
                out.write(line);
                out.write('\n');
                // Each line at once: the runs read the log while the child runs (its start, its catch-up).
                out.flush();
                if (line.contains(RUNNING)) {
                    running.countDown();
                }
            }
        } catch (IOException e) {
            // the child was killed mid-line; its log simply ends there
        } finally {
            // Its output ended, so it never will say it runs: a wait for that ends now, not at its timeout.
            running.countDown();
        }
    }
}
