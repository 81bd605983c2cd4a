package io.cognitionstreams.timetravel;

import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.cognitionstreams.assembly.TaskInstructions;
import io.cognitionstreams.assembly.TaskInstructions.Stage;
import io.cognitionstreams.routing.MarkerParser;
import io.cognitionstreams.schema.Marker;

/**
 * Seed 003 section 6: what a model must emit at each stage, and what happens when it does not.
 * <ul>
 *   <li>PLAN needs a {@code PLAN:} block; without one: retry, then escalate.</li>
 *   <li>REFINE needs {@code confidence=x} with x in 0..1 (the last one counts: the revised plan ends with it);
 *       without a readable one: retry, then escalate; below 0.3: escalate at once.</li>
 *   <li>VERIFY needs a {@code VERIFY:} block that says success or fail. The first verdict word of the block
 *       decides (fail, failed, fails, failing, failure(s) / success, successful(ly), succeeded, succeeds, pass,
 *       passed, passes); a fail in any VERIFY block is a fail. Fail: travel back and retry, then escalate. A
 *       block with no verdict word breaks the contract the same way. Negations ("no failures") are not
 *       understood: the task instruction asks the model to say success or fail, so it should come first.</li>
 *   <li>OBSERVE and ACT have no contract here: three interrupts in a row are routing's escalation.</li>
 * </ul>
 * Markers are found with routing's own {@link MarkerParser}, so a PLAN: inside a code fence does not count here
 * either.
 */
public final class StageContracts {

    /** Seed 003 section 8.4: a Refine confidence below this escalates. */
    public static final double ESCALATE_BELOW = 0.3;

    // Unambiguous digits, so a hostile run of digits cannot make the match backtrack.
    private static final Pattern CONFIDENCE =
            Pattern.compile("confidence\\s*=\\s*([0-9]+(?:\\.[0-9]+)?|\\.[0-9]+)", Pattern.CASE_INSENSITIVE);
    private static final Pattern WORDS = Pattern.compile("\\p{L}+");
    private static final Set<String> FAIL_WORDS = Set.of("fail", "failed", "fails", "failing", "failure", "failures");
    private static final Set<String> SUCCESS_WORDS = Set.of("success", "successful", "successfully", "succeeded",
            "succeeds", "pass", "passed", "passes");

    private final TaskInstructions instructions;

    public StageContracts(TaskInstructions instructions) {
        this.instructions = instructions;
    }

    /** What the contract check says about one output. */
    public enum Outcome {
        /** The stage has no contract (observe, act, or a key this registry does not know). */
        NONE,
        PASSED,
        /** Broken contract or a failed verification: the AutoFix loop retries, then escalates. */
        RETRY,
        /** Escalate at once, no retry (a Refine confidence below 0.3). */
        ESCALATE
    }

    /**
     * @param reason     why it did not pass, one line (it becomes the retry's recovery lesson); empty otherwise
     * @param confidence the Refine confidence when one was read
     */
    public record Result(Outcome outcome, String reason, Optional<Double> confidence) {

        static Result of(Outcome outcome, String reason) {
            return new Result(outcome, reason, Optional.empty());
        }
    }

    public Optional<Stage> stageOf(String taskInstructionKey) {
        return instructions.find(taskInstructionKey).map(TaskInstructions.Instruction::stage);
    }

    public static Result check(Stage stage, String output) {
        return switch (stage) {
            case PLAN -> MarkerParser.parse(output).stream().anyMatch(block -> block.marker() == Marker.PLAN)
                    ? Result.of(Outcome.PASSED, "")
                    : Result.of(Outcome.RETRY, "the PLAN stage needs a PLAN: block and the answer had none");
            case REFINE -> refine(output);
            case VERIFY -> verify(output);
            case OBSERVE, ACT -> Result.of(Outcome.NONE, "");
        };
    }

    private static Result refine(String output) {
        Matcher matcher = CONFIDENCE.matcher(output);
        String last = null;
        while (matcher.find()) {
            last = matcher.group(1);
        }
        if (last == null) {
            return Result.of(Outcome.RETRY, "the REFINE stage needs confidence=x (0 to 1) and the answer had none");
        }
        double confidence = Double.parseDouble(last);
        if (confidence > 1) {
            return Result.of(Outcome.RETRY, "confidence=" + last + " is outside 0 to 1");
        }
        if (confidence < ESCALATE_BELOW) {
            return new Result(Outcome.ESCALATE, "confidence=" + last + " is below " + ESCALATE_BELOW,
                    Optional.of(confidence));
        }
        return new Result(Outcome.PASSED, "", Optional.of(confidence));
    }

    private static Result verify(String output) {
        List<String> blocks = MarkerParser.parse(output).stream()
                .filter(block -> block.marker() == Marker.VERIFY).map(MarkerParser.Block::text).toList();
        if (blocks.isEmpty()) {
            return Result.of(Outcome.RETRY, "the VERIFY stage needs a VERIFY: block and the answer had none");
        }
        boolean success = false;
        for (String block : blocks) {
            Optional<Boolean> verdict = verdict(block);
            if (verdict.isPresent() && !verdict.get()) {
                return Result.of(Outcome.RETRY, "VERIFY reported a failure: " + block.lines().findFirst().orElse(""));
            }
            success |= verdict.isPresent();
        }
        return success ? Result.of(Outcome.PASSED, "")
                : Result.of(Outcome.RETRY, "the VERIFY: block says neither success nor fail");
    }

    /** True for success, false for fail, empty when the block has no verdict word. */
    private static Optional<Boolean> verdict(String block) {
        Matcher words = WORDS.matcher(block);
        while (words.find()) {
            String word = words.group().toLowerCase(Locale.ROOT);
            if (FAIL_WORDS.contains(word)) {
                return Optional.of(false);
            }
            if (SUCCESS_WORDS.contains(word)) {
                return Optional.of(true);
            }
        }
        return Optional.empty();
    }
}
