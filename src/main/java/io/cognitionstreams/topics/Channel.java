package io.cognitionstreams.topics;

import java.util.Locale;
import java.util.Optional;

/**
 * Output sinks of seed 003's glossary. Each has its own topic, {@code channel.<id>}; the chats have one per
 * configured tenant too, {@code channel.<tenant>.<id>} ({@link #perTenant}).
 */
public enum Channel {
    CLI_CHAT, WEB_CHAT, DISCORD_CHAT, COUNCIL_CHAT, SHELL, MEMORY;

    public String id() {
        return name().toLowerCase(Locale.ROOT);
    }

    /**
     * Whether a tenant's sessions are answered on the tenant's own topic of this channel, which only that tenant's
     * agent may read. The one place that decides it. The others stay shared: council_chat carries every session's
     * escalations to the council, cross-tenant by design; shell carries approved commands and their output,
     * for the app and operators only; memory is the app's own input to episodic memory, each block carrying its
     * scope.
     */
    public boolean perTenant() {
        return this == CLI_CHAT || this == WEB_CHAT || this == DISCORD_CHAT;
    }

    /**
     * Whether an answer's RESPONSE text on this channel is also previewed as the model writes it, on
     * {@code channel.<id>.stream}: the chats people read while they wait. The council reads whole blocks; shell and
     * memory take no RESPONSE text.
     */
    public boolean streamed() {
        return this == CLI_CHAT || this == WEB_CHAT || this == DISCORD_CHAT;
    }

    /** The channel whose id this is. */
    public static Optional<Channel> ofId(String id) {
        for (Channel channel : values()) {
            if (channel.id().equals(id)) {
                return Optional.of(channel);
            }
        }
        return Optional.empty();
    }
}
