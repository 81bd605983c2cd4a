package io.cognitionstreams.gatekeeper;

import java.util.Objects;
import java.util.Optional;

/**
 * How the gatekeeper runs. Both are checked here, so a bad flag stops the app at start, not at the first call.
 *
 * @param rootCaller        the privileged caller whose calls skip the permission check (and are recorded); empty
 *                          for none, the default: privilege is opt-in
 * @param overloadThreshold the most active skills a session may have before its results carry a cognitive-load
 *                          warning ({@link CognitiveLoad}, default 5)
 */
public record GatekeeperSettings(Optional<String> rootCaller, int overloadThreshold) {

    public GatekeeperSettings {
        Gatekeeper.requireValidRootCaller(Objects.requireNonNull(rootCaller, "rootCaller"));
        new CognitiveLoad(overloadThreshold); // refuses a negative threshold now
    }

    public static GatekeeperSettings defaults() {
        return new GatekeeperSettings(Optional.empty(), CognitiveLoad.DEFAULT_THRESHOLD);
    }

    public CognitiveLoad load() {
        return new CognitiveLoad(overloadThreshold);
    }
}
