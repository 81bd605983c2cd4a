package io.cognitionstreams.skills;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class PermissionSetTest {

    @Test
    void serviceWildcardAllowsEveryMethodOfThatServiceInEverySpelling() {
        for (String permission : List.of("filesystem:*", "filesystem.*")) {
            PermissionSet set = PermissionSet.compile(List.of(permission));

            assertThat(set.allows("filesystem.read")).isTrue();
            assertThat(set.allows("filesystem:read")).isTrue();
            assertThat(set.allows("mcp__filesystem__read")).isTrue();
            assertThat(set.allows("filesystem.write")).isTrue();
            assertThat(set.allows("filesystem.dir.list")).isTrue();
            assertThat(set.allows("mcp__filesystem__dir.list")).isTrue();
            assertThat(set.allows("mcp__filesystem__read__all")).isTrue();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"filesystemX.read", "filesystemX:read", "filesyste.read", "xfilesystem.read",
            "filesystem", "filesystem.", "filesystem:", "Filesystem.read", "FILESYSTEM:read", "shell.run",
            "filesystem.*", "filesystem:*", ".filesystem.read", "mcp__filesystemX__read", "mcp__filesyste__read",
            "mcp__Filesystem__read", "mcp__filesystem__", "mcp__filesystem", "mcp__filesystem:read",
            "mcp___filesystem__read", "read", "mcp__shell__run"})
    void serviceWildcardAllowsNothingElse(String tool) {
        assertThat(PermissionSet.compile(List.of("filesystem:*")).allows(tool)).isFalse();
    }

    @Test
    void anExactPermissionAllowsThatToolInEverySpellingAndNothingElse() {
        for (String permission : List.of("web:search", "web.search")) {
            PermissionSet set = PermissionSet.compile(List.of(permission));

            assertThat(set.allows("web.search")).isTrue();
            assertThat(set.allows("web:search")).isTrue();
            assertThat(set.allows("mcp__web__search")).isTrue();
            assertThat(set.allows("mcp__web__searchX")).isFalse();
            assertThat(set.allows("mcp__web__search__deep")).isFalse();
            assertThat(set.allows("mcp__webX__search")).isFalse();
            assertThat(set.allows("web.fetch")).isFalse();
            assertThat(set.allows("web.searchX")).isFalse();
            assertThat(set.allows("web.search.deep")).isFalse();
            assertThat(set.allows("web.Search")).isFalse();
            assertThat(set.allows("web")).isFalse();
        }
    }

    @Test
    void nestedMethodsBelongToTheFirstSegmentsService() {
        PermissionSet wildcard = PermissionSet.compile(List.of("git:*"));
        PermissionSet exact = PermissionSet.compile(List.of("git.remote.add"));

        assertThat(wildcard.allows("git.remote.add")).isTrue();
        assertThat(wildcard.allows("git:remote.add")).isTrue();
        assertThat(exact.allows("git:remote.add")).isTrue();
        assertThat(exact.allows("git.remote.add")).isTrue();
        assertThat(exact.allows("mcp__git__remote.add")).isTrue();
        assertThat(exact.allows("git.remote.remove")).isFalse();
        assertThat(exact.allows("git.remote")).isFalse();
        assertThat(wildcard.allows("mcp__git__remote.add")).isTrue();
    }

    @Test
    void anMcpNameIsTheToolItSplitsInto() {
        // mcp__a__b__c is service a, method b__c: never service a__b.
        PermissionSet underscored = PermissionSet.compile(List.of("a__b:c", "x_:y"));
        PermissionSet split = PermissionSet.compile(List.of("a:b__c", "x:_y"));

        assertThat(underscored.allows("a__b:c")).isTrue();
        assertThat(underscored.allows("x_.y")).isTrue();
        assertThat(underscored.allows("mcp__a__b__c")).as("a service with __ has no MCP spelling").isFalse();
        assertThat(underscored.allows("mcp__x___y")).as("nor one that ends with _").isFalse();
        assertThat(split.allows("mcp__a__b__c")).isTrue();
        assertThat(split.allows("mcp__x___y")).isTrue();
        assertThat(PermissionSet.compile(List.of("a__b:*")).allows("mcp__a__b__c")).isFalse();
        assertThat(PermissionSet.compile(List.of("a:*")).allows("mcp__a__b__c")).isTrue();
    }

    @Test
    void aColonOnlyEverSeparatesServiceFromMethod() {
        PermissionSet set = PermissionSet.compile(List.of("git:*"));

        assertThat(set.allows("git.remote:add")).isFalse();
        assertThat(set.allows("git:remote:add")).isFalse();
    }

    @ParameterizedTest
    @ValueSource(strings = {"shell.run", "anything:at.all", "mcp__git__status", "run", "Bash", "mcp__", "mcp____x",
            "mcp__git__", "mcp__git", "git.remote:add", " shell.run", "she ll.run", "*", "\u0000"})
    void starAllowsEveryNameThatIsNotBlankWellFormedOrNot(String tool) {
        assertThat(PermissionSet.compile(List.of("*")).allows(tool)).isTrue();
    }

    @ParameterizedTest
    @ValueSource(strings = {"shell", "run", " shell.run", "shell.run ", "shell..run", "shell::run", ":run", ".run",
            "shell.*", "*", "she ll.run", "shell.rün", "shell/run", "mcp__", "mcp____run", "mcp__shell__",
            "mcp__shell", "mcp__shell:run", "mcp__shell__run:x"})
    void onlyStarAllowsWhatIsNotAWellFormedToolName(String tool) {
        assertThat(PermissionSet.compile(List.of("shell:*", "shell:run", "run:*")).allows(tool)).isFalse();
        assertThat(PermissionSet.compile(List.of("*")).allows(tool)).isTrue();
    }

    @ParameterizedTest
    @ValueSource(strings = {"", " ", "\t", " \n ", "\u00a0"})
    void nothingAllowsABlankName(String tool) {
        PermissionSet everything = PermissionSet.compile(List.of("*", "shell:*", "shell:run"));

        assertThat(everything.allows(tool)).isFalse();
        assertThat(everything.requiredPermission(tool)).isEmpty();
    }

    @Test
    void nothingAllowsNull() {
        assertThat(PermissionSet.compile(List.of("*")).allows(null)).isFalse();
        assertThat(PermissionSet.compile(List.of("shell:*")).allows(null)).isFalse();
        assertThat(PermissionSet.compile(List.of("*")).requiredPermission(null)).isEmpty();
    }

    @Test
    void anEmptySetDeniesEverything() {
        PermissionSet none = PermissionSet.compile(List.of());

        assertThat(none.allows("shell.run")).isFalse();
        assertThat(none.allows("filesystem.read")).isFalse();
        assertThat(none).hasToString("(none)");
    }

    @Test
    void mixedPermissionsEachDoTheirPart() {
        PermissionSet researcher = PermissionSet.compile(
                List.of("web.search", "web.fetch", "filesystem:read", "memory:*"));

        assertThat(researcher.allows("web.search")).isTrue();
        assertThat(researcher.allows("web:fetch")).isTrue();
        assertThat(researcher.allows("filesystem.read")).isTrue();
        assertThat(researcher.allows("memory.store")).isTrue();
        assertThat(researcher.allows("memory:recall")).isTrue();
        assertThat(researcher.allows("web.post")).isFalse();
        assertThat(researcher.allows("filesystem.write")).isFalse();
        assertThat(researcher.allows("shell.run")).isFalse();
        assertThat(researcher.allows("memoryX.store")).isFalse();
    }

    @Test
    void requiredPermissionIsTheNarrowestPermissionThatAllowsTheName() {
        PermissionSet set = PermissionSet.compile(List.of("filesystem:read"));

        assertThat(set.requiredPermission("shell.run")).contains("shell:run");
        assertThat(set.requiredPermission("shell:run")).contains("shell:run");
        assertThat(set.requiredPermission("mcp__shell__run")).contains("shell:run");
        assertThat(set.requiredPermission("git.remote.add")).contains("git:remote.add");
        assertThat(set.requiredPermission("mcp__git__remote.add")).contains("git:remote.add");
        assertThat(set.requiredPermission("filesystem.read")).contains("filesystem:read");
        assertThat(set.requiredPermission("shell")).as("only * allows a bare name").contains("*");
        assertThat(set.requiredPermission("mcp__git__")).contains("*");
        assertThat(set.requiredPermission("")).isEmpty();
    }

    @Test
    void duplicatesCollapseAndSpellingsAreEqual() {
        PermissionSet a = PermissionSet.compile(List.of("git:*", "web.search", "git.*", " web:search "));
        PermissionSet b = PermissionSet.compile(List.of("git.*", "web:search"));

        assertThat(a).isEqualTo(b).hasSameHashCodeAs(b).hasToString("git:*, web:search");
        assertThat(a.permissions())
                .containsExactly(new Permission.Service("git"), new Permission.Method("web", "search"));
    }

    @Test
    void manyWildcardServicesStillMatchExactly() {
        List<String> services = List.of("a", "b", "c", "git", "web", "memory", "shell", "filesystem", "db", "mail");
        PermissionSet set = PermissionSet.compile(services.stream().map(s -> s + ":*").toList());

        for (String service : services) {
            assertThat(set.allows(service + ".x")).as(service).isTrue();
            assertThat(set.allows(service + "x.x")).as(service + "x").isFalse();
        }
    }

    @Test
    void compileRefusesTheFirstMalformedPermissionByName() {
        assertThatThrownBy(() -> PermissionSet.compile(List.of("git:*", "a::b", ":*")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("invalid permission \"a::b\"");
    }
}
