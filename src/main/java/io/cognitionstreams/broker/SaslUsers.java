package io.cognitionstreams.broker;

import java.util.Map;
import java.util.Objects;

/**
 * Who may log in to a secured embedded broker: its own principal ({@code super.users}, and the login of the
 * controller listener and of its self-connections) and every other SCRAM-SHA-512 user with its password.
 *
 * @param admin         the broker's own user name, its only super user
 * @param adminPassword the broker's own password
 * @param users         every SCRAM user to create or update at start, the broker's own included or not
 */
public record SaslUsers(String admin, String adminPassword, Map<String, String> users) {

    public SaslUsers {
        Objects.requireNonNull(admin, "admin");
        Objects.requireNonNull(adminPassword, "adminPassword");
        users = Map.copyOf(users);
        for (String name : users.keySet()) {
            // JAAS and --add-scram quote names and passwords; a quote or a comma would break both.
            if (!name.matches("[A-Za-z0-9._-]+")) {
                throw new IllegalArgumentException("SCRAM user names are letters, digits, '.', '_' and '-': "
                        + "got '" + name + "'");
            }
        }
        if (!admin.matches("[A-Za-z0-9._-]+")) {
            throw new IllegalArgumentException("invalid admin user name '" + admin + "'");
        }
    }

    @Override
    public String toString() {
        return "SaslUsers[admin=" + admin + ", users=" + users.keySet() + "]";
    }
}
