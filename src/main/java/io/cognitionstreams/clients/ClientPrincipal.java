package io.cognitionstreams.clients;

import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Who a client of ours says it is, for the audit of governed records: Kafka tells a consumer nothing about the
 * principal that produced a record, so our writers name it in a header. The name is the writer's own claim, taken
 * from the settings it authenticates with; it is only as good as the ACL that lets just governance principals write
 * the topic at all (docs/security.md), and the broker's authorizer log is the authenticated record.
 */
public final class ClientPrincipal {

    /** The header a governed record's writer names itself in. */
    public static final String HEADER = "cognition.writer";

    private static final Pattern USERNAME = Pattern.compile("username\\s*=\\s*\"([^\"]+)\"");

    private ClientPrincipal() {
    }

    /**
     * The principal the broker sees for these client settings, as Kafka writes it: {@code User:<name>} for SASL
     * with a username in {@code sasl.jaas.config}, {@code User:ANONYMOUS} without authentication (plus the OS user,
     * so a development cluster still says who), and for TLS the fact that its certificate names it.
     */
    public static String describe(Map<String, Object> clientConfig, String osUser) {
        String protocol = String.valueOf(clientConfig.getOrDefault("security.protocol", "PLAINTEXT"))
                .toUpperCase(Locale.ROOT);
        if (protocol.startsWith("SASL")) {
            Matcher name = USERNAME.matcher(String.valueOf(clientConfig.getOrDefault("sasl.jaas.config", "")));
            return name.find() ? "User:" + name.group(1) : "User:(" + protocol + " without a username)";
        }
        if (protocol.equals("SSL")) {
            return "User:(the distinguished name of the client certificate)";
        }
        return "User:ANONYMOUS (os user " + osUser + ")";
    }
}
