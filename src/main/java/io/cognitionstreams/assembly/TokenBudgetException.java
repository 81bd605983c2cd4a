package io.cognitionstreams.assembly;

/**
 * Seed 003's TokenBudgetError: a field cannot be brought within its budget, so the packet is not assembled.
 * Never a silent truncation: the request goes to the error path with the counts.
 */
public class TokenBudgetException extends RuntimeException {

    private final String field;
    private final int tokens;
    private final int budget;

    public TokenBudgetException(String field, int tokens, int budget, String why) {
        super("TokenBudgetError: " + field + " needs " + tokens + " tokens, its budget is " + budget + " (" + why + ")");
        this.field = field;
        this.tokens = tokens;
        this.budget = budget;
    }

    public String field() {
        return field;
    }

    public int tokens() {
        return tokens;
    }

    public int budget() {
        return budget;
    }
}
