package io.cognitionstreams.testing;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.cognitionstreams.cli.CognitionCli;

/** Runs the `cognition` command, in-process or as the launcher does, and keeps what it printed. */
public record Cli(int exitCode, String out, String err) {

    /**
     * {@code CognitionCli.execute}, which {@code main} calls before it exits, on real buffered standard streams (files,
     * as a shell's redirection would be), read back after it returns: what a command prints but does not flush is
     * missing here as it would be in a terminal.
     */
    public static Cli run(String... args) {
        PrintStream stdout = System.out;
        PrintStream stderr = System.err;
        try {
            Path out = Files.createTempFile("cognition-stdout", ".txt");
            Path err = Files.createTempFile("cognition-stderr", ".txt");
            int code;
            try (PrintStream outStream = new PrintStream(new BufferedOutputStream(Files.newOutputStream(out)), false,
                    StandardCharsets.UTF_8);
                 PrintStream errStream = new PrintStream(new BufferedOutputStream(Files.newOutputStream(err)), false,
                         StandardCharsets.UTF_8)) {
                System.setOut(outStream);
                System.setErr(errStream);
                code = CognitionCli.execute(args);
                // Read what reached the files by now, before close() flushes what the command left buffered.
                Cli ran = new Cli(code, Files.readString(out, StandardCharsets.UTF_8),
                        Files.readString(err, StandardCharsets.UTF_8));
                System.setOut(stdout);
                System.setErr(stderr);
                return ran;
            } finally {
                Files.deleteIfExists(out);
                Files.deleteIfExists(err);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } finally {
            System.setOut(stdout);
            System.setErr(stderr);
        }
    }

    /**
     * {@code CognitionCli.main} in a child JVM, so what reaches stdout before {@code System.exit} and the exit code
     * are the ones a shell sees. Output goes to files: a pipe left unread could fill and stall the child.
     */
    public static Cli launch(Path workDir, String... args) throws IOException, InterruptedException {
        Path out = Files.createTempFile(workDir, "stdout", ".txt");
        Path err = Files.createTempFile(workDir, "stderr", ".txt");
        Process process = start(out, err, args);
        if (!process.waitFor(5, TimeUnit.MINUTES)) {
            process.destroyForcibly();
            throw new IllegalStateException("cognition " + String.join(" ", args) + " did not exit");
        }
        return new Cli(process.exitValue(), Files.readString(out, StandardCharsets.UTF_8),
                Files.readString(err, StandardCharsets.UTF_8));
    }

    /**
     * {@code CognitionCli.main} in a child JVM that keeps running, for a command that runs until it is stopped
     * (`run`): {@code destroy()} is Ctrl-C's SIGTERM, which runs its shutdown hook.
     */
    public static Process start(Path out, Path err, String... args) throws IOException {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java")
                .toString(), "-cp", System.getProperty("java.class.path"), CognitionCli.class.getName()));
        command.addAll(List.of(args));
        return new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
    }

    /** Waits until a {@link #start}ed `run` says it is running, or fails with what it printed on stderr. */
    public static void awaitRunning(Process app, Path err) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(3);
        while (!Files.readString(err, StandardCharsets.UTF_8).contains("cognition streams running")) {
            if (!app.isAlive() || System.nanoTime() > deadline) {
                throw new AssertionError("the app did not start; its stderr:\n"
                        + Files.readString(err, StandardCharsets.UTF_8));
            }
            Thread.sleep(200);
        }
    }

    /** A port free now, for a `run`'s broker. */
    public static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
