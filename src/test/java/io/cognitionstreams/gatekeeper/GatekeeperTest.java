package io.cognitionstreams.gatekeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import io.cognitionstreams.gatekeeper.Gatekeeper.Call;
import io.cognitionstreams.skills.PermissionSet;
import io.cognitionstreams.skills.SkillDefinition;

class GatekeeperTest {

    private static final String WRITER_PROTOCOL = "# Writer protocol\n1. Read before you write.";

    private static final SkillDefinition WRITER = new SkillDefinition("writer", "1.0.0", "Drafts documents",
            PermissionSet.compile(List.of("filesystem:read", "filesystem:write")), List.of(), WRITER_PROTOCOL);
    private static final SkillDefinition GIT = new SkillDefinition("git", "1.2.0", "Commits changes",
            PermissionSet.compile(List.of("git:*", "filesystem:read")), List.of(), "# Git protocol");
    private static final SkillDefinition ADMIN = new SkillDefinition("admin", "1.0.0", "Does anything",
            PermissionSet.compile(List.of("*")), List.of(), "# Admin protocol");
    private static final SkillRegistry REGISTRY = SkillRegistry.of(Map.of("writer", WRITER, "git", GIT,
            "admin", ADMIN));

    private final Gatekeeper gatekeeper = new Gatekeeper(REGISTRY, Optional.of("ops"));

    @Test
    void aSkillMayCallWhatItsPermissionsAllow() {
        Decision decision = gatekeeper.decide(new Call("s1", "git", "git", "git.commit"));

        assertThat(decision.approved()).isTrue();
        assertThat(decision.kind()).isEqualTo(Decision.Kind.APPROVED);
        assertThat(decision.privileged()).isFalse();
        assertThat(decision.reason()).isEqualTo("approved: skill \"git\" is permitted git.commit");
        assertThat(decision.requiredPermission()).isNull();
        assertThat(decision.protocol()).isNull();
    }

    @Test
    void aToolOutsideTheSkillsPermissionsIsDeniedWithItsProtocol() {
        Decision decision = gatekeeper.decide(new Call("s1", "writer", "writer", "shell.run"));

        assertThat(decision.approved()).isFalse();
        assertThat(decision.kind()).isEqualTo(Decision.Kind.PERMISSION);
        assertThat(decision.privileged()).isFalse();
        assertThat(decision.requiredPermission()).isEqualTo("shell:run");
        assertThat(decision.protocol()).isEqualTo(WRITER_PROTOCOL);
        assertThat(decision.reason())
                .startsWith("denied: skill \"writer\" may not call shell.run.")
                .contains("needs the permission shell:run (or shell:*)")
                .contains("it holds: filesystem:read, filesystem:write")
                .contains("re-read it below");
    }

    @Test
    void theRequiredPermissionIsCanonicalWhateverTheToolsSpelling() {
        Decision decision = gatekeeper.decide(new Call("s1", "git", "git", "filesystem.write"));

        assertThat(decision.approved()).isFalse();
        assertThat(decision.requiredPermission()).isEqualTo("filesystem:write");
        assertThat(decision.protocol()).isEqualTo("# Git protocol");
    }

    @Test
    void aCallWithoutASessionIsDenied() {
        for (String session : new String[] {null, "", "  "}) {
            Decision decision = gatekeeper.decide(new Call(session, "git", "git", "git.status"));

            assertThat(decision.approved()).isFalse();
            assertThat(decision.kind()).isEqualTo(Decision.Kind.NO_SESSION);
            assertThat(decision.reason()).isEqualTo(
                    "identity verification failed: no session (tool git.status, caller \"git\"). Re-read the "
                            + "protocol of skill \"git\" below and continue within it.");
            assertThat(decision.protocol()).isEqualTo("# Git protocol");
        }
        assertThat(gatekeeper.decide(new Call(null, "agent", null, "git.status")).reason())
                .as("no skill named, no protocol to re-read")
                .isEqualTo("identity verification failed: no session (tool git.status, caller \"agent\")");
    }

    /**
     * Seed 000: re-anchor on every denial where the protocol is known. One call per way to be denied, each naming a
     * skill the registry knows; between them they reach every denial a known skill can meet.
     */
    static Stream<Arguments> deniedCallsOfAKnownSkill() {
        return Stream.of(
                Arguments.of(new Call(null, "git", "git", "git.status"), Decision.Kind.NO_SESSION, "# Git protocol"),
                Arguments.of(new Call("s1", "git", "git", " "), Decision.Kind.MALFORMED_TOOL, "# Git protocol"),
                Arguments.of(new Call("s1", "admin", "admin", null), Decision.Kind.MALFORMED_TOOL,
                        "# Admin protocol"),
                Arguments.of(new Call("s1", "writer", "git", "git.push"), Decision.Kind.CALLER_MISMATCH,
                        "# Git protocol"),
                Arguments.of(new Call("s1", "agent", "writer", "filesystem.read"), Decision.Kind.CALLER_MISMATCH,
                        WRITER_PROTOCOL),
                Arguments.of(new Call("s1", "writer", "writer", "shell.run"), Decision.Kind.PERMISSION,
                        WRITER_PROTOCOL),
                Arguments.of(new Call("s1", "git", "git", "run"), Decision.Kind.PERMISSION, "# Git protocol"),
                Arguments.of(new Call("s1", "git", "git", "mcp__git"), Decision.Kind.PERMISSION, "# Git protocol"));
    }

