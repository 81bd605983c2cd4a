package io.cognitionstreams.executor.shell;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;

import io.cognitionstreams.executor.shell.ShellSettings.Isolation;

class ShellSettingsTest {

    private static final Path ROOT = Path.of("/var/lib/cognition/shell");

    @Test
    void theDefaults() {
        ShellSettings defaults = ShellSettings.defaults(ROOT);

        assertThat(defaults.timeout()).isEqualTo(Duration.ofSeconds(60));
        assertThat(defaults.maxBytesPerStream()).isEqualTo(65_536);
        assertThat(defaults.envAllowList()).containsExactly("PATH", "LANG", "LC_ALL", "TZ", "TERM");
        assertThat(defaults.isolation()).isEqualTo(Isolation.AUTO);
        assertThat(defaults.killGrace()).isEqualTo(Duration.ofSeconds(1));
    }

    @Test
    void settingsThatCannotWorkAreRefused() {
        assertThatThrownBy(() -> settings(Duration.ZERO, 1024, List.of(), Duration.ZERO))
                .hasMessageContaining("shell timeout PT0S must be positive");
        assertThatThrownBy(() -> settings(Duration.ofSeconds(1), 1024, List.of(), Duration.ofSeconds(-1)))
                .hasMessageContaining("kill grace PT-1S is negative");
        assertThatThrownBy(() -> settings(Duration.ofSeconds(1), 7, List.of(), Duration.ZERO))
                .hasMessageContaining("output cap 7 bytes is below the minimum 8");
        assertThatThrownBy(() -> settings(Duration.ofSeconds(1), 1024, List.of("PATH", "A=B"), Duration.ZERO))
                .hasMessageContaining("'A=B' is not an environment variable name");
        assertThatThrownBy(() -> settings(Duration.ofSeconds(1), 1024, List.of("HOME"), Duration.ZERO))
                .hasMessageContaining("HOME cannot be allow-listed");
    }

    private static ShellSettings settings(Duration timeout, int maxBytes, List<String> env, Duration grace) {
        return new ShellSettings(ROOT, timeout, maxBytes, env, Isolation.NONE, grace);
    }
}
