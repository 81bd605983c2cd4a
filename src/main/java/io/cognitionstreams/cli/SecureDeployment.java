package io.cognitionstreams.cli;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.HashMap;
import java.util.Map;

import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;

import io.cognitionstreams.broker.SaslUsers;
import io.cognitionstreams.security.AclProfile;
import io.cognitionstreams.security.KafkaAcls;
import io.cognitionstreams.security.Principals;
import io.cognitionstreams.security.SecretsDir;
import io.cognitionstreams.topics.Topics;

/**
 * What `run --secure` adds around the embedded broker: the principals' secrets before it starts, and once it
 * answers, their client files and the ACL profile, applied as the broker's own user before the app connects.
 */
final class SecureDeployment {

    private final SecretsDir secrets;
    private final AclProfile profile;

    private SecureDeployment(SecretsDir secrets, AclProfile profile) {
        this.secrets = secrets;
        this.profile = profile;
    }

    /** Reads or generates the passwords; nothing connects yet. */
    static SecureDeployment prepare(Path secretsDir, Principals principals, String applicationId) {
        return new SecureDeployment(SecretsDir.loadOrCreate(secretsDir, principals, new SecureRandom()),
                AclProfile.of(applicationId, Topics.names(principals.tenants()), principals));
    }

    SaslUsers saslUsers() {
        return secrets.saslUsers();
    }

    /** Writes each principal's client file for {@code bootstrap} and applies the ACL profile there. */
    void configure(String bootstrap, PrintWriter err) throws Exception {
        secrets.writeClientFiles(bootstrap);
        int created;
        try (Admin admin = Admin.create(clientSettings(Principals.ADMIN, Map.of(
                CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, bootstrap)))) {
            created = KafkaAcls.apply(admin, profile);
        }
        err.printf("secured: %d ACLs for %d principals (%d new); each principal's client settings are in %s "
                + "(use one as --command-config)%n", profile.grants().size(), secrets.passwords().size(), created,
                secrets.clientFile(Principals.ADMIN).getParent());
        err.flush();
    }

    /** {@code base} (timeouts, tuning from --command-config), logged in as {@code principal}. */
    Map<String, Object> clientSettings(String principal, Map<String, Object> base) {
        Map<String, Object> settings = new HashMap<>(base);
        settings.putAll(secrets.clientSettings(principal));
        return settings;
    }
}
