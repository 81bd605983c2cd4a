package io.cognitionstreams.executor.shell;

/**
 * What one command did.
 *
 * @param exitCode          the shell's exit status (128 + n when it died of signal n on its own), or null when the
 *                          runner killed it at the timeout
 * @param stdout            what it wrote to stdout, as UTF-8 (malformed bytes replaced); when longer than the cap,
 *                          the head and the tail with a {@code [... N bytes hidden]} line between them
 * @param stderr            the same for stderr
 * @param stdoutHiddenBytes bytes of stdout left out of {@code stdout} (0 when it fits)
 * @param stderrHiddenBytes bytes of stderr left out of {@code stderr}
 * @param timedOut          the timeout passed before the shell exited
 * @param durationMs        wall-clock milliseconds from start until every process of the command was gone
 * @param processesKilled   processes the runner had to kill: the command's own at a timeout, and background
 *                          processes still running when the shell exited (a command's processes never outlive it)
 */
public record ShellOutcome(Integer exitCode, String stdout, String stderr, long stdoutHiddenBytes,
                           long stderrHiddenBytes, boolean timedOut, long durationMs, int processesKilled) {
}
