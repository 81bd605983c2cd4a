package io.cognitionstreams.testing;

import static org.assertj.core.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/** Programs a test runs that the build does not bring (docker-compose, prometheus, promtool): .ci/run installs them. */
public final class Executables {

    private Executables() {
    }

    /** {@code executable} on the PATH, or a skip that says how to install it; under CI=true, a failure. */
    public static Path required(String executable, String install) {
        Optional<Path> found = onPath(executable);
        if (found.isEmpty()) {
            if ("true".equals(System.getenv("CI"))) {
                fail(executable + " is not on PATH, but CI=true: .ci/run installs it (" + install + ")");
            }
            assumeTrue(false, executable + " is not on PATH; " + install + " to run this test");
        }
        return found.get();
    }

    public static Optional<Path> onPath(String executable) {
        String path = Optional.ofNullable(System.getenv("PATH")).orElse("");
        for (String dir : path.split(File.pathSeparator)) {
            if (dir.isEmpty()) {
                continue;
            }
            Path candidate = Path.of(dir, executable);
            if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
                return Optional.of(candidate);
            }
        }
        return Optional.empty();
    }
}
