package io.cognitionstreams.assembly;

/**
 * The header-field limits of seed 003 section 4.1, in tokens of the target model.
 *
 * <p>The seed writes "identity &lt;= 256 tokens <em>or</em> &lt;= 6 % of MTU" and "persona &lt;= 128 <em>or</em> &lt;= 3 %
 * of what remains". Both bounds exist to protect the rest of the packet, so "or" is resolved as <b>whichever is
 * smaller</b>: at the default MTU of 4096 identity may use 245 tokens (6 %), at an MTU of 128k it is still capped at
 * 256. Reading "or" as the larger would let identity take 7,864 tokens of a 128k packet, which no rationale in the
 * seed supports.
 *
 * <p>After identity, persona and task instruction, the user prompt is reserved whole (it is never cut); of what is
 * left, the layered context gets fixed shares (skill protocol 30 %, tools index 5 %, episodic memory 5 %), the specs
 * of the tools a model calls natively at most 40 % of what the context leaves, and the history at most 60 % of what
 * is left then. The rest is headroom for the model's answer.
 */
public record FieldBudgets(int mtu) {

    public static final int IDENTITY_MAX = 256;
    public static final int IDENTITY_PERCENT_OF_MTU = 6;
    public static final int PERSONA_MAX = 128;
    public static final int PERSONA_PERCENT_OF_REMAINING = 3;
    public static final int TASK_INSTRUCTION_MAX = TaskInstructions.MAX_TOKENS;
    public static final int HISTORY_PERCENT_OF_REMAINING = 60;

    public int identity() {
        return Math.min(IDENTITY_MAX, mtu * IDENTITY_PERCENT_OF_MTU / 100);
    }

    /** @param remaining tokens left after identity */
    public static int persona(int remaining) {
        return Math.min(PERSONA_MAX, Math.max(0, remaining) * PERSONA_PERCENT_OF_REMAINING / 100);
    }

    public static final int TOOL_SPECS_PERCENT_OF_REMAINING = 40;

    /** @param remaining tokens left after the header fields, the user prompt and the layered context */
    public static int toolSpecs(int remaining) {
        return Math.max(0, remaining) * TOOL_SPECS_PERCENT_OF_REMAINING / 100;
    }

    /** @param remaining tokens left after the header fields, the user prompt, the layered context and tool specs */
    public static int history(int remaining) {
        return Math.max(0, remaining) * HISTORY_PERCENT_OF_REMAINING / 100;
    }

}
