package io.cognitionstreams.assembly;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import com.knuddels.jtokkit.api.EncodingType;

import io.cognitionstreams.tokens.TokenCounter;
import io.cognitionstreams.tokens.Tokenizers;

/**
 * The task-instruction registry of seed 003 section 5: one short directive per stage, each checked at load to fit
 * its token limit so a packet can never be pushed over budget by its own instruction.
 */
public final class TaskInstructions {

    public static final int MAX_TOKENS = 64;

    public enum Stage { PLAN, REFINE, OBSERVE, ACT, VERIFY }

    public record Instruction(String key, String text, Stage stage, int maxTokens) {
    }

    /** The key of a turn the pipeline sends on its own after tool results. */
    public static final String AFTER_TOOL_RESULTS = "after_tool_results";

    private final Map<String, Instruction> byKey;

    private TaskInstructions(Map<String, Instruction> byKey) {
        this.byKey = byKey;
    }

    /** The seed's initial keys, each checked against every encoding a target model may use. */
    public static TaskInstructions defaults(Tokenizers tokenizers) {
        List<TokenCounter> counters = java.util.Arrays.stream(EncodingType.values())
                .map(tokenizers::forEncoding).toList();
        Map<String, Instruction> keys = new LinkedHashMap<>();
        put(keys, counters, "initial_planning", Stage.PLAN,
                "Think step by step. Emit a PLAN: block with a numbered list of steps before anything else.");
        put(keys, counters, "refinement", Stage.REFINE,
                "Critique the previous PLAN, emit a revised PLAN: block and end it with confidence=x (0 to 1).");
        put(keys, counters, "observer", Stage.OBSERVE,
                "Watch the streamed RESPONSE. Emit INTERRUPT: with the reason as soon as something goes wrong.");
        put(keys, counters, "interruption_handling", Stage.ACT,
                "Repair after the interrupt: propose approved EXECUTE: commands, then a RESPONSE: for the user.");
        // Not in the seed: the turn the pipeline sends itself once a turn's tool results are in (auto-continue).
        // An ACT stage, so its answer needs no PLAN: the model acts on what its calls returned. Worded for both
        // ways of calling tools (--model-tools text|native): the packet does not say which the worker uses.
        put(keys, counters, AFTER_TOOL_RESULTS, Stage.ACT,
                "Use the tool results above: call more tools if you need them (EXECUTE: lines or native tool calls), "
                        + "else give the RESPONSE: for the user.");
        put(keys, counters, "verification", Stage.VERIFY,
                "Check the post-execution state. Emit a VERIFY: block that says success or fail and why.");
        return new TaskInstructions(Map.copyOf(keys));
    }

    private static void put(Map<String, Instruction> keys, List<TokenCounter> counters, String key, Stage stage,
                            String text) {
        for (TokenCounter counter : counters) {
            int tokens = counter.count(text);
            if (tokens > MAX_TOKENS) {
                throw new IllegalArgumentException("task instruction '" + key + "' has " + tokens + " tokens in "
                        + counter.encodingName() + ", over the limit of " + MAX_TOKENS);
            }
        }
        keys.put(key, new Instruction(key, text, stage, MAX_TOKENS));
    }

    public Optional<Instruction> find(String key) {
        return Optional.ofNullable(byKey.get(key));
    }

    public java.util.Set<String> keys() {
        return byKey.keySet();
    }
}
