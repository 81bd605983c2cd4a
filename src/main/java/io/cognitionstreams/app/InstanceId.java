package io.cognitionstreams.app;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.UUID;

/**
 * The name this instance goes by in its consumer groups ({@code group.instance.id}) and in the workers'
 * transactions, the same across restarts: it is kept in the state directory, which each instance has its own of
 * and keeps (docs/reliability.md, "Running N instances"). A process restarted on the same directory after a crash
 * therefore takes its dead predecessor's place in every group at once, and fences its open transactions at once,
 * instead of waiting for the dead member's session and the dead transactions' timeout to expire.
 */
public final class InstanceId {

    static final String FILE = "cognition-instance.id";

    private InstanceId() {
    }

    /** The id kept in {@code stateDir}, made on first use. */
    public static String of(Path stateDir) {
        Path file = stateDir.resolve(FILE);
        try {
            if (!Files.exists(file)) {
                Files.createDirectories(stateDir);
                Path written = Files.createTempFile(stateDir, FILE, ".tmp");
                Files.writeString(written, UUID.randomUUID() + System.lineSeparator(), StandardCharsets.UTF_8);
                Files.move(written, file, StandardCopyOption.ATOMIC_MOVE);
            }
            String id = Files.readString(file, StandardCharsets.UTF_8).trim();
            try {
                return UUID.fromString(id).toString();
            } catch (IllegalArgumentException e) {
                throw new IllegalStateException(file + " does not hold an instance id (a UUID) but '" + id
                        + "'; delete it and this instance gets a new one", e);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read or write the instance id in " + file, e);
        }
    }
}
