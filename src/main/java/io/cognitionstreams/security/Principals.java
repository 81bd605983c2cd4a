package io.cognitionstreams.security;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * The principals of the secure deployment, one per kind of actor, so each gets only the rights of its job: the
 * broker itself ({@value #ADMIN}, its only super user), the app ({@value #APP}), people who change governed records
 * ({@value #GOVERNANCE}), people who watch ({@value #OPERATOR}), one per council role and one agent per tenant.
 *
 * @param tenants      tenant names; each has an agent principal {@code agent-<tenant>}
 * @param councilRoles council roles; each has a principal {@code council-<role>}
 */
public record Principals(List<String> tenants, List<String> councilRoles) {

    public static final String ADMIN = "admin";
    public static final String APP = "app";
    public static final String GOVERNANCE = "governance";
    public static final String OPERATOR = "operator";
    public static final String AGENT_PREFIX = "agent-";
    public static final String COUNCIL_PREFIX = "council-";
    /** The tenants of `run --secure` and `acl` when none are given (comma-separated, as the option takes them). */
    public static final String DEFAULT_TENANTS = "tenant-a,tenant-b";

    /**
     * Lower-case letters, digits and dashes: no dot, so one tenant's channel prefix ({@code channel.<tenant>.})
     * never contains another's, and nothing that would need quoting in a JAAS line or a file name.
     */
    private static final Pattern NAME = Pattern.compile("[a-z0-9][a-z0-9-]{0,62}");

    public Principals {
        tenants = checked(tenants, "tenant");
        councilRoles = checked(councilRoles, "council role");
    }

    /** Every principal's name, the broker's own first. */
    public List<String> names() {
        List<String> names = new ArrayList<>(List.of(ADMIN, APP, GOVERNANCE, OPERATOR));
        councilRoles.forEach(role -> names.add(council(role)));
        tenants.forEach(tenant -> names.add(agent(tenant)));
        return List.copyOf(names);
    }

    /** {@link #DEFAULT_TENANTS} as a list. */
    public static List<String> defaultTenants() {
        return List.of(DEFAULT_TENANTS.split(","));
    }

    /** Whether {@code name} may name a tenant or a council role. */
    public static boolean validName(String name) {
        return name != null && NAME.matcher(name).matches();
    }

    public static String agent(String tenant) {
        return AGENT_PREFIX + tenant;
    }

    public static String council(String role) {
        return COUNCIL_PREFIX + role;
    }

    private static List<String> checked(List<String> names, String what) {
        Objects.requireNonNull(names, what + "s");
        for (String name : names) {
            if (!validName(name)) {
                throw new IllegalArgumentException("invalid " + what + " name '" + name + "': use lower-case "
                        + "letters, digits and '-' (at most 63, starting with a letter or digit)");
            }
        }
        if (new LinkedHashSet<>(names).size() != names.size()) {
            throw new IllegalArgumentException(what + " names repeat: " + names);
        }
        return List.copyOf(names);
    }
}
