package io.cognitionstreams.executor.shell;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import io.cognitionstreams.executor.shell.ShellSettings.Isolation;

/** What the shell runner's tests share: settings, a worker environment, and looks at the machine's processes. */
final class ShellProcesses {

    private ShellProcesses() {
    }

    static ShellSettings settings(Path root, Duration timeout, int maxBytes, Isolation isolation) {
        return new ShellSettings(root, timeout, maxBytes, ShellSettings.DEFAULT_ENV_ALLOW_LIST, isolation,
                Duration.ofMillis(300));
    }

    /** The worker's environment as the tests pretend it is: the real PATH, and secrets that must not pass. */
    static Map<String, String> workerEnvironment() {
        return Map.of("PATH", System.getenv("PATH"), "LANG", "C.UTF-8", "HOME", "/root",
                "AWS_SECRET_ACCESS_KEY", "aws-secret-value", "OPENAI_API_KEY", "sk-openai-value",
                "PGPASSWORD", "pg-password-value");
    }

    /** A process runs while /proc has it and it is not a zombie (dead, waiting for its adopter to reap it). */
    static boolean running(long pid) {
        try {
            String stat = new String(Files.readAllBytes(Path.of("/proc", Long.toString(pid), "stat")),
                    StandardCharsets.ISO_8859_1);
            return stat.charAt(stat.lastIndexOf(')') + 2) != 'Z';
        } catch (IOException e) {
            return false;
        }
    }

    /** Running processes whose command line is exactly {@code argv}. */
    static List<Long> runningWithCommandLine(String... argv) throws IOException {
        byte[] wanted = (String.join("\0", argv) + "\0").getBytes(StandardCharsets.UTF_8);
        List<Long> found = new ArrayList<>();
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(Path.of("/proc"), "[0-9]*")) {
            for (Path entry : entries) {
                long pid = Long.parseLong(entry.getFileName().toString());
                try {
                    if (Arrays.equals(Files.readAllBytes(entry.resolve("cmdline")), wanted)
                            && running(pid)) {
                        found.add(pid);
                    }
                } catch (IOException gone) {
                    // ended while we looked
                }
            }
        }
        return found;
    }

    static List<Long> pids(Path file) throws IOException {
        return Files.readAllLines(file).stream().map(String::strip).map(Long::parseLong).toList();
    }
}