    @ParameterizedTest(name = "{1}: {0}")
    @MethodSource("deniedCallsOfAKnownSkill")
    void everyDenialOfACallWhoseSkillIsKnownCarriesItsProtocol(Call call, Decision.Kind kind, String protocol) {
        Decision decision = gatekeeper.decide(call);

        assertThat(decision.approved()).isFalse();
        assertThat(decision.kind()).isEqualTo(kind);
        assertThat(decision.protocol()).isEqualTo(protocol);
        assertThat(decision.reason()).endsWith("below and continue within it.");
    }

    @Test
    void theDenialsOfAKnownSkillCoverEveryKindButThoseWithoutOne() {
        Set<Decision.Kind> covered = deniedCallsOfAKnownSkill().map(arguments -> (Decision.Kind) arguments.get()[1])
                .collect(Collectors.toCollection(() -> EnumSet.noneOf(Decision.Kind.class)));
        covered.add(Decision.Kind.ROOT_IS_SKILL); // needs a gatekeeper whose root caller is a skill: tested below

        // COUNCIL is no verdict of Gatekeeper's: GatekeeperSessions turns a council's refusal into it, with the
        // protocol (GatekeeperApprovalTest).
        Set<Decision.Kind> denials = EnumSet.complementOf(EnumSet.of(Decision.Kind.APPROVED,
                Decision.Kind.PRIVILEGED, Decision.Kind.NO_SKILL, Decision.Kind.UNKNOWN_SKILL, Decision.Kind.COUNCIL));
        assertThat(covered).as("a denial kind added later must re-anchor too, or say why not").isEqualTo(denials);
    }

    @Test
    void evenTheRootCallerNeedsASession() {
        assertThat(gatekeeper.decide(new Call(null, "ops", null, "shell.run")).approved()).isFalse();
    }

    @Test
    void anUnknownSkillIsDenied() {
        Decision decision = gatekeeper.decide(new Call("s1", "hacker", "hacker", "shell.run"));

        assertThat(decision.approved()).isFalse();
        assertThat(decision.kind()).isEqualTo(Decision.Kind.UNKNOWN_SKILL);
        assertThat(decision.reason()).isEqualTo(
                "identity verification failed: unknown skill \"hacker\" (tool shell.run, caller \"hacker\")");
        assertThat(decision.requiredPermission()).isNull();
        assertThat(decision.protocol()).as("no protocol is known for it").isNull();
    }

    @Test
    void aCallWithNoActiveSkillIsDenied() {
        Decision decision = gatekeeper.decide(new Call("s1", "agent", null, "shell.run"));

        assertThat(decision.approved()).isFalse();
        assertThat(decision.kind()).isEqualTo(Decision.Kind.NO_SKILL);
        assertThat(decision.reason()).startsWith(
                "identity verification failed: no active skill for tool shell.run (caller \"agent\")");
        assertThat(decision.protocol()).isNull();
    }

    @Test
    void aSkillCannotCallInAnotherSkillsName() {
        Decision decision = gatekeeper.decide(new Call("s1", "writer", "git", "git.push"));

        assertThat(decision.approved()).isFalse();
        assertThat(decision.kind()).isEqualTo(Decision.Kind.CALLER_MISMATCH);
        assertThat(decision.reason()).isEqualTo("identity verification failed: caller \"writer\" is not the active "
                + "skill \"git\" (tool git.push); a skill calls tools only in its own name. Re-read the protocol of "
                + "skill \"git\" below and continue within it.");
        assertThat(decision.protocol()).as("the session's active skill, not the caller's").isEqualTo("# Git protocol");
        assertThat(decision.requiredPermission()).isNull();
    }

    @Test
    void anUnknownCallerIsDeniedEvenWithAKnownSkill() {
        Decision decision = gatekeeper.decide(new Call("s1", "agent", "git", "git.status"));

        assertThat(decision.approved()).isFalse();
        assertThat(decision.reason()).startsWith("identity verification failed: caller \"agent\"");
    }

    @Test
    void theRootCallerIsApprovedAndFlaggedPrivileged() {
        for (String skill : new String[] {null, "writer", "nonexistent"}) {
            Decision decision = gatekeeper.decide(new Call("s1", "ops", skill, "shell.run"));

            assertThat(decision.approved()).isTrue();
            assertThat(decision.kind()).isEqualTo(Decision.Kind.PRIVILEGED);
            assertThat(decision.privileged()).isTrue();
            assertThat(decision.reason()).contains("root caller \"ops\"").contains("shell.run").contains("privileged");
        }
    }

