package io.cognitionstreams.gatekeeper;

import java.util.Locale;
import java.util.Objects;
import java.util.Optional;

import io.cognitionstreams.routing.OutputRouter;
import io.cognitionstreams.schema.RiskLevel;
import io.cognitionstreams.skills.SkillDefinition;
import io.cognitionstreams.skills.ToolName;
import io.cognitionstreams.skills.ToolNames;

/**
 * Which approved calls wait for the council before they run (docs/council.md, "What the council decides"). The one
 * place the rule lives: the operator's policy ({@code run --approval}), what the tool's MCP server says of it
 * (its {@code readOnlyHint} and {@code destructiveHint}, as the executor published them on cognition.tools), and
 * the skill's own {@code approval:} list, which can only add to the policy.
 *
 * <ul>
 *   <li>{@link Policy#NEVER}: nothing waits (the behaviour before the council decided anything).</li>
 *   <li>{@link Policy#RISKY} (the default): every {@code shell.run}; every other tool unless its server marks it
 *       {@code readOnlyHint} and not {@code destructiveHint} (a tool no executor describes is not known to be
 *       read-only, so it waits too); and whatever the skill's {@code approval:} names.</li>
 *   <li>{@link Policy#ALWAYS}: every approved call.</li>
 * </ul>
 * A call the server marks {@code destructiveHint} is proposed at risk HIGH, which also escalates it to Prime (the
 * council's rule for any HIGH message); everything else at MED, a read-only tool under {@code always} at LOW.
 */
public final class ApprovalRule {

    /** {@code run --approval}. */
    public enum Policy {
        NEVER, RISKY, ALWAYS;

        public static Policy parse(String value) {
            try {
                return valueOf(value.strip().toUpperCase(Locale.ROOT));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("approval policy '" + value + "' is not never, risky or always");
            }
        }

        public String label() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /**
     * What the executors say of a tool (its descriptor on cognition.tools).
     *
     * @param readOnly    MCP {@code readOnlyHint}
     * @param destructive MCP {@code destructiveHint}
     */
    public record ToolHints(boolean readOnly, boolean destructive) {
    }

    /** Looks a tool's hints up by the name calls use, {@code mcp__server__tool}. */
    @FunctionalInterface
    public interface Catalog {
        Optional<ToolHints> find(String mcpName);
    }

    /**
     * Why a call waits for the council.
     *
     * @param reason for the proposal and the pending decision: which rule asked for approval
     * @param risk   the proposal's risk level
     */
    public record Need(String reason, RiskLevel risk) {
    }

    private static final ToolName SHELL = ToolNames.split(OutputRouter.SHELL_TOOL).orElseThrow();

    private final Policy policy;

    public ApprovalRule(Policy policy) {
        this.policy = Objects.requireNonNull(policy, "policy");
    }

    public Policy policy() {
        return policy;
    }

    /**
     * Whether an approved call of {@code tool} by {@code skill} (empty for the root caller's calls) must wait for the
     * council, and why.
     */
    public Optional<Need> need(String tool, Optional<SkillDefinition> skill, Catalog catalog) {
        if (policy == Policy.NEVER) {
            return Optional.empty();
        }
        Optional<ToolName> name = ToolNames.split(tool);
        Optional<ToolHints> hints = name.filter(split -> !split.equals(SHELL))
                .flatMap(split -> catalog.find("mcp__" + split.service() + "__" + split.method()));
        boolean destructive = hints.map(ToolHints::destructive).orElse(false);
        RiskLevel risk = destructive ? RiskLevel.HIGH : RiskLevel.MED;
        if (name.filter(SHELL::equals).isPresent()) {
            return Optional.of(new Need("every shell.run waits for the council (run --approval " + policy.label()
                    + ")", risk));
        }
        Optional<String> skillAsks = skill.filter(known -> known.approval().allows(tool))
                .map(known -> "skill \"" + known.name() + "\" names it in its approval list");
        if (skillAsks.isPresent()) {
            return Optional.of(new Need(skillAsks.get(), risk));
        }
        if (destructive) {
            return Optional.of(new Need("its MCP server marks it destructiveHint", risk));
        }
        if (hints.isEmpty()) {
            if (policy == Policy.ALWAYS) {
                return Optional.of(new Need("every call waits for the council (run --approval always)", risk));
            }
            return Optional.of(new Need("no executor describes " + tool + " on cognition.tools, so it is not known "
                    + "to be read-only", risk));
        }
        if (!hints.get().readOnly()) {
            return Optional.of(new Need("its MCP server does not mark it readOnlyHint", risk));
        }
        return policy == Policy.ALWAYS
                ? Optional.of(new Need("every call waits for the council (run --approval always)", RiskLevel.LOW))
                : Optional.empty();
    }

    /** What {@code run} logs at start, so an operator sees whether the council governs anything. */
    public String describe() {
        return switch (policy) {
            case NEVER -> "approval never: no tool call waits for the council; approved calls run at once "
                    + "(the behaviour before the council decided anything)";
            case RISKY -> "approval risky: shell.run, tools not marked readOnlyHint (or marked destructiveHint) and "
                    + "what a skill's approval list names wait for the council";
            case ALWAYS -> "approval always: every approved tool call waits for the council";
        };
    }
}
