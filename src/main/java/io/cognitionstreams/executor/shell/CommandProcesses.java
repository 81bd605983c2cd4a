package io.cognitionstreams.executor.shell;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The processes of one command, read from Linux's /proc: every process in the session its launcher leads (setsid
 * makes the launcher a session leader, so the shell, its jobs, their children and any process group they make are
 * in it) and every descendant of those, which catches a child that started a session of its own while its parent
 * still runs. A process that leaves the session and loses its parent before it is looked for is not found; the
 * bubblewrap sandbox leaves no such way out (docs/executor-shell.md).
 */
final class CommandProcesses {

    /** How long SIGKILLed processes get to disappear; only a process stuck in the kernel takes longer. */
    private static final Duration KILL_WAIT = Duration.ofSeconds(5);
    private static final long PAUSE_MILLIS = 20;
    private static final Path PROC = Path.of("/proc");

    /** The fields of /proc/PID/stat that say where a process belongs. */
    private record Stat(long pid, char state, long parent, long session) {

        boolean zombie() {
            return state == 'Z';
        }
    }

    private final long leader;

    CommandProcesses(long leader) {
        this.leader = leader;
    }

    /**
     * Ends every process of the command: SIGTERM, up to {@code grace} for them to exit, then SIGKILL until none is
     * left (bounded by {@link #KILL_WAIT}). Processes forked meanwhile are found on the next look. An interrupt
     * does not cut this short (that would leave processes behind); the thread's interrupt flag is kept.
     *
     * @return how many processes were signalled
     */
    int terminate(Duration grace) {
        Set<Long> signalled = new HashSet<>();
        boolean interrupted = false;
        List<ProcessHandle> live = live();
        long termEnd = System.nanoTime() + grace.toNanos();
        while (!live.isEmpty() && System.nanoTime() - termEnd < 0) {
            for (ProcessHandle process : live) {
                if (signalled.add(process.pid())) {
                    process.destroy();
                }
            }
            interrupted |= pause();
            live = live();
        }
        long killEnd = System.nanoTime() + KILL_WAIT.toNanos();
        while (!live.isEmpty() && System.nanoTime() - killEnd < 0) {
            for (ProcessHandle process : live) {
                signalled.add(process.pid());
                process.destroyForcibly();
            }
            interrupted |= pause();
            live = live();
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        return signalled.size();
    }

    /**
     * The command's processes that still run (zombies are dead already: they wait for whoever adopted them to reap
     * them). A handle is taken before the process is checked a second time, so a pid reused in between is never
     * signalled: {@link ProcessHandle#destroy()} refuses a process that started after its handle was taken.
     */
    List<ProcessHandle> live() {
        Map<Long, Stat> all = new HashMap<>();
        for (long pid : pids()) {
            read(pid).ifPresent(stat -> all.put(pid, stat));
        }
        Map<Long, List<Long>> children = new HashMap<>();
        ArrayDeque<Long> toVisit = new ArrayDeque<>();
        for (Stat stat : all.values()) {
            children.computeIfAbsent(stat.parent(), parent -> new ArrayList<>()).add(stat.pid());
            if (stat.session() == leader) {
                toVisit.add(stat.pid());
            }
        }
        Set<Long> members = new HashSet<>();
        while (!toVisit.isEmpty()) {
            long pid = toVisit.poll();
            if (members.add(pid)) {
                toVisit.addAll(children.getOrDefault(pid, List.of()));
            }
        }
        long self = ProcessHandle.current().pid();
        List<ProcessHandle> live = new ArrayList<>();
        for (long pid : members) {
            Stat seen = all.get(pid);
            if (pid <= 1 || pid == self || seen.zombie()) {
                continue;
            }
            Optional<ProcessHandle> handle = ProcessHandle.of(pid);
            Optional<Stat> now = read(pid);
            if (handle.isPresent() && now.isPresent() && !now.get().zombie()
                    && now.get().parent() == seen.parent() && now.get().session() == seen.session()) {
                live.add(handle.get());
            }
        }
        return live;
    }

    private static List<Long> pids() {
        List<Long> pids = new ArrayList<>();
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(PROC)) {
            for (Path entry : entries) {
                String name = entry.getFileName().toString();
                if (!name.isEmpty() && name.chars().allMatch(Character::isDigit)) {
                    pids.add(Long.parseLong(name));
                }
            }
        } catch (IOException e) {
            throw new IllegalStateException("cannot list " + PROC + ": the shell runner needs Linux's /proc", e);
        }
        return pids;
    }

    /** Empty when the process is gone. The name in parentheses may hold anything, so fields count from its end. */
    private static Optional<Stat> read(long pid) {
        String text;
        try {
            text = new String(Files.readAllBytes(PROC.resolve(Long.toString(pid)).resolve("stat")),
                    StandardCharsets.UTF_8);
        } catch (IOException e) {
            return Optional.empty();
        }
        String[] fields = text.substring(text.lastIndexOf(')') + 2).split(" ");
        return Optional.of(new Stat(pid, fields[0].charAt(0), Long.parseLong(fields[1]), Long.parseLong(fields[3])));
    }

    /** A short sleep that an interrupt does not end early; says whether one came. */
    private static boolean pause() {
        try {
            Thread.sleep(PAUSE_MILLIS);
            return false;
        } catch (InterruptedException e) {
            return true;
        }
    }
}
