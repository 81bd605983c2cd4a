package io.cognitionstreams.gatekeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.junit.jupiter.api.Test;

import io.cognitionstreams.gatekeeper.ApprovalRule.Policy;
import io.cognitionstreams.gatekeeper.ApprovalRule.ToolHints;
import io.cognitionstreams.schema.RiskLevel;
import io.cognitionstreams.skills.PermissionSet;
import io.cognitionstreams.skills.SkillDefinition;

class ApprovalRuleTest {

    /** What the executors describe: a read-only reader, a writer, a destructive deleter, a contradictory one. */
    private static final Map<String, ToolHints> CATALOG = Map.of(
            "mcp__files__read", new ToolHints(true, false),
            "mcp__files__write", new ToolHints(false, false),
            "mcp__files__delete", new ToolHints(false, true),
            "mcp__files__odd", new ToolHints(true, true));
    private static final ApprovalRule.Catalog TOOLS = name -> Optional.ofNullable(CATALOG.get(name));

    private static Optional<SkillDefinition> skill(String... approval) {
        return Optional.of(new SkillDefinition("ops", "1", "", PermissionSet.compile(List.of("*")), List.of(),
                "# ops", PermissionSet.compile(List.of()), PermissionSet.compile(List.of(approval))));
    }

    private static Optional<ApprovalRule.Need> need(Policy policy, String tool, Optional<SkillDefinition> skill) {
        return new ApprovalRule(policy).need(tool, skill, TOOLS);
    }

    @Test
    void riskyGatesEveryShellCallInEverySpelling() {
        for (String shell : List.of("shell.run", "shell:run", "mcp__shell__run")) {
            assertThat(need(Policy.RISKY, shell, skill())).get()
                    .extracting(ApprovalRule.Need::reason, ApprovalRule.Need::risk)
                    .containsExactly("every shell.run waits for the council (run --approval risky)", RiskLevel.MED);
        }
    }

    @Test
    void riskyLetsOnlyToolsMarkedReadOnlyAndNotDestructiveThrough() {
        assertThat(need(Policy.RISKY, "mcp__files__read", skill())).isEmpty();
        assertThat(need(Policy.RISKY, "files.read", skill())).as("the same tool in another spelling").isEmpty();
        assertThat(need(Policy.RISKY, "mcp__files__write", skill())).get().extracting(ApprovalRule.Need::reason)
                .isEqualTo("its MCP server does not mark it readOnlyHint");
        assertThat(need(Policy.RISKY, "mcp__files__delete", skill())).get()
                .extracting(ApprovalRule.Need::reason, ApprovalRule.Need::risk)
                .containsExactly("its MCP server marks it destructiveHint", RiskLevel.HIGH);
        assertThat(need(Policy.RISKY, "mcp__files__odd", skill())).get().extracting(ApprovalRule.Need::risk)
                .as("destructive outweighs read-only").isEqualTo(RiskLevel.HIGH);
        assertThat(need(Policy.RISKY, "git.push", skill())).get().extracting(ApprovalRule.Need::reason)
                .isEqualTo("no executor describes git.push on cognition.tools, so it is not known to be read-only");
        assertThat(need(Policy.RISKY, "run something", skill())).as("not even a tool name").isPresent();
    }

    @Test
    void aSkillMayAddApprovalsButNeverTakeThemAway() {
        assertThat(need(Policy.RISKY, "mcp__files__read", skill("files:read"))).get()
                .extracting(ApprovalRule.Need::reason).isEqualTo("skill \"ops\" names it in its approval list");
        assertThat(need(Policy.RISKY, "mcp__files__read", skill("files:*"))).isPresent();
        assertThat(need(Policy.RISKY, "mcp__files__write", skill("git:push")))
                .as("listing other tools frees none").isPresent();
        assertThat(need(Policy.RISKY, "shell.run", skill("files:read"))).isPresent();
        assertThat(need(Policy.RISKY, "mcp__files__read", Optional.empty())).as("the root caller's call").isEmpty();
    }

    @Test
    void alwaysGatesEveryCallAndNeverNone() {
        assertThat(need(Policy.ALWAYS, "mcp__files__read", skill())).get()
                .extracting(ApprovalRule.Need::reason, ApprovalRule.Need::risk)
                .containsExactly("every call waits for the council (run --approval always)", RiskLevel.LOW);
        assertThat(need(Policy.ALWAYS, "git.push", skill())).isPresent();
        for (String tool : List.of("shell.run", "mcp__files__delete", "mcp__files__write", "git.push")) {
            assertThat(need(Policy.NEVER, tool, skill("*"))).as(tool).isEmpty();
        }
    }

    @Test
    void thePolicyIsParsedFromTheFlagAndSaysAtStartWhatItMeans() {
        assertThat(Policy.parse("never")).isEqualTo(Policy.NEVER);
        assertThat(Policy.parse(" Risky ")).isEqualTo(Policy.RISKY);
        assertThatThrownBy(() -> Policy.parse("sometimes")).hasMessage(
                "approval policy 'sometimes' is not never, risky or always");
        assertThat(new ApprovalRule(Policy.NEVER).describe()).contains("no tool call waits for the council")
                .contains("before the council decided anything");
    }
}
