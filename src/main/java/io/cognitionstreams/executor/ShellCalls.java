package io.cognitionstreams.executor;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.cognitionstreams.executor.shell.ShellOutcome;
import io.cognitionstreams.executor.shell.ShellRunner;
import io.cognitionstreams.schema.ToolStatus;

/**
 * Approved {@code shell.run} calls on the {@link ShellRunner}: what a command did becomes an {@link Outcome} a model
 * can read. Exit status 0 is success, any other a failure whose output is still shown, since a failing command's
 * stderr is usually the most useful thing the model can see next.
 */
public final class ShellCalls implements ToolExecution.ShellTool {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final ShellRunner runner;

    public ShellCalls(ShellRunner runner) {
        this.runner = runner;
    }

    @Override
    public Outcome run(String sessionId, String command) {
        ShellOutcome outcome;
        try {
            outcome = runner.run(sessionId, command);
        } catch (IllegalArgumentException e) {
            return Outcome.notRun("not run: " + e.getMessage());
        } catch (InterruptedException e) {
            // The runner killed the command before it gave up: it ran for a while, so its effect is unknown.
            Thread.currentThread().interrupt();
            return Outcome.unknown("the executor stopped while the command ran; it was killed and may have taken "
                    + "part effect", 0);
        }
        String text = text(outcome);
        String facts = facts(outcome);
        if (outcome.timedOut()) {
            return new Outcome(ToolStatus.TIMED_OUT, text, facts, "timed out after "
                    + outcome.durationMs() + " ms: every process of the command was killed", outcome.durationMs());
        }
        if (outcome.exitCode() == 0) {
            return new Outcome(ToolStatus.SUCCEEDED, text, facts, null,
                    outcome.durationMs());
        }
        return new Outcome(ToolStatus.FAILED, text, facts, "exit status "
                + outcome.exitCode(), outcome.durationMs());
    }

    /** stdout, then stderr under its own heading when there is any. */
    static String text(ShellOutcome outcome) {
        if (outcome.stderr().isEmpty()) {
            return outcome.stdout();
        }
        String out = outcome.stdout().isEmpty() || outcome.stdout().endsWith("\n") ? outcome.stdout()
                : outcome.stdout() + "\n";
        return out + "[stderr]\n" + outcome.stderr();
    }

    /** The numbers behind the text, for an agent that reads the result's JSON rather than its words. */
    private static String facts(ShellOutcome outcome) {
        ObjectNode facts = JSON.createObjectNode();
        if (outcome.exitCode() == null) {
            facts.putNull("exit_code");
        } else {
            facts.put("exit_code", outcome.exitCode());
        }
        facts.put("timed_out", outcome.timedOut());
        facts.put("stdout_hidden_bytes", outcome.stdoutHiddenBytes());
        facts.put("stderr_hidden_bytes", outcome.stderrHiddenBytes());
        facts.put("processes_killed", outcome.processesKilled());
        return facts.toString();
    }
}
