package io.cognitionstreams.model;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.Test;

class WireNamesTest {

    private static final String API_NAME = "[A-Za-z0-9_-]{1,64}";

    @Test
    void namesTheApiTakesStayAndOthersAreMappedReversiblyWithoutCollisions() {
        String long1 = "mcp__" + "a".repeat(70) + "__read";
        String long2 = "mcp__" + "a".repeat(70) + "__write";
        List<String> names = List.of("shell.run", "shell_run", "git:push", "git_push", "mcp__files__read_text_file",
                "a_b.c", "a.b_c", long1, long2, "ünïcode.tool");
        WireNames map = WireNames.of(names);

        assertThat(map.wire("mcp__files__read_text_file")).isEqualTo("mcp__files__read_text_file");
        assertThat(map.wire("shell_run")).as("a name the API takes keeps it").isEqualTo("shell_run");
        assertThat(map.wire("shell.run")).startsWith("shell_run_").matches(API_NAME);
        assertThat(map.wire("git:push")).startsWith("git_push_");
        assertThat(names.stream().map(map::wire).distinct()).hasSize(names.size());
        for (String name : names) {
            assertThat(map.wire(name)).matches(API_NAME);
            assertThat(map.pipeline(map.wire(name))).contains(name);
        }
        assertThat(map.pipeline("nope")).isEmpty();
    }

    @Test
    void aNameAloneIsMappedToTheUnderscoredFormAndTheMappingIsTheSameWhateverTheOrder() {
        WireNames map = WireNames.of(List.of("shell.run", "git:push"));
        assertThat(map.wire("shell.run")).isEqualTo("shell_run");
        assertThat(map.wire("git:push")).isEqualTo("git_push");
        WireNames reversed = WireNames.of(Set.of("git:push", "shell.run"));
        assertThat(reversed.wire("shell.run")).isEqualTo("shell_run");
    }
}
