package io.cognitionstreams.cli;

import java.time.Duration;

import io.cognitionstreams.assembly.SessionBudgets;
import picocli.CommandLine.Option;

/**
 * What a session may spend before it stops continuing on its own after tool results (auto-continue). A request an
 * agent sends is still answered: the budgets stop the loop, not the agent (docs/model.md, "Budgets").
 */
final class BudgetOptions {

    @Option(names = "--session-token-budget", paramLabel = "N", defaultValue = "0",
            description = "Tokens (in and out, from each answer's usage) a session may spend before it no longer "
                    + "continues on its own; the council is told once, with the figures. 0: no budget "
                    + "(default: ${DEFAULT-VALUE}).")
    long tokens;

    @Option(names = "--session-call-budget", paramLabel = "N", defaultValue = "0",
            description = "Model calls a session may make before it no longer continues on its own. 0: no budget "
                    + "(default: ${DEFAULT-VALUE}).")
    long calls;

    @Option(names = "--session-time-budget", paramLabel = "DURATION", defaultValue = "0s",
            description = "Model time (each answer's latency, queueing included) a session may spend before it no "
                    + "longer continues on its own, e.g. 10m. 0s: no budget (default: ${DEFAULT-VALUE}).")
    Duration time;

    SessionBudgets budgets() {
        return new SessionBudgets(tokens, calls, time);
    }
}
