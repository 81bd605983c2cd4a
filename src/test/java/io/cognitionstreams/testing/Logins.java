package io.cognitionstreams.testing;

import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;

import io.cognitionstreams.app.CognitionRuntime;
import io.cognitionstreams.app.Settings;
import io.cognitionstreams.council.CouncilSettings;
import io.cognitionstreams.security.AclProfile;
import io.cognitionstreams.security.KafkaAcls;
import io.cognitionstreams.security.Principals;
import io.cognitionstreams.security.SecretsDir;
import io.cognitionstreams.topics.Topics;

/**
 * Who a test's clients are. With {@code -Dcognition.it.secure=true} ({@code bin/secure-e2e}) the shared broker
 * starts as `run --secure` starts its own: SCRAM logins, StandardAuthorizer, no ACL no access. Tests then log in as
 * the principal they play, with only the rights the ACL profile gives it: the app as {@code User:app} (under its
 * application id's profile), requests sent as the app, channels read as the operator, governed records written as
 * governance. Any other broker, or the switch off, gets the bare address: the same test runs either way.
 */
public final class Logins {

    public static final boolean SECURE = Boolean.getBoolean("cognition.it.secure");

    /**
     * Who sends the tests' requests to the shared cognition.requests: only the app may, since nothing there is
     * bound to a tenant (agents write their tenant's own topic; SecureModeIT checks that).
     */
    public static final String REQUESTS = Principals.APP;

    static final Principals PRINCIPALS = new Principals(Principals.defaultTenants(),
            CouncilSettings.defaults().roles());

    /** Secured brokers by their address. */
    private static final Map<String, SecretsDir> SECURED = new ConcurrentHashMap<>();

    private Logins() {
    }

    /** Generates the principals' passwords in {@code dir}; the broker's users to start it with. */
    static SecretsDir secrets(Path dir) {
        return SecretsDir.loadOrCreate(dir, PRINCIPALS, new SecureRandom());
    }

    /** From now on, clients of {@code bootstrap} log in with these secrets. */
    static void secured(String bootstrap, SecretsDir secrets) {
        secrets.writeClientFiles(bootstrap);
        SECURED.put(bootstrap, secrets);
    }

    /**
     * A command's arguments to reach {@code bootstrap} as {@code principal}, as a user would give them: the
     * address, and on a secured broker the principal's client file as {@code --command-config}.
     */
    public static String[] cli(String bootstrap, String principal, String... args) {
        List<String> all = new ArrayList<>(List.of(args));
        all.addAll(List.of("--bootstrap-servers", bootstrap));
        clientFile(bootstrap, principal).ifPresent(file -> all.addAll(List.of("--command-config", file.toString())));
        return all.toArray(String[]::new);
    }

    /** The principal's client properties file on a secured broker; empty on an open one. */
    public static Optional<Path> clientFile(String bootstrap, String principal) {
        return Optional.ofNullable(SECURED.get(bootstrap)).map(secrets -> secrets.clientFile(principal));
    }

    /** Applies the ACL profile of {@code applicationId} on a secured broker (adding only missing bindings). */
    public static void allowApp(String bootstrap, String applicationId) {
        if (!SECURED.containsKey(bootstrap)) {
            return;
        }
        try (Admin admin = Admin.create(as(bootstrap, Principals.ADMIN))) {
            KafkaAcls.apply(admin, AclProfile.of(applicationId, Topics.names(PRINCIPALS.tenants()), PRINCIPALS));
        } catch (Exception e) {
            throw new IllegalStateException("cannot apply the ACL profile of " + applicationId, e);
        }
    }

    /** The client settings of {@code principal}: the address, and its login where the broker wants one. */
    public static Map<String, Object> as(String bootstrap, String principal) {
        Map<String, Object> client = new HashMap<>();
        client.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        SecretsDir secrets = SECURED.get(bootstrap);
        if (secrets != null) {
            client.putAll(secrets.clientSettings(principal));
        }
        return client;
    }

    /**
     * {@code settings} as `run --secure` runs the app: logged in as {@code User:app}, after the ACL profile of its
     * application id is applied (each test uses its own id, so each needs its own prefixed grants), and reporting
     * hanging transactions rather than aborting them (that needs CLUSTER_ACTION).
     */
    public static Settings app(Settings settings) {
        SecretsDir secrets = SECURED.get(settings.bootstrapServers());
        if (secrets == null) {
            return settings;
        }
        allowApp(settings.bootstrapServers(), settings.applicationId());
        Map<String, Object> properties = new HashMap<>(settings.clientProperties());
        properties.putAll(secrets.clientSettings(Principals.APP));
        return settings.withClient(properties, settings.tuning().reportingOnly());
    }

    /** {@code CognitionRuntime.start} as `run --secure` starts it: the app as app, personas published by governance. */
    public static CognitionRuntime start(Settings settings) {
        return CognitionRuntime.start(app(settings), Map.of(), as(settings.bootstrapServers(), Principals.GOVERNANCE));
    }
}
