package io.cognitionstreams.routing;

import java.util.EnumMap;
import java.util.EnumSet;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

import io.cognitionstreams.schema.Marker;
import io.cognitionstreams.topics.Channel;

/**
 * Which channels each kind of block goes to. The default is seed 003 section 7.2, plus choices the seed leaves open:
 * <ul>
 *   <li>memory: THOUGHT_SEED (latent ideas are meant for later) and VERIFY (what was checked and how it came out is
 *       the experience worth recalling). Plans, chat text and interrupts are not remembered: they are transient or
 *       superseded by the VERIFY that follows.</li>
 *   <li>PREAMBLE (text before the first marker) is logged to cli_chat only: it is unlabelled, so it is not shown
 *       to end users.</li>
 *   <li>UNMARKED (an output with no marker) is treated as a RESPONSE: models forget markers, and the user still
 *       needs an answer. Nothing in it is ever executed.</li>
 *   <li>EXECUTE's shell destination is never written directly: the router turns it into a tool call for the
 *       gatekeeper, and only an approved call reaches channel.shell.</li>
 * </ul>
 */
public final class DestinationMatrix {

    private final Map<Marker, Set<Channel>> routes;

    private DestinationMatrix(Map<Marker, Set<Channel>> routes) {
        this.routes = routes;
    }

    public static DestinationMatrix defaults() {
        Map<Marker, Set<Channel>> routes = new EnumMap<>(Marker.class);
        routes.put(Marker.PLAN, EnumSet.of(Channel.CLI_CHAT, Channel.COUNCIL_CHAT));
        routes.put(Marker.EXECUTE, EnumSet.of(Channel.SHELL));
        routes.put(Marker.RESPONSE, EnumSet.of(Channel.CLI_CHAT, Channel.WEB_CHAT, Channel.DISCORD_CHAT));
        routes.put(Marker.THOUGHT_SEED, EnumSet.of(Channel.COUNCIL_CHAT, Channel.MEMORY));
        routes.put(Marker.INTERRUPT, EnumSet.of(Channel.CLI_CHAT, Channel.WEB_CHAT, Channel.DISCORD_CHAT,
                Channel.COUNCIL_CHAT));
        routes.put(Marker.VERIFY, EnumSet.of(Channel.CLI_CHAT, Channel.WEB_CHAT, Channel.DISCORD_CHAT,
                Channel.COUNCIL_CHAT, Channel.MEMORY));
        routes.put(Marker.PREAMBLE, EnumSet.of(Channel.CLI_CHAT));
        routes.put(Marker.UNMARKED, EnumSet.of(Channel.CLI_CHAT, Channel.WEB_CHAT, Channel.DISCORD_CHAT));
        routes.put(Marker.UNKNOWN, EnumSet.noneOf(Channel.class));
        return new DestinationMatrix(routes);
    }

    /**
     * The defaults with some rows replaced, from text like {@code PLAN=cli_chat,council_chat;VERIFY=cli_chat}.
     * A row given as {@code MARKER=} routes that marker nowhere.
     */
    public static DestinationMatrix parse(String spec) {
        Map<Marker, Set<Channel>> routes = new EnumMap<>(defaults().routes);
        for (String row : spec.split(";")) {
            if (row.isBlank()) {
                continue;
            }
            int eq = row.indexOf('=');
            if (eq < 0) {
                throw new IllegalArgumentException("destination row '" + row + "' is not MARKER=channel,...");
            }
            Marker marker;
            try {
                marker = Marker.valueOf(row.substring(0, eq).strip().toUpperCase(Locale.ROOT));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("unknown marker in destination row '" + row + "'");
            }
            Set<Channel> channels = EnumSet.noneOf(Channel.class);
            for (String name : row.substring(eq + 1).split(",")) {
                if (!name.isBlank()) {
                    channels.add(channelOf(name.strip(), row));
                }
            }
            routes.put(marker, channels);
        }
        return new DestinationMatrix(routes);
    }

    private static Channel channelOf(String name, String row) {
        return Channel.ofId(name.toLowerCase(Locale.ROOT)).orElseThrow(() -> new IllegalArgumentException(
                "unknown channel '" + name + "' in destination row '" + row + "'"));
    }

    public Set<Channel> channels(Marker marker) {
        return routes.getOrDefault(marker, Set.of());
    }
}
