package io.cognitionstreams.topics;

import java.util.Locale;

/** Output sinks of seed 003's glossary. Each has its own topic, {@code channel.<id>}. */
public enum Channel {
    CLI_CHAT, WEB_CHAT, DISCORD_CHAT, COUNCIL_CHAT, SHELL, MEMORY;

    public String id() {
        return name().toLowerCase(Locale.ROOT);
    }
}