    @Test
    void withoutARootCallerNobodyIsPrivileged() {
        Gatekeeper strict = new Gatekeeper(REGISTRY, Optional.empty());

        assertThat(strict.rootCaller()).isEmpty();
        assertThat(strict.decide(new Call("s1", "ops", null, "shell.run")).approved()).isFalse();
    }

    @Test
    void rootCallerMatchingIsExact() {
        assertThat(gatekeeper.decide(new Call("s1", "OPS", null, "shell.run")).approved()).isFalse();
        assertThat(gatekeeper.decide(new Call("s1", "ops ", null, "shell.run")).approved()).isFalse();
    }

    @Test
    void anMcpStyleNameIsTheSameToolAsItsOtherSpellings() {
        for (String tool : new String[] {"git.status", "git:status", "mcp__git__status"}) {
            assertThat(gatekeeper.decide(new Call("s1", "git", "git", tool)).kind()).as(tool)
                    .isEqualTo(Decision.Kind.APPROVED);
        }
        Decision denied = gatekeeper.decide(new Call("s1", "writer", "writer", "mcp__shell__run"));

        assertThat(denied.kind()).isEqualTo(Decision.Kind.PERMISSION);
        assertThat(denied.requiredPermission()).isEqualTo("shell:run");
        assertThat(denied.reason()).startsWith("denied: skill \"writer\" may not call mcp__shell__run. It needs the "
                + "permission shell:run (or shell:*)");
    }

    @Test
    void aNameThatIsNotWellFormedIsAllowedByStarAloneAndTheDenialSaysSo() {
        assertThat(gatekeeper.decide(new Call("s1", "admin", "admin", "run")).kind())
                .isEqualTo(Decision.Kind.APPROVED);
        for (String tool : new String[] {"run", "git", "mcp__", "mcp____x", "mcp__git__", "mcp__git"}) {
            Decision decision = gatekeeper.decide(new Call("s1", "git", "git", tool));

            assertThat(decision.kind()).as(tool).isEqualTo(Decision.Kind.PERMISSION);
            assertThat(decision.requiredPermission()).isEqualTo("*");
            assertThat(decision.protocol()).isEqualTo("# Git protocol");
            assertThat(decision.reason()).startsWith("denied: skill \"git\" may not call " + tool + ". \"" + tool
                    + "\" is not a service:method tool name (").contains("so only the permission * allows it");
        }
        assertThat(gatekeeper.decide(new Call("s1", "git", "git", "run")).reason())
                .contains("(it has no service part)");
        assertThat(gatekeeper.decide(new Call("s1", "git", "git", "mcp__git__")).reason())
                .contains("mcp__SERVER__TOOL with a non-empty server and tool");
    }

    @Test
    void theRootCallerMayCallAnyNameThatIsNotBlank() {
        for (String tool : new String[] {"run", "Bash", "mcp__git", "mcp__git__status"}) {
            Decision decision = gatekeeper.decide(new Call("s1", "ops", null, tool));

            assertThat(decision.kind()).as(tool).isEqualTo(Decision.Kind.PRIVILEGED);
        }
    }

    @Test
    void aBlankToolNameIsDeniedForEveryone() {
        for (String caller : new String[] {"git", "admin", "ops"}) {
            for (String tool : new String[] {null, "", " ", "\t\n", "\u00a0"}) {
                Decision decision = gatekeeper.decide(new Call("s1", caller, caller, tool));

                assertThat(decision.approved()).as("%s calls \"%s\"", caller, tool).isFalse();
                assertThat(decision.kind()).isEqualTo(Decision.Kind.MALFORMED_TOOL);
                assertThat(decision.reason()).startsWith("denied: the tool name is " + (tool == null ? "missing"
                        : "blank (\"" + tool + "\")")).contains("not even *, and neither does the root caller");
                assertThat(decision.requiredPermission()).isNull();
                assertThat(decision.protocol()).as("%s's own protocol, if it is a skill", caller)
                        .isEqualTo(REGISTRY.find(caller).map(SkillDefinition::protocol).orElse(null));
            }
        }
    }

    @Test
    void theRootCallerMustBeAValidName() {
        assertThatThrownBy(() -> new Gatekeeper(REGISTRY, Optional.of(" ")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("must be non-blank");
        assertThatThrownBy(() -> new Gatekeeper(REGISTRY, Optional.of(" ops")))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void whileASkillHasTheRootCallersNameNoCallIsPrivileged() {
        Gatekeeper clashing = new Gatekeeper(REGISTRY, Optional.of("git"));

        Decision decision = clashing.decide(new Call("s1", "git", "git", "shell.run"));

        assertThat(decision.approved()).isFalse();
        assertThat(decision.kind()).isEqualTo(Decision.Kind.ROOT_IS_SKILL);
        assertThat(decision.reason()).isEqualTo("identity verification failed: root caller \"git\" is also a "
                + "skill's name (tool shell.run); no call is privileged until the skill or the root caller is renamed."
                + " Re-read the protocol of skill \"git\" below and continue within it.");
        assertThat(decision.protocol()).isEqualTo("# Git protocol");
    }
}
