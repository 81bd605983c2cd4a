package io.cognitionstreams.skills;

import java.util.Collection;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.Optional;
import java.util.Set;

/**
 * A skill's permissions, compiled once so that {@link #allows} is cheap: it runs on every tool call. Under {@code *}
 * a check is one scan for a non-blank character; otherwise one pass over the tool name to validate it and find the
 * service, then at most two hash lookups (exact tools, then wildcard services) and no allocation. Deny by default: a
 * tool no permission covers is denied. {@code *} allows every non-blank name, well-formed or not; every other
 * permission allows only well-formed tool names ({@link ToolNames}), in any of their three spellings. A blank name
 * is allowed by nothing. Immutable and thread-safe.
 */
public final class PermissionSet {

    private final Set<Permission> permissions;
    private final boolean allowAll;
    /** Each exact tool in every spelling it has, so the tool name as it arrives is the lookup key. */
    private final Set<String> exactTools;
    private final ServiceTable wildcardServices;

    private PermissionSet(Set<Permission> permissions) {
        this.permissions = Collections.unmodifiableSet(permissions);
        boolean all = false;
        Set<String> exact = new HashSet<>();
        Set<String> services = new HashSet<>();
        for (Permission permission : permissions) {
            if (permission instanceof Permission.All) {
                all = true;
            } else if (permission instanceof Permission.Service s) {
                services.add(s.service());
            } else if (permission instanceof Permission.Method m) {
                exact.add(m.service() + ':' + m.method());
                exact.add(m.service() + '.' + m.method());
                mcpSpelling(m).ifPresent(exact::add);
            }
        }
        this.allowAll = all;
        this.exactTools = Set.copyOf(exact);
        this.wildcardServices = new ServiceTable(services);
    }

    /**
     * Parses and compiles permission strings; duplicates collapse.
     *
     * @throws IllegalArgumentException for the first malformed permission, naming it
     */
    public static PermissionSet compile(Collection<String> permissions) {
        Set<Permission> parsed = new LinkedHashSet<>();
        for (String permission : permissions) {
            parsed.add(Permission.parse(permission));
        }
        return new PermissionSet(parsed);
    }

    /**
     * True if one of the permissions covers {@code tool}: {@code *} any non-blank name, the others a well-formed tool
     * name of their service or method.
     */
    public boolean allows(String tool) {
        if (allowAll) {
            return !ToolNames.isBlank(tool);
        }
        int delimiter = ToolNames.delimiter(tool);
        if (delimiter < 0) {
            return false;
        }
        return exactTools.contains(tool)
                || wildcardServices.containsRegion(tool, ToolNames.serviceStart(tool), delimiter);
    }

    /**
     * The narrowest permission that allows {@code tool}, whatever this set holds: the canonical {@code service:method}
     * of a well-formed tool name, {@code *} for any other non-blank name (nothing narrower allows it), empty for a
     * blank one (nothing allows it). For denial messages.
     */
    public Optional<String> requiredPermission(String tool) {
        if (ToolNames.isBlank(tool)) {
            return Optional.empty();
        }
        return Optional.of(ToolNames.split(tool).map(ToolName::canonical).orElse("*"));
    }

    /** The parsed permissions in the order first declared. */
    public Set<Permission> permissions() {
        return permissions;
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof PermissionSet set && permissions.equals(set.permissions);
    }

    @Override
    public int hashCode() {
        return permissions.hashCode();
    }

    /** The canonical permissions, comma-separated, or {@code (none)}. */
    @Override
    public String toString() {
        if (permissions.isEmpty()) {
            return "(none)";
        }
        StringBuilder text = new StringBuilder();
        for (Permission permission : permissions) {
            text.append(text.length() == 0 ? "" : ", ").append(permission.canonical());
        }
        return text.toString();
    }

    /**
     * {@code mcp__service__method}, if that reads back as this permission's tool: it does not when the service holds
     * {@code __} or ends with {@code _} (the MCP service ends at the first {@code __}), and then no MCP-style name
     * is this tool.
     */
    private static Optional<String> mcpSpelling(Permission.Method method) {
        String mcp = ToolNames.MCP_PREFIX + method.service() + "__" + method.method();
        return ToolNames.split(mcp).equals(Optional.of(new ToolName(method.service(), method.method())))
                ? Optional.of(mcp) : Optional.empty();
    }

    /**
     * Open-addressing set of service names that answers "is {@code tool[start, end)} a member?" without cutting a
     * substring: the hash is String's own, computed over the region, and candidates are compared in place.
     */
    private static final class ServiceTable {

        private final String[] slots;
        private final int mask;

        ServiceTable(Set<String> services) {
            int capacity = Integer.highestOneBit(Math.max(1, services.size()) * 4 - 1) << 1;
            slots = new String[capacity];
            mask = capacity - 1;
            for (String service : services) {
                int slot = spread(service.hashCode()) & mask;
                while (slots[slot] != null) {
                    slot = (slot + 1) & mask;
                }
                slots[slot] = service;
            }
        }

        boolean containsRegion(String text, int start, int end) {
            int hash = 0;
            for (int i = start; i < end; i++) {
                hash = 31 * hash + text.charAt(i);
            }
            int length = end - start;
            for (int slot = spread(hash) & mask; slots[slot] != null; slot = (slot + 1) & mask) {
                String service = slots[slot];
                if (service.length() == length && text.regionMatches(start, service, 0, length)) {
                    return true;
                }
            }
            return false;
        }

        private static int spread(int hash) {
            return hash ^ (hash >>> 16);
        }
    }
}
