package io.cognitionstreams.skills;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Optional;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;

/**
 * Properties over generated names. Names come from a tiny alphabet so services collide, share prefixes and differ
 * only in case often, and hold {@code _} and {@code __} where the MCP spelling splits; a reference model (split the
 * name, compare strings) checks the compiled matcher.
 */
class PermissionPropertiesTest {

    @Property
    void aServiceWildcardAllowsExactlyTheToolsOfThatService(@ForAll("names") String service,
                                                          @ForAll("names") String other, @ForAll boolean same,
                                                          @ForAll("delimiters") String delimiter,
                                                          @ForAll("methods") String method) {
        String tool = (same ? service : other) + delimiter + method;

        for (String wildcard : List.of(service + ":*", service + ".*")) {
            assertThat(PermissionSet.compile(List.of(wildcard)).allows(tool))
                    .as("%s allows %s", wildcard, tool)
                    .isEqualTo(same || other.equals(service));
        }
    }

    @Property
    void anMcpNameIsAllowedExactlyAsTheServiceAndMethodItSplitsInto(@ForAll("permissionLists") List<String> permissions,
                                                                    @ForAll("names") String server,
                                                                    @ForAll("methods") String tool) {
        String mcp = "mcp__" + server + "__" + tool;
        PermissionSet set = PermissionSet.compile(permissions);

        // Reference split: the server ends at the first "__" after the prefix; an empty one is no tool name.
        String rest = mcp.substring("mcp__".length());
        int end = rest.indexOf("__");
        boolean wellFormed = end > 0;
        assertThat(set.allows(mcp)).as(mcp)
                .isEqualTo(wellFormed && set.allows(rest.substring(0, end) + ":" + rest.substring(end + 2)));
        assertThat(ToolNames.split(mcp).map(ToolName::canonical))
                .isEqualTo(wellFormed ? Optional.of(rest.substring(0, end) + ":" + rest.substring(end + 2))
                        : Optional.empty());
    }

    @Property
    void colonAndDotSpellingsAreEquivalent(@ForAll("names") String service, @ForAll("methods") String method,
                                           @ForAll("tools") String tool) {
        PermissionSet colon = PermissionSet.compile(List.of(service + ":" + method));
        PermissionSet dot = PermissionSet.compile(List.of(service + "." + method));

        assertThat(colon).isEqualTo(dot);
        assertThat(colon.allows(tool)).isEqualTo(dot.allows(tool));
        assertThat(colon.allows(service + "." + method)).isTrue();
        assertThat(dot.allows(service + ":" + method)).isTrue();
    }

    @Property
    void aSetAllowsAToolExactlyWhenOneOfItsPermissionsCoversIt(@ForAll("permissionLists") List<String> permissions,
                                                                 @ForAll("tools") String tool) {
        PermissionSet set = PermissionSet.compile(permissions);

        boolean covered = permissions.stream().anyMatch(permission -> covers(permission, tool));
        assertThat(set.allows(tool)).isEqualTo(covered);
    }

    @Property
    void anyStringIsEitherAllowedByItsRequiredPermissionOrBlankAndDeniedByEverything(@ForAll String text) {
        PermissionSet everything = PermissionSet.compile(List.of("*"));

        assertThat(everything.allows(text)).isEqualTo(!isSpaceOnly(text));
        assertThat(everything.allows(text)).isEqualTo(everything.requiredPermission(text).isPresent());
        everything.requiredPermission(text).ifPresent(required -> {
            assertThat(PermissionSet.compile(List.of(required)).allows(text)).isTrue();
            assertThat(required.equals("*")).isEqualTo(ToolNames.split(text).isEmpty());
        });
    }

    /** Empty, or nothing but whitespace and space separators. */
    private static boolean isSpaceOnly(String text) {
        return text.chars().allMatch(c -> Character.isWhitespace(c) || Character.isSpaceChar(c));
    }

    /** Reference model: a permission covers a tool if the service matches and the method is * or equal. */
    private static boolean covers(String permission, String tool) {
        String service = serviceOf(permission);
        String method = permission.substring(service.length() + 1);
        return service.equals(serviceOf(tool)) && (method.equals("*") || method.equals(methodOf(tool)));
    }

    private static String serviceOf(String name) {
        int colon = name.indexOf(':');
        int dot = name.indexOf('.');
        return name.substring(0, colon < 0 ? dot : dot < 0 ? colon : Math.min(colon, dot));
    }

    private static String methodOf(String tool) {
        return tool.substring(serviceOf(tool).length() + 1);
    }

    @Provide
    Arbitrary<String> names() {
        return Arbitraries.strings().withChars("abA_-1").ofMinLength(1).ofMaxLength(3);
    }

    @Provide
    Arbitrary<String> methods() {
        return names().list().ofMinSize(1).ofMaxSize(2).map(segments -> String.join(".", segments));
    }

    @Provide
    Arbitrary<String> tools() {
        return Combinators.combine(names(), delimiters(), methods())
                .as((service, delimiter, method) -> service + delimiter + method);
    }

    @Provide
    Arbitrary<String> delimiters() {
        return Arbitraries.of(":", ".");
    }

    @Provide
    Arbitrary<List<String>> permissionLists() {
        Arbitrary<String> method = Arbitraries.frequencyOf(Tuple.of(1, Arbitraries.just("*")), Tuple.of(3, methods()));
        Arbitrary<String> permission = Combinators.combine(names(), delimiters(), method)
                .as((service, delimiter, m) -> service + delimiter + m);
        return permission.list().ofMaxSize(4);
    }
}
