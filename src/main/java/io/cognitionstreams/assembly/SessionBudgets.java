package io.cognitionstreams.assembly;

import java.time.Duration;
import java.util.Optional;

import io.cognitionstreams.schema.SessionUsage;

/**
 * What a session may spend before it stops continuing on its own after tool results: tokens (in and out together),
 * model calls, and model wall time. A budget of 0 is none. A budget is spent once usage reaches it: the session's
 * next automatic turn is not asked for, and the council is told once. A request an agent sends is still answered,
 * however much the session has spent: the budget stops the loop, not the people and agents driving it
 * (docs/model.md, "Budgets").
 */
public record SessionBudgets(long tokens, long calls, Duration time) {

    public static final SessionBudgets NONE = new SessionBudgets(0, 0, Duration.ZERO);

    public SessionBudgets {
        if (tokens < 0 || calls < 0 || time.isNegative()) {
            throw new IllegalArgumentException("session budgets must not be negative: " + tokens + " tokens, "
                    + calls + " calls, " + time);
        }
    }

    /** The first budget {@code usage} has spent, with the figures, or empty while within them all. */
    public Optional<String> spent(SessionUsage usage) {
        long tokensUsed = usage.getPromptTokens() + usage.getCompletionTokens();
        if (tokens > 0 && tokensUsed >= tokens) {
            return Optional.of(String.format("its token budget of %,d (--session-token-budget): %,d tokens used",
                    tokens, tokensUsed));
        }
        if (calls > 0 && usage.getModelCalls() >= calls) {
            return Optional.of(String.format("its call budget of %,d (--session-call-budget): %,d model calls made",
                    calls, usage.getModelCalls()));
        }
        if (!time.isZero() && usage.getModelTimeMs() >= time.toMillis()) {
            return Optional.of(String.format("its time budget of %s (--session-time-budget): %s of model time",
                    human(time), human(Duration.ofMillis(usage.getModelTimeMs()))));
        }
        return Optional.empty();
    }

    /** {@code usage} with these budgets as the ones in force. */
    SessionUsage.Builder applyTo(SessionUsage.Builder usage) {
        return usage.setTokenBudget(tokens > 0 ? tokens : null)
                .setCallBudget(calls > 0 ? calls : null)
                .setTimeBudgetMs(time.isZero() ? null : time.toMillis());
    }

    /** Usage in one line: what an escalation and `cognition session show` say. */
    public static String figures(SessionUsage usage) {
        return String.format("%,d tokens (%,d in, %,d out), %,d model call%s, %s of model time",
                usage.getPromptTokens() + usage.getCompletionTokens(), usage.getPromptTokens(),
                usage.getCompletionTokens(), usage.getModelCalls(), usage.getModelCalls() == 1 ? "" : "s",
                human(Duration.ofMillis(usage.getModelTimeMs())));
    }

    public static String human(Duration duration) {
        long seconds = duration.toSeconds();
        if (seconds < 60) {
            return String.format("%.1fs", duration.toMillis() / 1000.0);
        }
        return seconds < 3600 ? String.format("%dm%02ds", seconds / 60, seconds % 60)
                : String.format("%dh%02dm", seconds / 3600, seconds % 3600 / 60);
    }
}
